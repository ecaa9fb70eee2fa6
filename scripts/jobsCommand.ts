/**
 * `svc jobs list|show|retry|cancel`: the operator's view of `job_runs` (every background job and its
 * outcome) and of graphile-worker's queue row while a job waits or runs.
 */
import type { AppContext } from '../lib/context.ts';
import { AppError } from '../lib/errors.ts';
import { cancelJob, retryTerminalJob } from '../jobs/runtime.ts';
import { engineQueue } from '../jobs/tasks/engine__run.ts';
import { findJobRun, findWorkerJob, jobStatuses, listJobRuns, type JobRun, type JobStatus } from '../sql/jobRuns.ts';
import { InputError, UsageError } from './cli.ts';

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

export async function showJob(app: AppContext, id: string) {
  const run = await findJobRun(app.pool, id, {});
  if (!run) throw new InputError(`job ${id} does not exist`);
  const queued = run.worker_job_id !== null ? await findWorkerJob(app.pool, run.worker_job_id) : null;
  return { ...run, queue: queued };
}

/** The graphile-worker queue a task's jobs must run in (engine work is serialised per workspace). */
function queueOf(run: JobRun): string | undefined {
  return run.kind.startsWith('engine__') && run.workspace_id ? engineQueue(run.workspace_id) : undefined;
}

/** AppErrors (not found, conflict) are the operator's mistake: shown as one-line input errors. */
async function operatorAction<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AppError) throw new InputError(err.message);
    throw err;
  }
}

export async function retryJob(app: AppContext, id: string): Promise<JobRun> {
  const run = await findJobRun(app.pool, id, {});
  if (!run) throw new InputError(`job ${id} does not exist`);
  return operatorAction(() => retryTerminalJob(app, id, { queueName: queueOf(run) }));
}

export async function cancelQueuedJob(app: AppContext, id: string): Promise<JobRun> {
  return operatorAction(() => cancelJob(app, id, {}));
}
