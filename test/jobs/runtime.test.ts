import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { cancelJob, defineTask, enqueueJob, FinishBatcher, PermanentJobError, type TaskDefinition } from '../../jobs/runtime.ts';
import { startWorker } from '../../jobs/worker.ts';
import { withTransaction } from '../../lib/db.ts';
import { AppError } from '../../lib/errors.ts';
import { registry } from '../../lib/metrics.ts';
import { rerunJobsWithoutResult, type JobRun } from '../../sql/jobRuns.ts';
import { eventually, startTestApp, type TestApp } from '../helpers/app.ts';
import { deferred, rejection, type Deferred } from '../helpers/async.ts';

// Test-only tasks. Gates let a test hold a job in `running`; counters record how often each ran.
const gates = new Map<string, Deferred>();
const invocations = new Map<string, number>();
const allowed = new Set<string>();
const countRun = (key: string) => invocations.set(key, (invocations.get(key) ?? 0) + 1).get(key)!;

const stepsTask = defineTask({
  name: 'test__steps',
  payload: z.object({ gate: z.string(), label: z.string().default('unlabelled') }),
  async run({ gate, label }, job) {
    countRun(gate);
    await job.progress(40, 'fetched');
    await gates.get(gate)?.promise;
    await job.progress(80, 'computed');
    return { label, attempt: job.attempt };
  },
});

const flakyTask = defineTask({
  name: 'test__flaky',
  payload: z.object({ key: z.string() }),
  maxAttempts: 3,
  async run({ key }, job) {
    countRun(key);
    if (job.attempt === 1) throw new Error('transient hiccup');
    return { recovered_on_attempt: job.attempt };
  },
});

const alwaysFailsTask = defineTask({
  name: 'test__always_fails',
  payload: z.object({ key: z.string() }),
  maxAttempts: 2,
  async run({ key }) {
    countRun(key);
    throw new Error('upstream unavailable');
  },
});

const permanentTask = defineTask({
  name: 'test__permanent',
  payload: z.object({ key: z.string() }),
  maxAttempts: 5,
  async run({ key }) {
    countRun(key);
    throw new PermanentJobError(`no such thing: ${key}`);
  },
});

/** Fails permanently until the test allows its key (a run that needs a manual retry). */
const gatedFailureTask = defineTask({
  name: 'test__until_allowed',
  payload: z.object({ key: z.string() }),
  async run({ key }) {
    countRun(key);
    if (!allowed.has(key)) throw new PermanentJobError('prerequisite missing');
    return { ok: true };
  },
});

const countedTask = defineTask({
  name: 'test__counted',
  payload: z.object({ key: z.string() }),
  async run({ key }) {
    return { runs: countRun(key) };
  },
});

const strictTask = defineTask({
  name: 'test__strict',
  payload: z.object({ count: z.number().int() }),
  async run({ count }) {
    countRun('strict');
    return { count };
  },
});
/** Holds its gate without reporting progress (a busy job that says nothing). */
const silentTask = defineTask({
  name: 'test__silent',
  payload: z.object({ gate: z.string() }),
  async run({ gate }) {
    countRun(gate);
    await gates.get(gate)?.promise;
    return { done: true };
  },
});

/** Like stepsTask, with a coalescing job key (recommendation__verify is one). */
const coalescingTask = defineTask({
  name: 'test__coalescing',
  payload: z.object({ gate: z.string() }),
  coalescing: true,
  async run({ gate }) {
    countRun(gate);
    await gates.get(gate)?.promise;
    return { done: true };
  },
});

/** A task with nothing to store (a no-op): graphile-worker's completion of its job records its success. */
const noResultTask = defineTask({
  name: 'test__no_result',
  payload: z.object({ key: z.string() }),
  async run({ key }) {
    countRun(key);
  },
});

/** A task whose input travels by reference (ingest__process is one): the worker's job carries only the run's id. */
const byReferenceTask = defineTask({
  name: 'test__by_reference',
  payload: z.object({ key: z.string(), ids: z.array(z.number()) }),
  inputByReference: true,
  async run({ key, ids }) {
    countRun(key);
    return { sum: ids.reduce((a, b) => a + b, 0) };
  },
});

/** A task declared `returnsResult` (ingest__process is one): its worker records the result without waiting. */
const quickResultTask = defineTask({
  name: 'test__quick_result',
  payload: z.object({ key: z.string() }),
  returnsResult: true,
  async run({ key }, job) {
    return { runs: countRun(key), attempt: job.attempt };
  },
});

/** The same task as an older deploy declared it: a looser payload reaches the worker's strict parser. */
const legacyStrictTask: TaskDefinition = { ...strictTask, payload: z.object({ count: z.unknown() }) } as TaskDefinition;

const testTasks = [
  silentTask,
  stepsTask,
  flakyTask,
  alwaysFailsTask,
  permanentTask,
  gatedFailureTask,
  countedTask,
  strictTask,
  coalescingTask,
  noResultTask,
  byReferenceTask,
  quickResultTask,
] as TaskDefinition[];

let t: TestApp;
test.before(async () => {
  t = await startTestApp({ http: false, worker: { extraTasks: testTasks, concurrency: 4 } });
});
test.after(async () => t.close());

const inAnHour = () => new Date(Date.now() + 3_600_000);

async function jobRun(id: string): Promise<JobRun | undefined> {
  const { rows } = await t.app.pool.query<JobRun>('select * from job_runs where id = $1', [id]);
  return rows[0];
}

async function workerJobExists(workerJobId: number | null): Promise<boolean> {
  const { rowCount } = await t.app.pool.query('select 1 from graphile_worker.jobs where id = $1', [workerJobId]);
  return rowCount === 1;
}

async function workerJobsOf(task: string): Promise<number> {
  const { rows } = await t.app.pool.query<{ n: number }>('select count(*)::int as n from graphile_worker.jobs where task_identifier = $1', [task]);
  return rows[0].n;
}

function untilStatus(id: string, status: JobRun['status'], timeoutMs = 15_000): Promise<JobRun> {
  return eventually(
    async () => {
      const run = await jobRun(id);
      return run?.status === status ? run : undefined;
    },
    timeoutMs,
    `job ${id} to be ${status}`,
  );
}

async function jobsCounter(task: string, outcome: string): Promise<number> {
  const metric = await registry.getSingleMetric('svc_jobs_total')!.get();
  return metric.values.find((v) => v.labels.task === task && v.labels.outcome === outcome)?.value ?? 0;
}

test('an enqueue inside a transaction that rolls back leaves no job_runs row and no worker job', async () => {
  const key = randomUUID();
  const err = await rejection(
    withTransaction(t.app.pool, async (client) => {
      const { job } = await enqueueJob(client, countedTask, { key }, { workspaceId: t.demo.workspaceId, runAt: inAnHour() });
      // Visible inside the transaction…
      assert.is((await client.query('select 1 from job_runs where id = $1', [job.id])).rowCount, 1);
      assert.is((await client.query('select 1 from graphile_worker.jobs where id = $1', [job.worker_job_id])).rowCount, 1);
      throw new Error('domain write failed');
    }),
  );
  assert.is((err as Error).message, 'domain write failed');
  // …and gone with it.
  const runs = await t.app.pool.query("select 1 from job_runs where payload->>'key' = $1", [key]);
  assert.is(runs.rowCount, 0);
  assert.is(await workerJobsOf(countedTask.name), 0);
  assert.is(invocations.get(key), undefined);
});

test('an enqueue without a job key writes the run and its worker job with run_at, max_attempts and queue name', async () => {
  const key = randomUUID();
  const runAt = inAnHour();
  const { job, created } = await withTransaction(t.app.pool, (client) =>
    enqueueJob(client, countedTask, { key }, { workspaceId: t.demo.workspaceId, runAt, maxAttempts: 7, queueName: `q-${key}` }),
  );
  assert.ok(created);
  // The run returned is the run stored (every column of JobRun; `interruptions` is the recovery's own).
  const { interruptions, ...stored } = (await jobRun(job.id)) as JobRun & { interruptions: unknown };
  assert.equal(interruptions, []);
  assert.equal(stored, job);
  assert.is(job.status, 'queued');
  assert.is(job.max_attempts, 7);
  assert.equal(job.payload, { key });
  try {
    const { rows } = await t.app.pool.query(
      `select j.task_identifier, p.payload, j.run_at, j.max_attempts, j.queue_name
         from graphile_worker.jobs j join graphile_worker._private_jobs p using (id) where j.id = $1`,
      [job.worker_job_id],
    );
    assert.equal(rows[0], {
      task_identifier: countedTask.name,
      payload: { job_run_id: job.id, data: { key }, workspace_id: t.demo.workspaceId, tenant_id: null },
      run_at: runAt,
      max_attempts: 7,
      queue_name: `q-${key}`,
    });
  } finally {
    await cancelJob(t.app, job.id, { workspaceId: t.demo.workspaceId });
  }
});

test('a committed job moves queued -> running -> succeeded with progress, steps and result', async () => {
  const gate = randomUUID();
  gates.set(gate, deferred());
  const succeededBefore = await jobsCounter(stepsTask.name, 'succeeded');

  const { job, created } = await withTransaction(t.app.pool, async (client) => {
    const result = await enqueueJob(client, stepsTask, { gate }, { workspaceId: t.demo.workspaceId });
    const inTx = (await client.query<JobRun>('select * from job_runs where id = $1', [result.job.id])).rows[0];
    assert.is(inTx.status, 'queued');
    assert.is(inTx.progress, 0);
    assert.equal(inTx.steps_completed, []);
    return result;
  });
  assert.ok(created);
  assert.is(job.kind, 'test__steps');
  assert.is(job.workspace_id, t.demo.workspaceId);
  assert.ok(job.worker_job_id);

  const running = await untilStatus(job.id, 'running');
  await eventually(async () => ((await jobRun(job.id))!.progress === 40 ? true : undefined), 10_000, 'progress 40');
  const midway = (await jobRun(job.id))!;
  assert.is(midway.status, 'running');
  assert.equal(midway.steps_completed, ['fetched']);
  assert.is(midway.attempts, 1);
  assert.ok(running.started_at);
  assert.is(midway.finished_at, null);

  gates.get(gate)!.resolve();
  const done = await untilStatus(job.id, 'succeeded');
  assert.is(done.progress, 100);
  assert.equal(done.steps_completed, ['fetched', 'computed']);
  // The payload default was applied by the task's zod schema.
  assert.equal(done.result, { label: 'unlabelled', attempt: 1 });
  assert.is(done.error_detail, null);
  assert.is(done.attempts, 1);
  assert.ok(done.finished_at);
  // Completion is batched per tick: the worker row goes right after the run is recorded.
  assert.is(await eventually(async () => ((await workerJobExists(job.worker_job_id)) ? undefined : false), 5_000, 'worker job removed'), false);
  assert.is(await jobsCounter(stepsTask.name, 'succeeded'), succeededBefore + 1);
});

test('a quick job is recorded queued -> succeeded in one update, with its attempt and start time', async () => {
  const key = randomUUID();
  const { job } = await enqueueJob(t.app.pool, countedTask, { key }, { workspaceId: t.demo.workspaceId });
  const done = await untilStatus(job.id, 'succeeded');
  assert.equal(done.result, { runs: 1 });
  assert.is(done.attempts, 1);
  assert.is(done.progress, 100);
  assert.ok(done.started_at && done.finished_at && done.started_at <= done.finished_at);
  assert.is(invocations.get(key), 1);
});

test('quick jobs finishing together are each recorded succeeded with their own result, attempt and start time', async () => {
  const keys = Array.from({ length: 12 }, () => randomUUID());
  const jobs = await withTransaction(t.app.pool, (client) =>
    Promise.all(keys.map(async (key) => (await enqueueJob(client, countedTask, { key }, { workspaceId: t.demo.workspaceId })).job)),
  );
  for (const [i, job] of jobs.entries()) {
    const done = await untilStatus(job.id, 'succeeded');
    assert.equal(done.result, { runs: 1 });
    assert.is(done.attempts, 1);
    assert.ok(done.started_at && done.finished_at && done.started_at <= done.finished_at);
    assert.is(invocations.get(keys[i]), 1);
    // graphile-worker then completed (deleted) its job.
    await eventually(async () => ((await workerJobExists(job.worker_job_id)) ? undefined : true), 5_000, 'worker job removed');
  }
});

test('quick runs finishing together are recorded by one statement; a result the database refuses fails only its own run', async () => {
  const ids = Array.from({ length: 7 }, () => randomUUID());
  await t.app.pool.query(
    `insert into job_runs (id, kind, payload, max_attempts, workspace_id, status) select unnest($1::uuid[]), 'test__counted', '{}', 5, $2, 'queued'`,
    [ids, t.demo.workspaceId],
  );
  await t.app.pool.query("update job_runs set status = 'cancelled' where id = $1", [ids[3]]);
  let statements = 0;
  const pool = {
    query: ((config: never) => {
      statements++;
      return t.app.pool.query(config);
    }) as never,
  };
  const batcher = new FinishBatcher(pool);
  const startedAt = new Date(Date.now() - 1000);

  // Four runs finishing in one turn of the event loop go in one statement. It is refused (jsonb cannot
  // store a NUL), so each is then recorded alone: only that run fails; the cancelled one is not moved.
  const outcomes = await Promise.allSettled([
    batcher.finish({ id: ids[0], attempt: 1, startedAt, result: { n: 0 } }),
    batcher.finish({ id: ids[1], attempt: 2, startedAt, result: { n: 1 } }),
    batcher.finish({ id: ids[2], attempt: 1, startedAt, result: { text: 'nul \u0000 is not storable in jsonb' } }),
    batcher.finish({ id: ids[3], attempt: 1, startedAt, result: { n: 3 } }),
  ]);
  assert.equal(
    outcomes.map((o) => o.status),
    ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
  );
  assert.equal(
    outcomes.map((o) => (o.status === 'fulfilled' ? o.value : undefined)),
    [true, true, undefined, false],
  );
  assert.is(statements, 5);
  const rows = await Promise.all(ids.slice(0, 4).map((id) => jobRun(id)));
  assert.equal(
    rows.map((r) => [r!.status, r!.result, r!.attempts]),
    [
      ['succeeded', { n: 0 }, 1],
      ['succeeded', { n: 1 }, 2],
      ['queued', null, 0],
      ['cancelled', null, 0],
    ],
  );
  assert.equal(rows[1]!.started_at, startedAt);

  // Two in one turn: one statement. A third arriving while it is on its way waits for the next one.
  statements = 0;
  const both = Promise.all([ids[4], ids[5]].map((id, n) => batcher.finish({ id, attempt: 1, startedAt, result: { n } })));
  await new Promise((resolve) => setImmediate(resolve)); // the batcher has sent its statement
  const third = batcher.finish({ id: ids[6], attempt: 1, startedAt, result: { n: 2 } });
  assert.equal(await both, [true, true]);
  assert.is(await third, true);
  assert.is(statements, 2);
  assert.equal(
    (await Promise.all(ids.slice(4).map((id) => jobRun(id)))).map((r) => [r!.status, r!.result]),
    [
      ['succeeded', { n: 0 }],
      ['succeeded', { n: 1 }],
      ['succeeded', { n: 2 }],
    ],
  );
});

test('a task carrying its input by reference stores the input once, in its run, and runs with it', async () => {
  const key = randomUUID();
  const ids = [1, 2, 3, 4];
  // Queued for later, so that the worker job can be read before the worker takes it; then released.
  const { job } = await enqueueJob(t.app.pool, byReferenceTask, { key, ids }, { workspaceId: t.demo.workspaceId, runAt: inAnHour() });
  const { rows } = await t.app.pool.query<{ payload: Record<string, unknown> }>('select payload from graphile_worker._private_jobs where id = $1', [
    job.worker_job_id,
  ]);
  assert.equal(rows[0].payload, { job_run_id: job.id, workspace_id: t.demo.workspaceId, tenant_id: null }, 'the worker job carries no input');
  assert.equal((await jobRun(job.id))!.payload, { key, ids });
  await t.app.pool.query('update graphile_worker._private_jobs set run_at = now() where id = $1', [job.worker_job_id]);
  const done = await untilStatus(job.id, 'succeeded');
  assert.equal(done.result, { sum: 10 });
  assert.is(invocations.get(key), 1);
});

test('a job without a result is recorded succeeded by the deletion of its worker job, with no statement of the wrapper', async () => {
  const key = randomUUID();
  const statements: string[] = [];
  const query = t.app.pool.query;
  t.app.pool.query = ((config: string | { text: string }, ...rest: unknown[]) => {
    statements.push(typeof config === 'string' ? config : config.text);
    return (query as (...args: unknown[]) => unknown).call(t.app.pool, config, ...rest);
  }) as typeof query;
  try {
    const { job } = await enqueueJob(t.app.pool, noResultTask, { key }, { workspaceId: t.demo.workspaceId });
    const done = await untilStatus(job.id, 'succeeded');
    assert.is(done.result, null);
    assert.is(done.attempts, 1);
    assert.is(done.progress, 100);
    assert.is(done.error_detail, null);
    assert.ok(done.started_at && done.finished_at && done.started_at <= done.finished_at);
    assert.is(invocations.get(key), 1);
    assert.is(await workerJobExists(job.worker_job_id), false);
    assert.equal(
      statements.filter((text) => /update job_runs/.test(text)),
      [],
      'the wrapper wrote nothing for the run',
    );
  } finally {
    t.app.pool.query = query;
  }
});

test('completing a worker job records its run; terminal runs and payloads without a run id are left alone', async () => {
  const later = { workspaceId: t.demo.workspaceId, runAt: inAnHour() };
  const queued = (await enqueueJob(t.app.pool, noResultTask, { key: randomUUID() }, later)).job;
  const failed = (await enqueueJob(t.app.pool, noResultTask, { key: randomUUID() }, later)).job;
  await t.app.pool.query("update job_runs set status = 'failed', error_detail = 'gave up' where id = $1", [failed.id]);
  const { rows } = await t.app.pool.query<{ id: string }>(
    `select id from graphile_worker.add_job('test__no_result', '{"job_run_id": "not-a-uuid"}'::json, run_at => now() + interval '1 hour')
     union all select id from graphile_worker.add_job('test__no_result', '[1, 2]'::json, run_at => now() + interval '1 hour')`,
  );
  // What graphile-worker runs when a task returned: the deletion of the jobs.
  await t.app.pool.query('select graphile_worker.complete_jobs($1::bigint[])', [[queued.worker_job_id, failed.worker_job_id, ...rows.map((r) => r.id)]]);
  for (const id of [queued.worker_job_id, failed.worker_job_id, ...rows.map((r) => Number(r.id))]) assert.is(await workerJobExists(id), false);
  const done = (await jobRun(queued.id))!;
  assert.equal([done.status, done.progress, done.result], ['succeeded', 100, null]);
  assert.ok(done.started_at && done.finished_at);
  assert.equal([(await jobRun(failed.id))!.status, (await jobRun(failed.id))!.error_detail], ['failed', 'gave up']);
});

test('a task that returns a result (returnsResult) is recorded succeeded with it; its worker job says the worker records it', async () => {
  const key = randomUUID();
  const { job } = await enqueueJob(t.app.pool, quickResultTask, { key }, { workspaceId: t.demo.workspaceId, runAt: inAnHour() });
  const { rows } = await t.app.pool.query('select payload from graphile_worker._private_jobs where id = $1', [job.worker_job_id]);
  assert.equal(rows[0].payload, { job_run_id: job.id, data: { key }, workspace_id: t.demo.workspaceId, tenant_id: null, worker_records_success: true });
  await t.app.pool.query('update graphile_worker._private_jobs set run_at = now() where id = $1', [job.worker_job_id]);
  const done = await untilStatus(job.id, 'succeeded');
  assert.equal([done.result, done.attempts, done.progress, done.error_detail], [{ runs: 1, attempt: 1 }, 1, 100, null]);
  assert.ok(done.started_at && done.finished_at && done.started_at <= done.finished_at);
  await eventually(async () => ((await workerJobExists(job.worker_job_id)) ? undefined : true), 5_000, 'worker job removed');
  // Whichever of the two statements landed first, no marker is left behind once the sweep has run.
  await withTransaction(t.app.pool, (client) => rerunJobsWithoutResult(client, 60_000));
  assert.is((await t.app.pool.query('select 1 from job_results_pending where job_run_id = $1', [job.id])).rowCount, 0);
});

test('returnsResult: a completion before the worker records the run leaves it queued with a marker, which the record removes', async () => {
  const { job } = await enqueueJob(t.app.pool, quickResultTask, { key: randomUUID() }, { workspaceId: t.demo.workspaceId, runAt: inAnHour() });
  // graphile-worker's completion (its own delete statement) of a job a worker pool held.
  await t.app.pool.query("update graphile_worker._private_jobs set locked_by = 'pool-a', locked_at = now(), attempts = 1 where id = $1", [job.worker_job_id]);
  await t.app.pool.query('delete from graphile_worker._private_jobs where id = $1', [job.worker_job_id]);
  const pending = (await jobRun(job.id))!;
  assert.equal([pending.status, pending.result], ['queued', null], 'never succeeded without its result');
  const { rows: markers } = await t.app.pool.query('select attempts, locked_by, queue_name from job_results_pending where job_run_id = $1', [job.id]);
  assert.equal(markers, [{ attempts: 1, locked_by: 'pool-a', queue_name: null }]);
  // The worker's finishing statement lands: the run succeeds with its result and the marker goes.
  const batcher = new FinishBatcher(t.app.pool);
  assert.is(await batcher.finish({ id: job.id, attempt: 1, startedAt: new Date(), result: { late: true } }), true);
  const done = (await jobRun(job.id))!;
  assert.equal([done.status, done.result, done.attempts], ['succeeded', { late: true }, 1]);
  assert.is((await t.app.pool.query('select 1 from job_results_pending where job_run_id = $1', [job.id])).rowCount, 0);

  // The other order: recorded first, then completed: no marker at all.
  const second = (await enqueueJob(t.app.pool, quickResultTask, { key: randomUUID() }, { workspaceId: t.demo.workspaceId, runAt: inAnHour() })).job;
  assert.is(await batcher.finish({ id: second.id, attempt: 1, startedAt: new Date(), result: { early: true } }), true);
  await t.app.pool.query('delete from graphile_worker._private_jobs where id = $1', [second.worker_job_id]);
  assert.equal((await jobRun(second.id))!.result, { early: true });
  assert.is((await t.app.pool.query('select 1 from job_results_pending where job_run_id = $1', [second.id])).rowCount, 0);
});

test('returnsResult: a job completed whose worker died before recording the result is put back in the queue by the sweep and runs again', async () => {
  const key = randomUUID();
  const graceMs = 2_000;
  const { job } = await enqueueJob(t.app.pool, quickResultTask, { key }, { workspaceId: t.demo.workspaceId, runAt: inAnHour(), queueName: `q-${key}` });
  // The crash window: the worker's pool locked the job (attempt 2 of 5) and graphile-worker deleted
  // it, but the worker died before its finishing statement reached the database.
  await t.app.pool.query("update graphile_worker._private_jobs set locked_by = 'pool-dead', locked_at = now(), attempts = 2 where id = $1", [
    job.worker_job_id,
  ]);
  await t.app.pool.query('delete from graphile_worker._private_jobs where id = $1', [job.worker_job_id]);
  const sweep = () => withTransaction(t.app.pool, (client) => rerunJobsWithoutResult(client, graceMs));
  const age = (ms: number) =>
    t.app.pool.query(`update job_results_pending set completed_at = now() - $2 * interval '1 millisecond' where job_run_id = $1`, [job.id, ms]);

  assert.equal(await sweep(), [], 'a fresh marker: the worker may still be writing');
  await age(3 * graceMs);
  await t.app.pool.query("insert into worker_heartbeats (pool_id, hostname, pid) values ('pool-dead', 'test', 1)");
  assert.equal(await sweep(), [], 'its worker still heartbeats: it writes the result or retries');
  await t.app.pool.query("delete from worker_heartbeats where pool_id = 'pool-dead'");
  assert.is((await jobRun(job.id))!.status, 'queued');

  // The worker is gone: the run gets its job back, in its queue, with the lost attempt given back. The
  // job is read inside the sweep's transaction: once committed, the running worker may take it at once.
  const { swept, jobs, statusAtSweep } = await withTransaction(t.app.pool, async (client) => {
    const swept = await rerunJobsWithoutResult(client, graceMs);
    const { rows: jobs } = await client.query(
      'select queue_name, attempts, max_attempts, payload from graphile_worker._private_jobs j left join graphile_worker._private_job_queues q on q.id = j.job_queue_id where j.id = $1',
      [swept[0]?.worker_job_id],
    );
    const { rows } = await client.query<{ status: string }>('select status from job_runs where id = $1', [job.id]);
    return { swept, jobs, statusAtSweep: rows[0]?.status };
  });
  assert.is(statusAtSweep, 'queued', 'the sweep put the run back in the queue');
  const [rerun, ...more] = swept;
  assert.equal(more, []);
  assert.equal([rerun.job_run_id, rerun.kind, rerun.attempt, rerun.worker], [job.id, 'test__quick_result', 2, 'pool-dead']);
  assert.equal(jobs[0], {
    queue_name: `q-${key}`,
    attempts: 1,
    max_attempts: 5,
    payload: { job_run_id: job.id, workspace_id: t.demo.workspaceId, tenant_id: null, worker_records_success: true },
  });
  const requeued = (await jobRun(job.id)) as JobRun & { interruptions: Array<Record<string, unknown>> };
  assert.is(requeued.worker_job_id, rerun.worker_job_id);
  assert.equal(
    requeued.interruptions.map(({ released_at: _, ...rest }) => rest),
    [{ attempt: 2, worker: 'pool-dead', reason: 'completed without its result recorded' }],
  );
  assert.is((await t.app.pool.query('select 1 from job_results_pending where job_run_id = $1', [job.id])).rowCount, 0);

  // The worker runs it again (attempt 2 again), and this time its result is recorded.
  const done = await untilStatus(job.id, 'succeeded');
  assert.equal(done.result, { runs: 1, attempt: 2 });
  assert.is(done.attempts, 2);
  assert.is(invocations.get(key), 1);
  assert.equal(await sweep(), []);
});

test('returnsResult: a result the database cannot store fails the attempt before its job completes, and the job is retried', async () => {
  const nulTask = testTasks.find((task) => task.name === 'test__quick_result')!;
  const run = (nulTask as TaskDefinition).run;
  const key = randomUUID();
  let calls = 0;
  (nulTask as TaskDefinition).run = async (payload, job) =>
    // Counted for this key only: a job of another test may run the same task meanwhile.
    (payload as { key: string }).key === key && ++calls === 1 ? { text: 'nul \u0000' } : run(payload, job);
  try {
    const { job } = await enqueueJob(t.app.pool, quickResultTask, { key }, { workspaceId: t.demo.workspaceId });
    const done = await untilStatus(job.id, 'succeeded', 20_000);
    assert.equal(done.result, { runs: 1, attempt: 2 });
    assert.is(done.attempts, 2);
  } finally {
    (nulTask as TaskDefinition).run = run;
  }
});

test('a worker does not start without the trigger that records runs as their jobs complete', async () => {
  const trigger = 'job_runs_succeed_on_completion';
  await t.app.pool.query(`alter table graphile_worker._private_jobs disable trigger ${trigger}`);
  try {
    const err = await rejection(
      startWorker(t.app, { tasks: testTasks, concurrency: 1, pool: t.app.pool, pollInterval: 100 }),
      'a worker starting without the trigger',
    );
    assert.match((err as Error).message, /lacks the job_runs_succeed_on_completion trigger \(migration 000189\)/);
  } finally {
    await t.app.pool.query(`alter table graphile_worker._private_jobs enable trigger ${trigger}`);
  }
});

test('a busy job that reports no progress is shown running once the claim delay has passed', async () => {
  const gate = randomUUID();
  gates.set(gate, deferred());
  const { job } = await enqueueJob(t.app.pool, silentTask, { gate }, { workspaceId: t.demo.workspaceId });
  const running = await untilStatus(job.id, 'running');
  assert.is(running.attempts, 1);
  assert.ok(running.started_at);
  gates.get(gate)!.resolve();
  const done = await untilStatus(job.id, 'succeeded');
  assert.equal(done.result, { done: true });
  assert.equal(done.started_at, running.started_at);
});

test('a payload that fails its schema is refused at enqueue', async () => {
  const before = await t.app.pool.query("select count(*)::int as n from job_runs where kind = 'test__steps'");
  const err = await rejection(enqueueJob(t.app.pool, stepsTask, { gate: 42 } as unknown as { gate: string }), 'enqueue with a bad payload');
  assert.instance(err, z.ZodError);
  assert.match(String((err as z.ZodError).issues[0].path), 'gate');
  const after = await t.app.pool.query("select count(*)::int as n from job_runs where kind = 'test__steps'");
  assert.is(after.rows[0].n, before.rows[0].n);
});

test('a payload that fails its schema when the job runs marks it failed without running it', async () => {
  const failedBefore = await jobsCounter(strictTask.name, 'failed');
  const { job } = await enqueueJob(t.app.pool, legacyStrictTask, { count: 'three' });
  const failed = await untilStatus(job.id, 'failed');
  assert.match(failed.error_detail!, /^invalid payload: count: /);
  assert.is(failed.attempts, 1);
  assert.is(invocations.get('strict'), undefined);
  // Completion is batched per tick: the worker row goes right after the run is recorded.
  assert.is(await eventually(async () => ((await workerJobExists(job.worker_job_id)) ? undefined : false), 5_000, 'worker job removed'), false);
  assert.is(await jobsCounter(strictTask.name, 'failed'), failedBefore + 1);
});

test('a transient failure is retried with graphile-worker backoff and then succeeds', async () => {
  const key = randomUUID();
  const retriedBefore = await jobsCounter(flakyTask.name, 'retried');
  const succeededBefore = await jobsCounter(flakyTask.name, 'succeeded');
  const { job } = await enqueueJob(t.app.pool, flakyTask, { key });

  // Between attempts: graphile-worker holds the job unlocked with an exponential delay, and the
  // run is back in `queued` with the error visible to pollers.
  const waiting = await eventually(
    async () => {
      const { rows } = await t.app.pool.query<{ attempts: number; last_error: string; locked_at: Date | null; run_at: Date; updated_at: Date }>(
        'select attempts, last_error, locked_at, run_at, updated_at from graphile_worker.jobs where id = $1',
        [job.worker_job_id],
      );
      return rows[0]?.attempts === 1 && rows[0].locked_at === null ? rows[0] : undefined;
    },
    10_000,
    'first attempt to fail',
  );
  assert.match(waiting.last_error, 'transient hiccup');
  assert.ok(waiting.run_at.getTime() - waiting.updated_at.getTime() >= 1000, 'retry is delayed by the backoff');
  const between = (await jobRun(job.id))!;
  assert.is(between.status, 'queued');
  assert.is(between.error_detail, 'transient hiccup');
  assert.is(between.attempts, 1);

  const done = await untilStatus(job.id, 'succeeded');
  assert.is(done.attempts, 2);
  assert.is(done.error_detail, null);
  assert.equal(done.result, { recovered_on_attempt: 2 });
  assert.is(invocations.get(key), 2);
  assert.is(await jobsCounter(flakyTask.name, 'retried'), retriedBefore + 1);
  assert.is(await jobsCounter(flakyTask.name, 'succeeded'), succeededBefore + 1);
});

test('a job that fails every attempt ends failed with the error once attempts are exhausted', async () => {
  const key = randomUUID();
  const failedBefore = await jobsCounter(alwaysFailsTask.name, 'failed');
  const { job } = await enqueueJob(t.app.pool, alwaysFailsTask, { key });
  assert.is(job.max_attempts, 2);
  const failed = await untilStatus(job.id, 'failed');
  assert.is(failed.attempts, 2);
  assert.is(failed.error_detail, 'upstream unavailable');
  assert.ok(failed.finished_at);
  assert.is(invocations.get(key), 2);
  assert.is(
    await eventually(async () => ((await workerJobExists(job.worker_job_id)) ? undefined : false), 5_000, 'nothing left for graphile-worker to retry'),
    false,
  );
  assert.is(await jobsCounter(alwaysFailsTask.name, 'failed'), failedBefore + 1);
});

test('a PermanentJobError fails the run after one attempt without a retry', async () => {
  const key = randomUUID();
  const retriedBefore = await jobsCounter(permanentTask.name, 'retried');
  const failedBefore = await jobsCounter(permanentTask.name, 'failed');
  const { job } = await enqueueJob(t.app.pool, permanentTask, { key });
  assert.is(job.max_attempts, 5);
  const failed = await untilStatus(job.id, 'failed');
  assert.is(failed.attempts, 1);
  assert.is(failed.error_detail, `no such thing: ${key}`);
  assert.is(invocations.get(key), 1);
  assert.is(await eventually(async () => ((await workerJobExists(job.worker_job_id)) ? undefined : false), 5_000, 'no retry is scheduled'), false);
  assert.is(await jobsCounter(permanentTask.name, 'retried'), retriedBefore);
  assert.is(await jobsCounter(permanentTask.name, 'failed'), failedBefore + 1);
});

test('a durable job key returns the existing run instead of adding a second job', async () => {
  const jobKey = `provision:${randomUUID()}`;
  const first = await enqueueJob(t.app.pool, countedTask, { key: jobKey }, { jobKey, runAt: inAnHour(), workspaceId: t.demo.workspaceId });
  assert.ok(first.created);
  const again = await enqueueJob(t.app.pool, countedTask, { key: 'another payload' }, { jobKey, runAt: inAnHour() });
  assert.is(again.created, false);
  assert.is(again.job.id, first.job.id);
  assert.is(again.job.status, 'queued');
  assert.equal(again.job.payload, { key: jobKey }, 'the existing run is returned untouched');
  const { rows } = await t.app.pool.query<{ n: number }>('select count(*)::int as n from job_runs where job_key = $1', [jobKey]);
  assert.is(rows[0].n, 1);
  assert.is(await workerJobsOf(countedTask.name), 1);
  await cancelJob(t.app, first.job.id, { workspaceId: t.demo.workspaceId });
});

test('two transactions racing on one durable key produce one run', async () => {
  const jobKey = `provision:${randomUUID()}`;
  const a = await t.app.pool.connect();
  const b = await t.app.pool.connect();
  try {
    await a.query('begin');
    await b.query('begin');
    const first = await enqueueJob(a, countedTask, { key: jobKey }, { jobKey, runAt: inAnHour() });
    const second = enqueueJob(b, countedTask, { key: jobKey }, { jobKey, runAt: inAnHour() }); // waits on a's row
    await a.query('commit');
    const result = await second;
    await b.query('commit');
    assert.ok(first.created);
    assert.is(result.created, false);
    assert.is(result.job.id, first.job.id);
    assert.is(await workerJobsOf(countedTask.name), 1);
    await cancelJob(t.app, first.job.id, {});
  } finally {
    a.release();
    b.release();
  }
});

test('a coalescing key: enqueues while a run waits give that run; once it runs, the next enqueue queues another', async () => {
  const gate = randomUUID();
  const jobKey = `coalesce:${gate}`;
  gates.set(gate, deferred());
  try {
    const first = await withTransaction(t.app.pool, async (client) => {
      const a = await enqueueJob(client, coalescingTask, { gate }, { jobKey });
      const b = await enqueueJob(client, coalescingTask, { gate }, { jobKey });
      assert.equal([a.created, b.created, b.job.id], [true, false, a.job.id]);
      return a.job;
    });
    const running = await untilStatus(first.id, 'running');
    assert.is(running.job_key, null, 'the key is released as the run starts');
    const second = await enqueueJob(t.app.pool, coalescingTask, { gate }, { jobKey });
    assert.ok(second.created);
    assert.is.not(second.job.id, first.id);
    gates.get(gate)!.resolve();
    await untilStatus(first.id, 'succeeded');
    await untilStatus(second.job.id, 'succeeded');
    assert.is(invocations.get(gate), 2);
  } finally {
    gates.get(gate)!.resolve();
  }
});

test('retryTerminal puts a failed run back in the queue under the same id', async () => {
  const key = randomUUID();
  const jobKey = `sync:${key}`;
  const { job } = await enqueueJob(t.app.pool, gatedFailureTask, { key }, { jobKey });
  const failed = await untilStatus(job.id, 'failed');
  assert.is(failed.error_detail, 'prerequisite missing');

  const plain = await enqueueJob(t.app.pool, gatedFailureTask, { key }, { jobKey });
  assert.is(plain.created, false, 'without retryTerminal the failed run is returned as is');
  assert.is(plain.job.status, 'failed');

  allowed.add(key);
  const retried = await enqueueJob(t.app.pool, gatedFailureTask, { key }, { jobKey, retryTerminal: true });
  assert.ok(retried.created);
  assert.is(retried.job.id, job.id);
  assert.is(retried.job.status, 'queued');
  assert.is(retried.job.error_detail, null);
  assert.is.not(retried.job.worker_job_id, job.worker_job_id);

  const done = await untilStatus(job.id, 'succeeded');
  assert.equal(done.result, { ok: true });
  assert.is(done.attempts, 1);
  assert.is(done.error_detail, null);
  assert.is(invocations.get(key), 2);
});

test('cancelling a queued job removes its worker job and the task never runs', async () => {
  const key = randomUUID();
  const { job } = await enqueueJob(t.app.pool, countedTask, { key }, { workspaceId: t.demo.workspaceId, runAt: inAnHour() });
  assert.ok(await workerJobExists(job.worker_job_id));

  const elsewhere = await rejection(cancelJob(t.app, job.id, { workspaceId: randomUUID() }), 'cancel from another workspace');
  assert.instance(elsewhere, AppError);
  assert.is((elsewhere as AppError).code, 'not_found');

  const cancelled = await cancelJob(t.app, job.id, { workspaceId: t.demo.workspaceId });
  assert.is(cancelled.status, 'cancelled');
  assert.ok(cancelled.finished_at);
  assert.is((await jobRun(job.id))!.status, 'cancelled');
  assert.is(await workerJobExists(job.worker_job_id), false, 'graphile-worker job removed');
  assert.is(invocations.get(key), undefined);

  const again = await cancelJob(t.app, job.id, { workspaceId: t.demo.workspaceId });
  assert.is(again.status, 'cancelled', 'cancelling twice is harmless');
});

test('a job waiting out its retry backoff can be cancelled and is not retried', async () => {
  const key = randomUUID();
  const { job } = await enqueueJob(t.app.pool, flakyTask, { key }, { workspaceId: t.demo.workspaceId });
  await eventually(
    async () => {
      const { rows } = await t.app.pool.query('select attempts, locked_at from graphile_worker.jobs where id = $1', [job.worker_job_id]);
      return rows[0]?.attempts === 1 && rows[0].locked_at === null ? true : undefined;
    },
    10_000,
    'first attempt to fail',
  );
  const cancelled = await cancelJob(t.app, job.id, { workspaceId: t.demo.workspaceId });
  assert.is(cancelled.status, 'cancelled');
  assert.is(cancelled.error_detail, 'transient hiccup');
  assert.is(await workerJobExists(job.worker_job_id), false, 'the pending retry is removed');
  assert.is(invocations.get(key), 1);
});

test('cancelling a running job is a conflict and the job still completes', async () => {
  const gate = randomUUID();
  gates.set(gate, deferred());
  const { job } = await enqueueJob(t.app.pool, stepsTask, { gate, label: 'busy' }, { workspaceId: t.demo.workspaceId });
  await untilStatus(job.id, 'running');

  const err = await rejection(cancelJob(t.app, job.id, { workspaceId: t.demo.workspaceId }), 'cancel of a running job');
  assert.instance(err, AppError);
  assert.is((err as AppError).code, 'conflict');
  assert.is((await jobRun(job.id))!.status, 'running');

  gates.get(gate)!.resolve();
  const done = await untilStatus(job.id, 'succeeded');
  assert.equal(done.result, { label: 'busy', attempt: 1 });
});

test('svc_jobs_total is a counter labelled by task and outcome', async () => {
  const key = randomUUID();
  const before = await jobsCounter(countedTask.name, 'succeeded');
  const { job } = await enqueueJob(t.app.pool, countedTask, { key });
  await untilStatus(job.id, 'succeeded');
  assert.is(await jobsCounter(countedTask.name, 'succeeded'), before + 1);
  const text = await registry.getSingleMetricAsString('svc_jobs_total');
  assert.match(text, '# TYPE svc_jobs_total counter');
  assert.match(text, `svc_jobs_total{task="test__counted",outcome="succeeded"} ${before + 1}`);
  const duration = await registry.getSingleMetricAsString('svc_job_duration_seconds');
  assert.match(duration, /svc_job_duration_seconds_count\{task="test__counted",outcome="succeeded"\} [1-9]/);
});

test.run();
