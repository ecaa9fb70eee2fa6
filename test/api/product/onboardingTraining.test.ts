/**
 * Training and go-live: training configuration validation, the 409 without a dataset, durable train
 * job keys (repeat, new config, new dataset), a job that fails terminally with error_detail and is
 * queued again with retry_terminal, checkpoints and activation, and go-live's prerequisites.
 */
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { configDefinitions } from '../../../engine/config/index.ts';
import { configVersionId } from '../../../sql/configs.ts';
import { findJobRun } from '../../../sql/jobRuns.ts';
import { findTenant } from '../../../sql/tenants.ts';
import { withTenant } from '../../../sql/tenant/schema.ts';
import { TestClock } from '../../helpers/clock.ts';
import { eventually, startTestApp, type TestApp } from '../../helpers/app.ts';
import { ingestRecords, syntheticRecords, trainCheckpoint, waitForTrainJob } from '../../helpers/onboarding.ts';
import { createTenant, provisionTenant, seedStaff, setTenantState, staffLogin } from '../../helpers/product.ts';

const clock = new TestClock('2025-02-01T00:00:00Z');
let t: TestApp;
let admin: Awaited<ReturnType<typeof staffLogin>>;
test.before(async () => {
  t = await startTestApp({ worker: true, clock });
  admin = await staffLogin(t);
});
test.after(async () => t.close());

async function provisioned(): Promise<string> {
  const id = (await createTenant(admin)).id;
  await provisionTenant(t, admin, id);
  return id;
}

const NO_DATASET = 'No ingested dataset to train on -- complete the ingest step first.';

test('PUT training-config: shipped defaults plus the given settings, validated like the engine config', async () => {
  const id = await provisioned();
  const res = await admin.put(`/admin/tenants/${id}/training-config`, { k_max: 8, seed: 7 });
  assert.is(res.status, 200, res.text);
  const expected = { ...configDefinitions.cluster.defaults, k_max: 8, seed: 7 };
  assert.equal(res.body.config, expected);
  assert.is(res.body.config_hash, configVersionId(expected));
  assert.is(new Date(res.body.updated_at).toISOString(), res.body.updated_at, 'updated_at is the ISO time it was saved');

  const backToDefaults = await admin.put(`/admin/tenants/${id}/training-config`, {});
  assert.is(backToDefaults.body.config_hash, configVersionId(configDefinitions.cluster.defaults));

  const semantic = await admin.put(`/admin/tenants/${id}/training-config`, { k_min: 10, k_max: 5 });
  assert.is(semantic.status, 422);
  assert.equal(semantic.body, { detail: [{ loc: ['body', 'k_max'], msg: 'must be at least k_min', type: 'value_error', input: 5 }] });
  const shape = await admin.put(`/admin/tenants/${id}/training-config`, { k_min: 1, clusters: 4 });
  assert.is(shape.status, 422);
  assert.equal(
    shape.body.detail.map((d: { loc: unknown[]; type: string }) => [d.loc, d.type]),
    [
      [['body', 'k_min'], 'greater_than_equal'],
      [['body', 'clusters'], 'extra_forbidden'],
    ],
  );
});

test('train: 409 without a dataset, not_started status, durable keys per (dataset, config)', async () => {
  const id = await provisioned();
  const base = `/admin/tenants/${id}`;
  assert.equal((await admin.get(`${base}/train/status`)).body, { status: 'not_started', progress: 0, error_detail: null });
  const none = await admin.post(`${base}/train`);
  assert.is(none.status, 409);
  assert.is(none.text, JSON.stringify({ detail: NO_DATASET }));

  const v1 = await ingestRecords(admin, id, syntheticRecords(60, 3, 3));
  const first = await admin.post(`${base}/train`);
  assert.is(first.status, 202, first.text);
  assert.is(first.body.status, 'queued');
  const repeat = await admin.post(`${base}/train`, {});
  assert.equal(repeat.body, { status: 'queued', job_id: first.body.job_id }, 'a repeat answers the same job in the spec shape');
  const job = await findJobRun(t.app.pool, first.body.job_id, { tenantId: id });
  assert.is(job!.kind, 'tenant__train');

  await admin.put(`${base}/training-config`, { k_max: 6 });
  const newConfig = await admin.post(`${base}/train`);
  assert.is.not(newConfig.body.job_id, first.body.job_id, 'a new configuration gives a new job');
  const { rows } = await t.app.pool.query('select job_key from job_runs where id = $1', [newConfig.body.job_id]);
  assert.is(rows[0].job_key, `train:${id}:${v1.dataset_id}:${configVersionId({ ...configDefinitions.cluster.defaults, k_max: 6 })}`);

  const v2 = await ingestRecords(admin, id, syntheticRecords(10, 4, 3));
  const newDataset = await admin.post(`${base}/train`);
  assert.is.not(newDataset.body.job_id, newConfig.body.job_id, 'a new dataset version gives a new job');
  assert.match((await t.app.pool.query('select job_key from job_runs where id = $1', [newDataset.body.job_id])).rows[0].job_key, v2.dataset_id);

  // All three train; each stores its own checkpoint (model versions 1..3), none active yet.
  const jobIds = [first.body.job_id, newConfig.body.job_id, newDataset.body.job_id];
  await eventually(
    async () => {
      const { rows: done } = await t.app.pool.query(`select count(*)::int as n from job_runs where id = any($1) and status = 'succeeded'`, [jobIds]);
      return done[0].n === 3 ? true : undefined;
    },
    60_000,
    'three train jobs',
  );
  const list = await admin.get(`${base}/checkpoints`);
  assert.is(list.status, 200);
  const byJob = new Map(list.body.map((c: { job_id: string }) => [c.job_id, c]));
  const latest = byJob.get(newDataset.body.job_id) as { dataset_version: number; active: boolean; metrics: { records: number }; config_hash: string };
  assert.equal([latest.dataset_version, latest.active, latest.metrics.records], [2, false, 70]);
  assert.equal(
    list.body.map((c: { model_version: number }) => c.model_version),
    [...list.body.map((c: { model_version: number }) => c.model_version)].sort((a, b) => a - b),
  );
  const status = await admin.get(`${base}/train/status`);
  assert.equal(status.body, { status: 'succeeded', progress: 100, error_detail: null });
});

test('train before provisioning has no dataset either: the same 409 text', async () => {
  for (const state of ['draft', 'provisioning'] as const) {
    const tenant = await createTenant(admin);
    if (state === 'provisioning') await setTenantState(t, tenant.id, state);
    const res = await admin.post(`/admin/tenants/${tenant.id}/train`);
    assert.is(res.status, 409, state);
    assert.is(res.text, JSON.stringify({ detail: NO_DATASET }), state);
  }
});

test('a repeat of a succeeded train job still answers {status: queued, job_id}; the status route says succeeded', async () => {
  const id = await provisioned();
  const base = `/admin/tenants/${id}`;
  await ingestRecords(admin, id, syntheticRecords(60, 3, 3));
  const first = await admin.post(`${base}/train`);
  await waitForTrainJob(t, id, (j) => j.id === first.body.job_id && j.status === 'succeeded');
  const repeat = await admin.post(`${base}/train`);
  assert.is(repeat.status, 202);
  assert.equal(repeat.body, { status: 'queued', job_id: first.body.job_id });
  assert.is((await admin.get(`${base}/train/status`)).body.status, 'succeeded');
});

test('a job that cannot train ends failed with error_detail; retry_terminal queues the same job again', async () => {
  const id = await provisioned();
  const base = `/admin/tenants/${id}`;
  // Every record is older than a 30-day retention: nothing left to train on.
  await admin.put(`${base}/data-policy`, { retention_days: 30 });
  await ingestRecords(admin, id, syntheticRecords(40, 5, 3));
  const queued = await admin.post(`${base}/train`);
  const failed = await waitForTrainJob(t, id, (j) => j.id === queued.body.job_id && (j.status === 'failed' || j.status === 'succeeded'));
  assert.is(failed.status, 'failed');
  const expectedError =
    'Not enough records to train on: dataset version 1 has 0 usable record(s) (40 outside the retention period left out); training needs at least 6.';
  assert.is(failed.error_detail, expectedError);
  assert.is(failed.attempts, 1, 'a failure no retry can fix is not retried');
  assert.equal((await admin.get(`${base}/train/status`)).body, { status: 'failed', progress: 0, error_detail: expectedError });

  // Without the option a failed job stays failed, and the caller is told how to retry it (issue 28).
  for (const body of [undefined, {}]) {
    const repeat = await admin.post(`${base}/train`, body);
    assert.is(repeat.status, 409, repeat.text);
    assert.equal(repeat.body, {
      detail: `The training of this dataset version and configuration failed: ${expectedError} Send {"retry_terminal": true} to queue it again, or change the dataset or the training configuration.`,
    });
  }

  // Now that the dataset is there, a retention that drops every record is refused when it is set.
  const dropsAll = await admin.put(`${base}/data-policy`, { retention_days: 30 });
  assert.is(dropsAll.status, 422, dropsAll.text);
  assert.equal(dropsAll.body.detail[0].loc, ['body', 'retention_days']);
  assert.match(
    dropsAll.body.detail[0].msg,
    /^A retention of 30 days would leave none of the 40 records of dataset version 1 to train on .*; set at least \d+ days, or null to keep every record$/,
  );
  const needed = Number(/set at least (\d+) days/.exec(dropsAll.body.detail[0].msg)![1]);
  assert.is((await admin.put(`${base}/data-policy`, { retention_days: needed })).status, 200, 'the period it names keeps a record');

  await admin.put(`${base}/data-policy`, { retention_days: null });
  const retried = await admin.post(`${base}/train`, { retry_terminal: true });
  assert.equal(retried.body, { status: 'queued', job_id: queued.body.job_id });
  const done = await waitForTrainJob(t, id, (j) => j.id === queued.body.job_id && j.status === 'succeeded');
  assert.is(done.error_detail, null);
  assert.equal((await admin.get(`${base}/train/status`)).body, { status: 'succeeded', progress: 100, error_detail: null });

  const badOption = await admin.post(`${base}/train`, { retry_terminal: 'yes' });
  assert.is(badOption.status, 422);
});

test('a dataset too small to cluster fails the job with a readable error', async () => {
  const id = await provisioned();
  await ingestRecords(admin, id, [...syntheticRecords(3, 6, 2), { external_id: 'no-text', title: 'Only a title', source: 'legacy-tracker' }]);
  const queued = await admin.post(`/admin/tenants/${id}/train`);
  const job = await waitForTrainJob(t, id, (j) => j.id === queued.body.job_id && j.status !== 'queued' && j.status !== 'running');
  assert.is(job.status, 'failed');
  assert.is(
    job.error_detail,
    'Not enough records to train on: dataset version 1 has 3 usable record(s) (1 without a narrative left out); training needs at least 6.',
  );
});

test('checkpoints: listing, activation (one active at a time), 404 for an unknown one', async () => {
  const id = await provisioned();
  const base = `/admin/tenants/${id}`;
  await ingestRecords(admin, id, syntheticRecords(80, 8, 3));
  const a = await trainCheckpoint(t, admin, id);
  await admin.put(`${base}/training-config`, { k_max: 5 });
  const b = await trainCheckpoint(t, admin, id);
  assert.equal([a.model_version, b.model_version], [1, 2]);
  assert.ok(a.metrics.k >= 2 && a.metrics.silhouette !== null && a.metrics.patterns >= 1, JSON.stringify(a.metrics));
  assert.is(b.config_hash, configVersionId({ ...configDefinitions.cluster.defaults, k_max: 5 }));

  assert.is((await admin.post(`${base}/checkpoints/${a.id}/activate`)).body.active, true);
  const second = await admin.post(`${base}/checkpoints/${b.id}/activate`);
  assert.is(second.status, 200);
  const list = (await admin.get(`${base}/checkpoints`)).body;
  assert.equal(
    list.map((c: { id: string; active: boolean }) => [c.id, c.active]),
    [
      [a.id, false],
      [b.id, true],
    ],
  );
  assert.is(
    (await admin.post(`${base}/checkpoints/${b.id}/activate`)).body.activated_at,
    second.body.activated_at,
    'activating the active one changes nothing',
  );

  const unknown = await admin.post(`${base}/checkpoints/${randomUUID()}/activate`);
  assert.is(unknown.status, 404);
  assert.equal(unknown.body, { detail: 'Checkpoint not found.' });
  assert.is((await admin.post(`${base}/checkpoints/nope/activate`)).status, 422);

  // Each checkpoint materialised its own collection for (dataset_version, model_version).
  const schema = (await findTenant(t.app.pool, id))!.schema_name;
  const collections = await withTenant(
    t.app.pool,
    schema,
    async (db) =>
      (
        await db.query(
          'select dataset_version, model_version, (select count(*)::int from insight_patterns p where p.collection_id = c.id) as patterns from insight_collections c order by model_version',
        )
      ).rows,
  );
  assert.equal(collections, [
    { dataset_version: 1, model_version: 1, patterns: a.metrics.patterns },
    { dataset_version: 1, model_version: 2, patterns: b.metrics.patterns },
  ]);
});

test('support_readonly reads training state (empty before provisioning) but cannot train or activate', async () => {
  const id = await provisioned();
  const reader = await staffLogin(t, await seedStaff(t, { role: 'support_readonly' }));
  assert.is((await reader.get(`/admin/tenants/${id}/train/status`)).status, 200);
  assert.equal((await reader.get(`/admin/tenants/${id}/checkpoints`)).body, []);
  const denied = await reader.post(`/admin/tenants/${id}/train`);
  assert.is(denied.status, 403);
  assert.equal(denied.body, { detail: "Requires one of ('onboarding_admin',), has 'support_readonly'." });
  assert.is((await reader.post(`/admin/tenants/${id}/checkpoints/${randomUUID()}/activate`)).status, 403);
  assert.is((await reader.put(`/admin/tenants/${id}/training-config`, {})).status, 403);
  assert.is((await admin.get(`/admin/tenants/${randomUUID()}/train/status`)).status, 404);
  const draft = (await createTenant(admin)).id;
  assert.equal((await reader.get(`/admin/tenants/${draft}/checkpoints`)).body, [], 'nothing trained before provisioning');
  assert.equal((await reader.get(`/admin/tenants/${draft}/invitations`)).body, []);
  assert.is((await reader.get(`/admin/tenants/${randomUUID()}/checkpoints`)).status, 404);
});

test('go-live: 409 lists exactly the missing prerequisites until all three hold, then live', async () => {
  const missingOf = async (tenantId: string) => {
    const res = await admin.post(`/admin/tenants/${tenantId}/go-live`);
    assert.is(res.status, 409, res.text);
    assert.is(res.body.detail.message, 'Tenant cannot go live yet; complete the missing prerequisites.');
    return res.body.detail.missing;
  };
  const all = ['historical data ingested', 'a model checkpoint activated', 'at least one user invited'];
  const draft = (await createTenant(admin)).id;
  assert.equal(await missingOf(draft), all);

  const id = await provisioned();
  const base = `/admin/tenants/${id}`;
  assert.equal(await missingOf(id), all);
  const invite = await admin.post(`${base}/invite`, { email: 'first@client.test', role_profile: 'viewer' });
  assert.is(invite.status, 201);
  assert.equal(await missingOf(id), all.slice(0, 2));

  // An invitation past its 7 days no longer counts.
  clock.advance(7 * 24 * 3600 * 1000 + 1000);
  admin = await staffLogin(t, admin.staff); // the 12-hour staff session ended meanwhile
  assert.equal(await missingOf(id), all);
  await admin.post(`${base}/invite`, { email: 'second@client.test', role_profile: 'analyst' });

  await ingestRecords(admin, id, syntheticRecords(60, 9, 3));
  assert.equal(await missingOf(id), [all[1]]);
  const checkpoint = await trainCheckpoint(t, admin, id);
  assert.equal(await missingOf(id), [all[1]], 'a trained but inactive checkpoint does not count');
  await admin.post(`${base}/checkpoints/${checkpoint.id}/activate`);

  const live = await admin.post(`${base}/go-live`);
  assert.is(live.status, 200, live.text);
  assert.is(live.body.lifecycle_state, 'live');
  const again = await admin.post(`${base}/go-live`);
  assert.is(again.status, 200);
  assert.is(again.body.updated_at, live.body.updated_at, 'going live again changes nothing');
  const schema = (await findTenant(t.app.pool, id))!.schema_name;
  const audit = await withTenant(
    t.app.pool,
    schema,
    async (db) => (await db.query(`select actor_type, actor_id from audit_log where action = 'tenant_go_live'`)).rows,
  );
  assert.equal(audit, [{ actor_type: 'employee', actor_id: admin.staff.id }]);

  assert.is((await admin.post(`/admin/tenants/${randomUUID()}/go-live`)).status, 404);
});

test.run();
