/**
 * Starts an in-process graphile-worker runner over our task list, with its heartbeat (crash
 * recovery, jobs/heartbeat.ts); `stop()` drains running jobs.
 */
import { EventEmitter } from 'node:events';
import { Logger as WorkerLogger, parseCrontab, run, type Runner, type TaskList, type WorkerEvents } from 'graphile-worker';
import type { AppContext } from '../lib/context.ts';
import type { Pool } from '../lib/db.ts';
import { startHeartbeat } from './heartbeat.ts';
import { wrapTask, type TaskDefinition } from './runtime.ts';

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
}

export async function startWorker(app: AppContext, options: WorkerOptions): Promise<WorkerHandle> {
  const taskList: TaskList = {};
  for (const task of options.tasks) taskList[task.name] = wrapTask(task, app);
  const log = app.logger.child({ component: 'worker' });
  const logger = new WorkerLogger(() => (level, message, meta) => {
    // graphile-worker reports each failed attempt itself; our wrapper already logged it.
    if (level === 'error' || level === 'warning') log.warn(message, meta as Record<string, unknown>);
    else log.debug(message);
  });
  const startRunner = async () => {
    const events: WorkerEvents = new EventEmitter();
    let poolId: string | undefined;
    events.on('pool:create', ({ workerPool }) => void (poolId ??= workerPool.id));
    const runner = await run({
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
          gracefulShutdownAbortTimeout: 25_000,
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
    return { runner, poolId, heartbeat };
  };

  // graphile-worker's pool exits when the database goes away for a while (a worker fails to fetch
  // or complete a job). The process does not: it starts a new runner, again and again with a
  // growing pause until the database answers. Jobs the old pool held are released when its
  // heartbeat goes stale, like those of a dead process.
  let current = await startRunner();
  let stopping = false;
  const supervise = (active: typeof current) => {
    void active.runner.promise
      .catch(() => {})
      .then(async () => {
        if (stopping) return;
        await active.heartbeat.stop({ keepRow: true });
        log.warn('worker runner exited; starting a new one', { pool_id: active.poolId });
        for (let delay = 1000; !stopping; delay = Math.min(delay * 2, 30_000)) {
          await new Promise((resolve) => setTimeout(resolve, delay));
          if (stopping) return;
          try {
            current = await startRunner();
            log.info('worker restarted', { pool_id: current.poolId });
            supervise(current);
            return;
          } catch (err) {
            log.warn('could not start a worker runner; trying again', { err, retry_in_ms: delay * 2 });
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
      await current.runner.stop().catch((err) => log.warn('worker runner did not stop cleanly', { err }));
      await current.heartbeat.stop();
      log.info('worker stopped');
    },
  };
}
