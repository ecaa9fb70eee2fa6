/**
 * `svc jobs list|show|retry|cancel` as real child processes over the job runs that a real ingest
 * enqueued (no worker runs here, so the jobs stay queued until the test moves them).
 */
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { demoToken, startTestApp, type TestApp } from '../helpers/app.ts';
import { fresh } from '../helpers/errors.ts';
import { runSvc, svcEnv } from '../../fixtures/svcProcess.ts';
import { completeJobRun, insertJobRun } from '../../sql/jobRuns.ts';
import { createEmptyDatabase } from '../../fixtures/database.ts';

let t: TestApp;
let jobId: string;
test.before(async () => {
  t = await startTestApp();
  const api = t.platform.as(await demoToken(t));
  const res = await api.post('/v1/ingest/events', { external_id: 'e-1', title: 'Something broke', source: 'jobs-cli' }, fresh());
  assert.is(res.status, 202, res.text);
  jobId = res.body.job_id;
});
test.after(async () => t.close());

const jobs = (...args: string[]) => runSvc(['jobs', ...args], svcEnv({ DATABASE_URL: t.db.url, LOG_LEVEL: 'warn', NODE_ENV: 'test' }));
const graphileJob = async (id: string) =>
  (
    await t.app.pool.query(
      `select t.identifier as task_identifier, j.payload->>'job_run_id' as run_id
         from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
        where j.id = (select worker_job_id from job_runs where id = $1)`,
      [id],
    )
  ).rows[0];

test('--json output is only JSON on stdout, whatever the log level: logs go to stderr', async () => {
  // A fresh database: the command migrates and seeds it first, and logs that at info.
  const empty = await createEmptyDatabase();
  try {
    const listed = await runSvc(['jobs', 'list', '--json'], svcEnv({ DATABASE_URL: empty.url, LOG_LEVEL: 'info', NODE_ENV: 'development' }), 120_000);
    assert.is(listed.code, 0, listed.stderr);
    assert.equal(JSON.parse(listed.stdout), []);
    assert.match(listed.stderr, /"msg":"migration applied"/);
  } finally {
    await empty.drop();
  }
});

test('a job that ran shows the attempts it took, not 0: a run started outside the queue (cron, CLI engine run) is on attempt 1', async () => {
  const run = (await insertJobRun(t.app.pool, { kind: 'maintenance__purge_expired', payload: {}, maxAttempts: 3, status: 'running' }))!;
  await completeJobRun(t.app.pool, run.id, { purged: 0 });
  const table = await jobs('list', '--kind', 'maintenance__purge_expired');
  assert.is(table.code, 0, table.stderr);
  assert.match(table.stdout.trim().split('\n')[1], new RegExp(`^${run.id}\\s+maintenance__purge_expired\\s+succeeded\\s+100%\\s+1/3\\s`));
});

test('list and show: the queued ingest job with its queue row, as a table and as JSON', async () => {
  const listed = await jobs('list', '--kind', 'ingest__process', '--workspace', t.demo.workspaceId, '--json');
  assert.is(listed.code, 0, listed.stderr);
  const runs = JSON.parse(listed.stdout);
  assert.equal(
    runs.map((r: any) => [r.id, r.status]),
    [[jobId, 'queued']],
  );

  const table = await jobs('list', '--status', 'queued', '--kind', 'ingest__process');
  assert.is(table.code, 0, table.stderr);
  const [header, row] = table.stdout.trim().split('\n');
  assert.match(header, /^id\s+kind\s+status\s+progress\s+attempts\s+created_at\s+finished_at$/);
  assert.match(row, new RegExp(`^${jobId}\\s+ingest__process\\s+queued\\s+0%\\s+0/5\\s+\\d{4}-`));

  const shown = await jobs('show', jobId);
  assert.is(shown.code, 0, shown.stderr);
  const job = JSON.parse(shown.stdout);
  assert.is(job.id, jobId);
  assert.is(job.kind, 'ingest__process');
  assert.is(job.payload.issue_ids.length, 1);
  assert.is(job.queue.attempts, 0);
  assert.is(job.queue.locked_at, null);
});

test('cancel removes the queued job; retry puts the cancelled run back in the queue; wrong states are refused', async () => {
  const cancelled = await jobs('cancel', jobId);
  assert.is(cancelled.code, 0, cancelled.stderr);
  assert.is(cancelled.stdout, `job ${jobId} (ingest__process) is cancelled\n`);
  assert.is(await graphileJob(jobId), undefined, 'the graphile-worker job is gone');

  const retried = await jobs('retry', jobId, '--json');
  assert.is(retried.code, 0, retried.stderr);
  assert.is(JSON.parse(retried.stdout).status, 'queued');
  assert.equal(await graphileJob(jobId), { task_identifier: 'ingest__process', run_id: jobId });

  const again = await jobs('retry', jobId);
  assert.is(again.code, 2);
  assert.ok(again.stderr.startsWith('svc jobs: Job is queued; only failed or cancelled jobs can be retried\n'), again.stderr);
});

test('bad arguments exit 2 with a clear message', async () => {
  const ghost = randomUUID();
  const cases: Array<[string[], string]> = [
    [[], 'an action is required: list, show, retry or cancel'],
    [['show'], 'a job id is required: svc jobs show <job-id>'],
    [['show', 'nope'], 'the job id must be a UUID'],
    [['list', '--status', 'bogus'], '--status must be one of queued, running, succeeded, failed, cancelled'],
    [['list', '--limit', '0'], '--limit must be an integer from 1 to 1000'],
  ];
  for (const [args, message] of cases) {
    const res = await jobs(...args);
    assert.is(res.code, 2, `${args.join(' ')}: ${res.stderr}`);
    assert.ok(res.stderr.startsWith(`svc jobs: ${message}\n\nUsage: svc jobs`), res.stderr);
  }
  // A well-formed command about something that does not exist: one line, no usage.
  for (const [args, message] of [
    [['show', ghost], `job ${ghost} does not exist`],
    [['cancel', ghost], 'Job not found'],
  ] as Array<[string[], string]>) {
    const res = await jobs(...args);
    assert.is(res.code, 2, `${args.join(' ')}: ${res.stderr}`);
    assert.is(res.stderr, `svc jobs: ${message}\n`);
  }
});

test.run();
