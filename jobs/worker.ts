/**
 * Starts an in-process graphile-worker runner over our task list, with its heartbeat (crash
 * recovery, jobs/heartbeat.ts); `stop()` drains running jobs.
 */
import { EventEmitter } from 'node:events';
import { Logger as WorkerLogger, parseCrontab, run, type Runner, type TaskList, type WorkerEvents } from 'graphile-worker';
import type { AppContext } from '../lib/context.ts';
import { untilDatabaseAnswers, withTransaction, type Pool } from '../lib/db.ts';
import { jobsCompleted } from '../lib/metrics.ts';
import { releaseWorkerJobs } from '../sql/workerHeartbeats.ts';
import { completionTriggerInstalled } from '../sql/jobRuns.ts';
import { startHeartbeat } from './heartbeat.ts';
import { FinishBatcher, JobInterrupted, wrapTask, type TaskDefinition } from './runtime.ts';

export interface WorkerHandle {
  runner: Runner;
  /** graphile-worker's pool id: the `locked_by` of the jobs this worker holds. */
  poolId: string;
  stop(): Promise<void>;
}

export interface WorkerOptions {
  tasks: TaskDefinition[];
  crontab?: string;
  concurrency: number;
  /** The worker's own pool (graphile-worker holds one connection for LISTEN). */
  pool: Pool;
  pollInterval?: number;
  /** Running jobs get this long to finish on stop before they are aborted and released (default SHUTDOWN_GRACE_MS). */
  shutdownGraceMs?: number;
}

/** How long a runner that cannot work (see `over` below) is given before a new one replaces it. */
const STUCK_AFTER_MS = 5000;
/** After the abort signal, how long a job that ignores it may keep the shutdown waiting. */
const ABANDON_AFTER_ABORT_MS = 3000;
/** On stop, how long the successes still being recorded in the background may keep it waiting. */
const DRAIN_RECORDS_MS = 5000;
/** The pause before another attempt when a new runner failed to start for a reason other than the connection. */
const RESTART_PAUSE_MS = 30_000;

export async function startWorker(app: AppContext, options: WorkerOptions): Promise<WorkerHandle> {
  // A run without a result is recorded succeeded by graphile-worker's deletion of its job: without the
  // trigger that does it, such runs would stay queued forever.
  if (!(await untilDatabaseAnswers('worker start', () => completionTriggerInstalled(options.pool), app.logger)))
    throw new Error('graphile_worker._private_jobs lacks the job_runs_succeed_on_completion trigger (migration 000189): run `svc migrate`');
  const taskList: TaskList = {};
  // Quick runs finishing together are recorded together (jobs/runtime.ts).
  const finishes = new FinishBatcher(app.pool);
  for (const task of options.tasks) taskList[task.name] = wrapTask(task, app, finishes);
  const log = app.logger.child({ component: 'worker' });
  const logger = new WorkerLogger(() => (level, message, meta) => {
    // An attempt interrupted by shutdown was released by the wrapper, which logged it: not a failure.
    if ((meta as { error?: unknown } | undefined)?.error instanceof JobInterrupted) return log.debug(message.split('\n')[0]);
    // graphile-worker reports each failed attempt itself; our wrapper already logged it.
    if (level === 'error' || level === 'warning') log.warn(message, meta as Record<string, unknown>);
    else log.debug(message);
  });
  const graceMs = options.shutdownGraceMs ?? app.config.SHUTDOWN_GRACE_MS;
  let stopping = false;
  const startRunner = async () => {
    const events: WorkerEvents = new EventEmitter();
    let poolId: string | undefined;
    events.on('pool:create', ({ workerPool }) => void (poolId ??= workerPool.id));
    // The runner is over when its promise settles, or when it can no longer work: its pool began
    // shutting down on its own (it does when it cannot complete or fail a job, and that shutdown
    // can wait on the database for as long as it is gone), or its workers have failed to fetch a
    // job for STUCK_AFTER_MS (graphile-worker 0.17 keeps a failed task-list lookup for the life of
    // the runner, so one that started while the database went away never fetches a job again).
    let runner: Runner | undefined;
    let ended!: () => void;
    const over = new Promise<void>((resolve) => (ended = resolve));
    events.on('pool:gracefulShutdown', () => void (stopping || setTimeout(ended, STUCK_AFTER_MS).unref()));
    let failingSince: number | undefined;
    events.on('worker:getJob:empty', () => (failingSince = undefined));
    events.on('job:start', () => (failingSince = undefined));
    events.on('worker:getJob:error', () => {
      failingSince ??= Date.now();
      if (stopping || Date.now() - failingSince < STUCK_AFTER_MS) return;
      runner?.stop().catch(() => {});
      ended();
    });
    runner = await run({
      events,
      pgPool: options.pool,
      taskList,
      concurrency: options.concurrency,
      noHandleSignals: true,
      pollInterval: options.pollInterval ?? 2000,
      parsedCronItems: options.crontab ? parseCrontab(options.crontab) : [],
      logger,
      preset: {
        worker: {
          // Running jobs get this long to finish on shutdown before their abort signal fires.
          gracefulShutdownAbortTimeout: graceMs,
          // Batched completion (flushed every tick) is awaited by graceful shutdown; the unbatched
          // default fires and forgets, so a job finished during shutdown could stay locked.
          completeJobBatchDelay: 0,
          failJobBatchDelay: 0,
        },
      },
    });
    if (!poolId) throw new Error('graphile-worker did not report its worker pool');
    const heartbeat = startHeartbeat({
      pool: options.pool,
      poolId,
      intervalMs: app.config.WORKER_HEARTBEAT_INTERVAL_MS,
      deadAfterMs: app.config.WORKER_DEAD_AFTER_MS,
      logger: log,
    });
    runner.promise.then(ended, ended);
    return { runner, poolId, heartbeat, over };
  };

  // graphile-worker's pool exits when the database goes away for a while (a worker fails to fetch
  // or complete a job). The process does not: it starts a new runner, trying until the database
  // answers, as it does at start. Jobs the old pool held are released when its heartbeat goes
  // stale, like those of a dead process.
  const startSupervised = () => untilDatabaseAnswers('worker start', startRunner, log, () => stopping);
  let current = await startSupervised();
  const supervise = (active: typeof current) => {
    void active.over.then(async () => {
      if (stopping) return;
      await active.heartbeat.stop({ keepRow: true });
      log.warn('worker runner exited; starting a new one', { pool_id: active.poolId });
      // Connection errors are retried inside startSupervised; any other failure to start is retried
      // too, after a pause: the process must not stay up without a runner.
      while (!stopping) {
        try {
          current = await startSupervised();
          log.info('worker restarted', { pool_id: current.poolId });
          supervise(current);
          return;
        } catch (err) {
          if (stopping) return;
          log.error('could not start a new worker runner; trying again', { err, retry_in_ms: RESTART_PAUSE_MS });
          await new Promise((resolve) => setTimeout(resolve, RESTART_PAUSE_MS));
        }
      }
    });
  };
  supervise(current);
  log.info('worker started', { concurrency: options.concurrency, tasks: Object.keys(taskList), pool_id: current.poolId });
  return {
    get runner() {
      return current.runner;
    },
    get poolId() {
      return current.poolId;
    },
    async stop() {
      stopping = true;
      const { runner, poolId, heartbeat } = current;
      // Running jobs have graceMs to finish; then their abort signal fires and a job that stops on it
      // is released by the wrapper. One that ignores it is released here, ABANDON_AFTER_ABORT_MS
      // later, so that no job waits for the dead-worker sweep after a restart.
      let timer: NodeJS.Timeout | undefined;
      const abandoned = new Promise<'abandoned'>((resolve) => (timer = setTimeout(resolve, graceMs + ABANDON_AFTER_ABORT_MS, 'abandoned')));
      const stopped = runner.stop().then(
        () => 'stopped' as const,
        (err) => void log.warn('worker runner did not stop cleanly', { err }),
      );
      if ((await Promise.race([stopped, abandoned])) === 'abandoned') {
        const released = await withTransaction(app.pool, (client) =>
          releaseWorkerJobs(client, { workers: [poolId], reason: 'shut down', giveBackAttempt: true }),
        );
        for (const job of released) jobsCompleted.inc({ task: job.task, outcome: 'interrupted' });
        log.info('released the jobs that did not stop within the shutdown grace period', { pool_id: poolId, jobs: released });
        // Their tasks are left behind, and so is the runner waiting for them: the process is exiting.
      }
      clearTimeout(timer);
      // Successes recorded in the background (tasks that return a result) land before the process goes;
      // one the database does not take by then is the heartbeat sweep's (its marker, migration 000270).
      await finishes.drain(DRAIN_RECORDS_MS);
      await heartbeat.stop();
      log.info('worker stopped');
    },
  };
}
