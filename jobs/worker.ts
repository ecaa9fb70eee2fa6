/** Starts an in-process graphile-worker runner over our task list; `stop()` drains running jobs. */
import { Logger as WorkerLogger, parseCrontab, run, type Runner, type TaskList } from 'graphile-worker';
import type { AppContext } from '../lib/context.ts';
import type { Pool } from '../lib/db.ts';
import { wrapTask, type TaskDefinition } from './runtime.ts';

export interface WorkerHandle {
  runner: Runner;
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
  const runner = await run({
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
  log.info('worker started', { concurrency: options.concurrency, tasks: Object.keys(taskList) });
  return {
    runner,
    async stop() {
      await runner.stop();
      log.info('worker stopped');
    },
  };
}
