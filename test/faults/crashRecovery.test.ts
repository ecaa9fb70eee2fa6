/**
 * Crash recovery: a separate `svc worker` process SIGKILLed in the middle of a job (held at a gate,
 * so the kill lands mid-job every time). Its locks are released once its heartbeat is stale, the
 * job runs again on another worker and completes once, with the same outputs as an undisturbed
 * run, and its job_runs row shows the interrupted attempt.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stageNames } from '../../engine/pipeline.ts';
import { generateIssues, syntheticRecord } from '../../fixtures/synthetic.ts';
import { appliedTenantMigrations, tenantMigrationFiles } from '../../sql/tenant/schema.ts';
import type { JobRun } from '../../sql/jobRuns.ts';
import { demoToken, eventually, startTestApp, type TestApp } from '../helpers/app.ts';
import { fresh } from '../helpers/errors.ts';
import type { Client } from '../helpers/http.ts';
import { closeGate, startSvc, type SvcChild } from '../helpers/faults.ts';
import { createTenant, provisionTenant, staffLogin, type ProductClient } from '../helpers/product.ts';
import { startReceiver } from '../helpers/receiver.ts';

let t: TestApp;
let api: Client;
let staff: ProductClient;
const workers: SvcChild[] = [];
test.before(async () => {
  t = await startTestApp();
  api = t.platform.as(await demoToken(t));
  staff = await staffLogin(t);
});
test.after(async () => {
  for (const w of workers) await w.kill();
  await t.close();
});

async function worker(env: Record<string, string> = {}): Promise<SvcChild> {
  const w = await startSvc('worker', t.db.url, env);
  workers.push(w);
  return w;
}

const jobRun = async (id: string) => (await t.app.pool.query<JobRun & { interruptions: any[] }>('select * from job_runs where id = $1', [id])).rows[0];

async function waitForJob(id: string, timeoutMs = 90_000) {
  return eventually(
    async () => {
      const run = await jobRun(id);
      return ['succeeded', 'failed', 'cancelled'].includes(run.status) ? run : undefined;
    },
    timeoutMs,
    `job ${id} to finish`,
  );
}

test('a worker killed mid-engine-run: released, run again once, the same outputs as a replay; job_runs shows the interrupted attempt', async () => {
  const records = generateIssues(300, 11, 4).map(syntheticRecord);
  assert.is((await api.post('/v1/ingest/batch', { records }, fresh())).status, 202);

  const gate = await closeGate(t.db.url, 'engine__run', stageNames[3]);
  const victim = await worker();
  const started = await api.post('/v1/engine/runs', {}, fresh());
  assert.is(started.status, 202, started.text);
  const { run_id: runId, job_id: jobId } = started.body;
  await gate.reached();

  const during = await jobRun(jobId);
  assert.is(during.status, 'running');
  // Held while recording the fourth stage: three stages are done and committed.
  assert.is(during.progress, 30);
  assert.equal(during.steps_completed, stageNames.slice(0, 3));
  const killedAt = Date.now();
  await victim.kill('SIGKILL');
  await gate.open();

  await worker();
  const done = await waitForJob(jobId);
  const recoveredMs = Date.now() - killedAt;
  assert.ok(recoveredMs < 90_000, `completed ${recoveredMs} ms after the kill`);
  assert.is(done.status, 'succeeded', done.error_detail ?? '');
  assert.is(done.attempts, 2);
  assert.is(done.interruptions.length, 1);
  assert.is(done.interruptions[0].attempt, 1);
  assert.is(done.interruptions[0].worker, victim.poolId);
  assert.equal(done.steps_completed, stageNames);

  const run = await api.get(`/v1/engine/runs/${runId}`);
  assert.is(run.body.status, 'succeeded');
  assert.equal(
    run.body.manifest.stages.map((s: { stage: string }) => s.stage),
    stageNames,
    'every stage once, in order',
  );
  const outputs = await t.app.pool.query('select stage, count(*)::int as n from engine_stage_outputs where run_id = $1 group by stage', [runId]);
  assert.is(outputs.rowCount, stageNames.length);
  assert.ok(outputs.rows.every((r) => r.n === 1));
  // Re-executing the run from its frozen input gives every stage's stored digest: the interrupted
  // run produced exactly what an undisturbed one does.
  const replay = await api.post(`/v1/engine/runs/${runId}/replay`);
  assert.is(replay.status, 200, replay.text);
  assert.is(replay.body.identical, true, JSON.stringify(replay.body.diff_summary));
  const leftLocked = await t.app.pool.query('select 1 from graphile_worker.jobs where locked_by = $1', [victim.poolId]);
  assert.is(leftLocked.rowCount, 0);
});

test('a worker killed mid-provisioning: the tenant ends onboarding with the same schema as an undisturbed one', async () => {
  const undisturbed = await createTenant(staff, { slug: 'calm-co' });
  await provisionTenant(t, staff, undisturbed.id, 60_000);

  const tenant = await createTenant(staff, { slug: 'crash-co' });
  const gate = await closeGate(t.db.url, 'tenant__provision', 'create_schema');
  const victim = workers.at(-1)!;
  const queued = await staff.post(`/admin/tenants/${tenant.id}/provision`);
  assert.is(queued.status, 202, queued.text);
  await gate.reached();
  // Held while recording its first step: the schema exists, nothing else is done.
  const during = await jobRun(queued.body.job_id);
  assert.is(during.status, 'running');
  assert.equal(during.steps_completed, []);
  const schema = (await t.app.pool.query('select schema_name from tenants where id = $1', [tenant.id])).rows[0].schema_name;
  assert.is((await t.app.pool.query('select 1 from information_schema.schemata where schema_name = $1', [schema])).rowCount, 1);
  await victim.kill('SIGKILL');
  await gate.open();

  await worker();
  const done = await waitForJob(queued.body.job_id);
  assert.is(done.status, 'succeeded', done.error_detail ?? '');
  assert.is(done.interruptions.length, 1);
  assert.is(done.interruptions[0].worker, victim.poolId);
  assert.is(done.attempts, 2);
  const status = await staff.get(`/admin/tenants/${tenant.id}/provision/status`);
  assert.is(status.body.status, 'succeeded');
  assert.is((await staff.get(`/admin/tenants/${tenant.id}`)).body.lifecycle_state, 'onboarding');

  const schemaOf = async (id: string) =>
    (await t.app.pool.query<{ schema_name: string }>('select schema_name from tenants where id = $1', [id])).rows[0].schema_name;
  const tablesOf = async (schema: string) =>
    (await t.app.pool.query<{ t: string }>('select table_name as t from information_schema.tables where table_schema = $1 order by 1', [schema])).rows.map(
      (r) => r.t,
    );
  const crashed = await schemaOf(tenant.id);
  const calm = await schemaOf(undisturbed.id);
  assert.equal(await tablesOf(crashed), await tablesOf(calm));
  assert.equal(
    await appliedTenantMigrations(t.app.pool, crashed),
    tenantMigrationFiles().map((f) => f.name),
  );
  const roles = async (schema: string) => (await t.app.pool.query(`select name, permissions from "${schema}".role_profiles order by name`)).rows;
  assert.equal(await roles(crashed), await roles(calm));
});

test('a worker killed mid-delivery: the webhook delivery is retried with the same webhook-id and succeeds once; the ingest event was recorded once', async () => {
  for (const w of workers) await w.kill('SIGTERM'); // only the victim runs jobs now
  // A webhook lease of 1.2 s (120 s × WEBHOOK_RETRY_SCALE) instead of 120 s.
  const fastRetries = { WEBHOOK_RETRY_SCALE: '0.01' };
  let hold = true;
  const receiver = await startReceiver(() => (hold ? { status: 200, delayMs: 600_000 } : { status: 200 }));
  try {
    const hook = await api.post('/v1/webhooks', { url: `${receiver.url}/hook`, event_types: ['issue.ingested'] });
    assert.is(hook.status, 201, hook.text);
    const victim = await worker(fastRetries);
    const ingested = await api.post(
      '/v1/ingest/events',
      { external_id: 'mid-delivery', title: 'Disk full', source: 'pager', narrative: 'The disk filled up' },
      fresh(),
    );
    assert.is(ingested.status, 202, ingested.text);
    await eventually(async () => (receiver.received.length === 1 ? true : undefined), 60_000, 'the delivery to reach the receiver');
    await victim.kill('SIGKILL'); // while the receiver holds the request open
    hold = false;

    await worker(fastRetries);
    const delivery = await eventually(
      async () => {
        const { rows } = await t.app.pool.query('select * from webhook_deliveries where webhook_id = $1', [hook.body.id]);
        return rows[0]?.status === 'succeeded' ? rows : undefined;
      },
      90_000,
      'the delivery to succeed',
    );
    assert.is(delivery.length, 1, 'one delivery of the one event');
    const ids = receiver.received.map((r) => r.headers['webhook-id']);
    assert.ok(ids.length >= 2, `${ids.length} requests`);
    assert.ok(
      ids.every((id) => id === delivery[0].event_id),
      'every attempt carries the event id as webhook-id (receivers drop repeats)',
    );
    const events = await t.app.pool.query("select count(*)::int as n from outbound_events where event_type = 'issue.ingested' and job_run_id = $1", [
      ingested.body.job_id,
    ]);
    assert.is(events.rows[0].n, 1);
    assert.is((await jobRun(ingested.body.job_id)).status, 'succeeded');
  } finally {
    await receiver.close();
  }
});

test.run();
