/**
 * Operators' actions on background jobs, shared by `svc jobs` and the staff console's
 * `/admin/jobs` routes: one job with graphile-worker's queue row, retry of a failed or cancelled job
 * (in the queue its task runs in), cancel of a queued one. Errors are AppErrors (not_found, conflict).
 */
import type { AppContext } from '../lib/context.ts';
import { AppError } from '../lib/errors.ts';
import { cancelJob, retryTerminalJob } from '../jobs/runtime.ts';
import { engineQueue } from '../jobs/queue/engine__run.ts';
import { findJobRun, findWorkerJob, type JobRun, type QueuedWorkerJob } from '../sql/jobRuns.ts';

export type JobWithQueue = JobRun & { queue: QueuedWorkerJob | null };

export async function jobWithQueue(app: AppContext, id: string): Promise<JobWithQueue> {
  const run = await findJobRun(app.pool, id, {});
  if (!run) throw new AppError('not_found', 'Job not found');
  const queued = run.worker_job_id !== null ? await findWorkerJob(app.pool, run.worker_job_id) : null;
  return { ...run, queue: queued };
}

/** The graphile-worker queue a task's jobs must run in (engine work is serialised per workspace). */
function queueOf(run: JobRun): string | undefined {
  return run.kind.startsWith('engine__') && run.workspace_id ? engineQueue(run.workspace_id) : undefined;
}

export async function retryFailedJob(app: AppContext, id: string): Promise<JobRun> {
  const run = await findJobRun(app.pool, id, {});
  if (!run) throw new AppError('not_found', 'Job not found');
  return retryTerminalJob(app, id, { queueName: queueOf(run) });
}

export const cancelQueuedJob = (app: AppContext, id: string): Promise<JobRun> => cancelJob(app, id, {});
