/**
 * `svc jobs list|show|retry|cancel`: the operator's view of `job_runs` (every background job and its
 * outcome) and of graphile-worker's queue row while a job waits or runs.
 */
import type { AppContext } from '../lib/context.ts';
import { AppError } from '../lib/errors.ts';
import { cancelQueuedJob as cancelJob, jobWithQueue, retryFailedJob } from '../usecases/jobAdministration.ts';
import { jobStatuses, listJobRuns, type JobRun, type JobStatus } from '../sql/jobRuns.ts';
import { UsageError } from './cli.ts';

export function parseJobStatus(value: string | undefined): JobStatus | undefined {
  if (value === undefined) return undefined;
  if (!(jobStatuses as readonly string[]).includes(value)) throw new UsageError(`--status must be one of ${jobStatuses.join(', ')}`);
  return value as JobStatus;
}

const iso = (d: Date | null) => (d ? d.toISOString() : '');

/** A fixed-width table of runs, newest first. */
export function jobTable(runs: JobRun[]): string {
  const header = ['id', 'kind', 'status', 'progress', 'attempts', 'created_at', 'finished_at'];
  const rows = runs.map((r) => [r.id, r.kind, r.status, `${r.progress}%`, `${r.attempts}/${r.max_attempts}`, iso(r.created_at), iso(r.finished_at)]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  return [header, ...rows]
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export async function listJobs(app: AppContext, filter: { status?: JobStatus; kind?: string; workspaceId?: string; limit: number }): Promise<JobRun[]> {
  return listJobRuns(app.pool, filter);
}

/** AppErrors (not found, conflict) are the operator's mistake: shown as usage errors. */
async function operatorAction<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AppError) throw new UsageError(err.message);
    throw err;
  }
}

export async function showJob(app: AppContext, id: string) {
  try {
    return await jobWithQueue(app, id);
  } catch (err) {
    if (err instanceof AppError && err.code === 'not_found') throw new UsageError(`job ${id} does not exist`);
    throw err;
  }
}
export const retryJob = (app: AppContext, id: string): Promise<JobRun> => operatorAction(() => retryFailedJob(app, id));
export const cancelQueuedJob = (app: AppContext, id: string): Promise<JobRun> => operatorAction(() => cancelJob(app, id));
