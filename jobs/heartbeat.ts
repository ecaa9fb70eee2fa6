/**
 * Crash recovery: every worker process heartbeats under its graphile-worker pool id, and releases
 * the locks of pools that stopped heartbeating (sql/workerHeartbeats.ts). A job a killed worker
 * held is picked again within WORKER_DEAD_AFTER_MS + WORKER_HEARTBEAT_INTERVAL_MS of the kill
 * (defaults 40 s + 10 s) when another worker runs, and graphile-worker's own bound is 4 hours.
 *
 * The same sweep puts back in the queue a run of a task that returns a result whose job completed
 * while its worker died before recording the result (sql/jobRuns.ts rerunJobsWithoutResult).
 *
 * A database outage stops every worker's heartbeats at once. So that the first worker back does not
 * declare the others dead, a worker only sweeps once its own heartbeats have succeeded without a
 * break for WORKER_DEAD_AFTER_MS: every live peer has had that long to heartbeat too.
 */
import os from 'node:os';
import { withTransaction, type Pool } from '../lib/db.ts';
import type { Logger } from '../lib/logger.ts';
import { jobsCompleted } from '../lib/metrics.ts';
import { rerunJobsWithoutResult } from '../sql/jobRuns.ts';
import { recordHeartbeat, releaseDeadWorkers, removeHeartbeat } from '../sql/workerHeartbeats.ts';

export interface HeartbeatOptions {
  pool: Pool;
  poolId: string;
  intervalMs: number;
  deadAfterMs: number;
  logger: Logger;
}

export interface Heartbeat {
  /**
   * Stops beating and removes the row (a clean shutdown is not a death); with `keepRow` the row
   * stays to go stale, and the locks the pool may still hold are released like a dead one's.
   */
  stop(options?: { keepRow?: boolean }): Promise<void>;
}

export function startHeartbeat(options: HeartbeatOptions): Heartbeat {
  const { pool, poolId, intervalMs, deadAfterMs, logger } = options;
  const log = logger.child({ component: 'heartbeat', pool_id: poolId });
  let healthySince: number | null = null;
  let stopped = false;
  let current: Promise<void> = Promise.resolve();

  const tick = async () => {
    try {
      await recordHeartbeat(pool, poolId, os.hostname(), process.pid);
      healthySince ??= Date.now();
    } catch (err) {
      if (healthySince !== null) log.warn('heartbeat failed', { err });
      healthySince = null;
      return;
    }
    if (Date.now() - healthySince < deadAfterMs) return;
    try {
      const released = await withTransaction(pool, (client) => releaseDeadWorkers(client, deadAfterMs));
      for (const job of released) {
        jobsCompleted.inc({ task: job.task, outcome: 'interrupted' });
        log.warn('released the job of a dead worker', { ...job });
      }
    } catch (err) {
      log.warn('could not release the jobs of dead workers', { err });
    }
    try {
      const rerun = await withTransaction(pool, (client) => rerunJobsWithoutResult(client, deadAfterMs));
      for (const job of rerun) {
        jobsCompleted.inc({ task: job.kind, outcome: 'interrupted' });
        log.warn('put back in the queue a job that completed without its result recorded', { ...job });
      }
    } catch (err) {
      log.warn('could not sweep the jobs completed without their result', { err });
    }
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      current = tick().finally(schedule);
    }, intervalMs);
    timer.unref();
  };
  let timer: NodeJS.Timeout | undefined;
  current = tick().finally(schedule);

  return {
    async stop({ keepRow = false } = {}) {
      stopped = true;
      clearTimeout(timer);
      await current;
      if (keepRow) return;
      await removeHeartbeat(pool, poolId).catch((err) => log.warn('could not remove the heartbeat', { err }));
    },
  };
}
