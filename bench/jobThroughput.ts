/**
 * No-op job throughput of bench/http.ts: our job runtime (enqueueJob with its job_runs row, wrapTask
 * moving the row queued -> running -> succeeded, run by jobs/worker.ts) against raw graphile-worker
 * (add_job and a plain task function under graphile-worker's own `run()`), with the same
 * concurrency and poll interval on the same database. Jobs are enqueued up front; the clock runs from
 * the first job starting (the runner's own start-up is the same for both and left out) until
 * graphile-worker has completed (deleted) the last job. Each round also reports the CPU it cost per
 * job, this process's and the Postgres backends' of the benchmark's database (steadier than wall time
 * on a shared machine, and it says on which side a cost sits).
 */
import { Logger as WorkerLogger, makeWorkerUtils, run, type Runner } from 'graphile-worker';
import { z } from 'zod';
import type { AppContext } from '../lib/context.ts';
import { createPool, type Pool } from '../lib/db.ts';
import { defineTask, enqueueJob } from '../jobs/runtime.ts';
import { startWorker } from '../jobs/worker.ts';
import { cpuBetween, cpuSnapshot, processCpuSeconds } from './cpuAccount.ts';

export interface JobRoundOptions {
  databaseUrl: string;
  jobs: number;
  concurrency: number;
  pollInterval: number;
}

export interface JobRoundResult {
  jobs: number;
  /** First job started to the last job completed. */
  seconds: number;
  /** Time spent enqueueing (not part of `seconds`). */
  enqueueSeconds: number;
  /**
   * CPU seconds of the timed phase: this process from the first job starting, Postgres (null when it
   * runs elsewhere) from just before the runner started (its new connections count from zero).
   */
  cpu: { node: number; postgres: number | null };
}

const RAW_TASK = 'bench__raw_noop';

/** A no-op (nothing to store: its success commits with graphile-worker's deletion of the job). */
const noopTask = defineTask({
  name: 'bench__noop',
  payload: z.object({ i: z.number().int() }),
  run: async () => undefined,
});

/**
 * A no-op with a result, as most real tasks have one, declared `returnsResult` as the frequent real
 * ones are: the wrapper records it in its batched statement without waiting (migration 000270).
 */
const noopWithResultTask = defineTask({
  name: 'bench__noop_result',
  payload: z.object({ i: z.number().int() }),
  returnsResult: true,
  run: async ({ i }) => ({ i }),
});

const silentWorkerLogger = new WorkerLogger(() => () => {});
const seconds = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e9;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Enqueues jobs 0..count-1 one call each (every call its own statement and commit, as a request or a
 * task adding one job does), `concurrency` callers at a time through the one pool; returns the seconds.
 */
async function enqueueEach(count: number, concurrency: number, add: (i: number) => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  let next = 0;
  const caller = async () => {
    while (next < count) await add(next++);
  };
  await Promise.all(Array.from({ length: concurrency }, caller));
  return seconds(started);
}

/**
 * Both targets start timing from the same state: the tables they churn vacuumed (the previous
 * round's dead rows gone, statistics fresh) so that autovacuum catching up on earlier rounds does
 * not land in one target's timed phase. The vacuuming of this round's own dead rows stays in.
 */
async function settle(pool: Pool): Promise<void> {
  await pool.query('vacuum (analyze) job_runs, graphile_worker._private_jobs');
}

/** The CPU of the Postgres backends serving the benchmark's database (and of this process). */
async function postgresCpu(pool: Pool) {
  const { rows } = await pool.query<{ name: string }>('select current_database() as name');
  return cpuSnapshot(pool, rows[0].name);
}

/**
 * Seconds from the first job starting until graphile-worker holds no job of `task` any more.
 * Successes are counted from the runner's events so the database is only asked once they add up
 * (and every second as a safety net), keeping the polling out of the measured work. Call it right
 * after the runner started: its first job cannot start before this attaches (that needs a query).
 */
async function timeUntilDrained(
  runner: Runner,
  pool: Pool,
  task: string,
  count: number,
  recorded: () => Promise<boolean> = async () => true,
): Promise<{ seconds: number; nodeCpu: number }> {
  let succeeded = 0;
  let failure: Error | undefined;
  let firstStart: bigint | undefined;
  let cpuAtStart: NodeJS.CpuUsage | undefined;
  runner.events.on('job:start', () => {
    if (firstStart) return;
    firstStart = process.hrtime.bigint();
    cpuAtStart = process.cpuUsage();
  });
  runner.events.on('job:success', () => void succeeded++);
  runner.events.on('job:error', ({ error }) => void (failure ??= new Error(`bench job failed: ${String(error)}`)));
  const left = async () =>
    (await pool.query<{ n: number }>('select count(*)::int as n from graphile_worker.jobs where task_identifier = $1', [task])).rows[0].n;
  for (let tick = 1; ; tick++) {
    if (failure) throw failure;
    // job:success fires just before graphile-worker deletes the row: then wait for the deletions.
    if (succeeded >= count || tick % 200 === 0) {
      if ((await left()) === 0 && (await recorded())) return { seconds: seconds(firstStart!), nodeCpu: processCpuSeconds(cpuAtStart) };
    }
    await sleep(succeeded >= count ? 1 : 5);
  }
}

/**
 * Our runtime: enqueueJob (job_runs row + add_job) for every job, then startWorker. With
 * `withResult` the task returns a small result (one more statement per batch of finishing runs).
 */
export async function wrappedJobRound(app: AppContext, workspaceId: string, options: JobRoundOptions, withResult = false): Promise<JobRoundResult> {
  const task = withResult ? noopWithResultTask : noopTask;
  const enqueueSeconds = await enqueueEach(options.jobs, options.concurrency, (i) => enqueueJob(app.pool, task, { i }, { workspaceId }));
  await settle(app.pool);

  const workerPool = createPool(options.databaseUrl, { max: options.concurrency + 2, applicationName: 'svc-bench-worker' });
  try {
    const postgresBefore = await postgresCpu(app.pool);
    const worker = await startWorker(app, { tasks: [task], concurrency: options.concurrency, pool: workerPool, pollInterval: options.pollInterval });
    // The clock stops once every run is recorded too: a result written in the background may land
    // just after graphile-worker deleted the last job.
    const recorded = async () =>
      (await app.pool.query("select 1 from job_runs where kind = $1 and status in ('queued', 'running') limit 1", [task.name])).rowCount === 0;
    const drained = await timeUntilDrained(worker.runner, app.pool, task.name, options.jobs, recorded);
    const postgres = cpuBetween(postgresBefore, await postgresCpu(app.pool)).postgres;
    await worker.stop();
    const { rows } = await app.pool.query<{ status: string; n: number }>('select status, count(*)::int as n from job_runs where kind = $1 group by status', [
      task.name,
    ]);
    const succeeded = rows.find((r) => r.status === 'succeeded')?.n ?? 0;
    if (succeeded !== options.jobs || rows.length !== 1) throw new Error(`job_runs after the wrapped round: ${JSON.stringify(rows)}`);
    await app.pool.query('delete from job_runs where kind = $1', [task.name]);
    return { jobs: options.jobs, seconds: drained.seconds, enqueueSeconds, cpu: { node: drained.nodeCpu, postgres } };
  } finally {
    await workerPool.end();
  }
}

/**
 * Raw graphile-worker: graphile-worker's own `addJob` (WorkerUtils over the same pool) for every job, then `run()` with a no-op task, with
 * graphile-worker's defaults or, with `batchedCompletions`, completions batched per tick as our
 * runner configures it (jobs/worker.ts: `completeJobBatchDelay: 0`).
 */
export async function rawJobRound(pool: Pool, options: JobRoundOptions, batchedCompletions = false): Promise<JobRoundResult> {
  const utils = await makeWorkerUtils({ pgPool: pool, logger: silentWorkerLogger });
  const enqueueSeconds = await enqueueEach(options.jobs, options.concurrency, (i) => utils.addJob(RAW_TASK, { i }));
  await utils.release();
  await settle(pool);

  const workerPool = createPool(options.databaseUrl, { max: options.concurrency + 2, applicationName: 'svc-bench-raw-worker' });
  try {
    const postgresBefore = await postgresCpu(pool);
    const runner = await run({
      pgPool: workerPool,
      taskList: { [RAW_TASK]: async () => {} },
      concurrency: options.concurrency,
      pollInterval: options.pollInterval,
      noHandleSignals: true,
      logger: silentWorkerLogger,
      ...(batchedCompletions ? { preset: { worker: { completeJobBatchDelay: 0 } } } : {}),
    });
    const drained = await timeUntilDrained(runner, pool, RAW_TASK, options.jobs);
    const postgres = cpuBetween(postgresBefore, await postgresCpu(pool)).postgres;
    await runner.stop();
    return { jobs: options.jobs, seconds: drained.seconds, enqueueSeconds, cpu: { node: drained.nodeCpu, postgres } };
  } finally {
    await workerPool.end();
  }
}
