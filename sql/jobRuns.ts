/**
 * job_runs: the durable record of every background job (graphile-worker deletes its own rows when a
 * job finishes). A domain write and the job it triggers commit together: `insertJobRun` and
 * `graphile_worker.add_job` run on the caller's client.
 */
import { prepared, type Queryable } from '../lib/db.ts';
import { equalityFilters, type ListSource } from './pagination.ts';
import { isUuid } from '../lib/ids.ts';

export const jobStatuses = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type JobStatus = (typeof jobStatuses)[number];

export interface JobRun {
  id: string;
  kind: string;
  workspace_id: string | null;
  tenant_id: string | null;
  status: JobStatus;
  progress: number;
  steps_completed: string[];
  error_detail: string | null;
  result: unknown;
  payload: unknown;
  attempts: number;
  max_attempts: number;
  job_key: string | null;
  worker_job_id: number | null;
  created_at: Date;
  updated_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

export interface NewJobRun {
  kind: string;
  payload: unknown;
  maxAttempts: number;
  workspaceId?: string | null;
  tenantId?: string | null;
  jobKey?: string | null;
  status?: JobStatus;
}

/**
 * Inserts a job run; with a job key already taken it inserts nothing and returns null. A run inserted
 * `running` (a cron line's, a CLI engine run's) is on its first attempt.
 */
export async function insertJobRun(db: Queryable, run: NewJobRun): Promise<JobRun | null> {
  const { rows } = await db.query<JobRun>(
    `insert into job_runs (kind, payload, max_attempts, workspace_id, tenant_id, job_key, status, started_at, attempts)
     values ($1, $2, $3, $4, $5, $6, $7, case when $7 = 'running' then now() end, case when $7 = 'running' then 1 else 0 end)
     on conflict (job_key) do nothing
     returning *`,
    [run.kind, JSON.stringify(run.payload ?? {}), run.maxAttempts, run.workspaceId ?? null, run.tenantId ?? null, run.jobKey ?? null, run.status ?? 'queued'],
  );
  return rows[0] ?? null;
}

/**
 * Inserts a queued run without a job key together with its graphile-worker job, in one statement
 * (one round trip inside the caller's transaction instead of three). The caller picks the run's id
 * because the job's payload carries it. A named (prepared) statement, as every enqueue runs it: it
 * returns only what Postgres decides (the job's id, the clock); the rest of the new run is what was
 * inserted, so the payload is not sent back and parsed again (docs/benchmarks.md, issue 32).
 */
const insertQueuedRunWithJob = prepared(
  'job_runs_insert_queued_with_job',
  `with job as (select id from graphile_worker.add_job($2, $7::json, run_at => $8, max_attempts => $4, queue_name => $9))
   insert into job_runs (id, kind, payload, max_attempts, workspace_id, tenant_id, status, worker_job_id)
   select $1, $2, $3, $4, $5, $6, 'queued', job.id from job
   returning worker_job_id, created_at`,
);
export async function insertQueuedJobRunWithJob(
  db: Queryable,
  run: { id: string; kind: string; payloadJson: string; payload: unknown; maxAttempts: number; workspaceId?: string | null; tenantId?: string | null },
  job: { payloadJson: string; runAt: Date | null; queueName: string | null },
): Promise<JobRun> {
  const { rows } = await db.query<{ worker_job_id: number; created_at: Date }>(
    insertQueuedRunWithJob([
      run.id,
      run.kind,
      run.payloadJson,
      run.maxAttempts,
      run.workspaceId ?? null,
      run.tenantId ?? null,
      job.payloadJson,
      job.runAt,
      job.queueName,
    ]),
  );
  const { worker_job_id, created_at } = rows[0];
  return {
    id: run.id,
    kind: run.kind,
    workspace_id: run.workspaceId ?? null,
    tenant_id: run.tenantId ?? null,
    status: 'queued',
    progress: 0,
    steps_completed: [],
    error_detail: null,
    result: null,
    payload: run.payload,
    attempts: 0,
    max_attempts: run.maxAttempts,
    job_key: null,
    worker_job_id,
    created_at,
    updated_at: created_at,
    started_at: null,
    finished_at: null,
  };
}

export async function lockJobRunByKey(db: Queryable, jobKey: string): Promise<JobRun | null> {
  const { rows } = await db.query<JobRun>('select * from job_runs where job_key = $1 for update', [jobKey]);
  return rows[0] ?? null;
}

/** Puts a failed or cancelled run back in the queue (the "retry terminal" transition). */
export async function requeueJobRun(db: Queryable, id: string, payload: unknown): Promise<JobRun> {
  const { rows } = await db.query<JobRun>(
    `update job_runs set status = 'queued', progress = 0, steps_completed = '{}', error_detail = null, result = null,
       payload = $2, attempts = 0, started_at = null, finished_at = null, updated_at = now()
     where id = $1 returning *`,
    [id, JSON.stringify(payload ?? {})],
  );
  return rows[0];
}

export async function setWorkerJobId(db: Queryable, id: string, workerJobId: number): Promise<void> {
  await db.query('update job_runs set worker_job_id = $2 where id = $1', [id, workerJobId]);
}

/**
 * The wrapper's own bookkeeping (claim, progress, success, retry) commits asynchronously: graphile-
 * worker's synchronous commit of the same job follows it and makes it durable, and if the server
 * crashed in between the job simply runs again. This halves the flushes per job.
 */
const ASYNC_COMMIT_SOURCE = `(select set_config('synchronous_commit', 'off', true)) as async_commit`;
const ASYNC_COMMIT = `from ${ASYNC_COMMIT_SOURCE}`;

/**
 * Moves a queued (or retried) run to running; null when it was cancelled or is unknown. With
 * `releaseKey` (a coalescing task) its durable key is freed in the same statement: once it runs, the
 * next enqueue adds a new run.
 */
export async function claimJobRun(db: Queryable, id: string, attempt: number, releaseKey = false): Promise<JobRun | null> {
  const { rows } = await db.query<JobRun>(
    `update job_runs set status = 'running', attempts = $2, started_at = coalesce(started_at, now()), updated_at = now(),
       job_key = case when $3 then null else job_key end
     ${ASYNC_COMMIT} where id = $1 and status in ('queued', 'running') returning *`,
    [id, attempt, releaseKey],
  );
  return rows[0] ?? null;
}

export async function recordJobProgress(db: Queryable, id: string, progress: number, step?: string): Promise<void> {
  await db.query(
    `update job_runs set progress = greatest(progress, $2),
       steps_completed = case when $3::text is null or $3 = any(steps_completed) then steps_completed else steps_completed || $3::text end,
       updated_at = now()
     ${ASYNC_COMMIT} where id = $1 and status = 'running'`,
    [id, progress, step ?? null],
  );
}

export async function completeJobRun(db: Queryable, id: string, result: unknown): Promise<void> {
  await db.query(
    `update job_runs set status = 'succeeded', progress = 100, result = $2, error_detail = null, finished_at = now(), updated_at = now()
     ${ASYNC_COMMIT} where id = $1 and status = 'running'`,
    [id, result === undefined ? null : JSON.stringify(result)],
  );
}

export interface FinishedRun {
  id: string;
  attempt: number;
  /** When the attempt started (the row was never claimed, so it does not say). */
  startedAt: Date;
  result: unknown;
  /** The result already serialised (null: none); serialised here when absent. */
  resultJson?: string | null;
}

/**
 * Quick runs that finished, in one statement: each queued (never claimed) or running run straight to
 * succeeded, with its attempt and the time it started. Returns the ids it moved; a run missing from
 * them was not runnable (cancelled or already finished). The markers graphile-worker's completion left
 * for these runs (migration 000270: a run whose job was deleted before this statement) go with it. A
 * named (prepared) statement: the update joined to an unnest costs more to plan than to run, and each
 * worker connection plans it once.
 */
const finishJobRunsStatement = prepared(
  'job_runs_finish_and_settle',
  `with moved as (
     update job_runs as r set status = 'succeeded', attempts = f.attempt, started_at = coalesce(r.started_at, f.started_at), progress = 100,
         result = f.result, error_detail = null, finished_at = now(), updated_at = now()
       from unnest($1::uuid[], $2::int[], $3::timestamptz[], $4::jsonb[]) as f(id, attempt, started_at, result), ${ASYNC_COMMIT_SOURCE}
       where r.id = f.id and r.status in ('queued', 'running')
       returning r.id
   ), settled as (delete from job_results_pending where job_run_id = any($1::uuid[]))
   select id from moved`,
);
export async function finishJobRuns(db: Queryable, runs: FinishedRun[]): Promise<Set<string>> {
  const { rows } = await db.query<{ id: string }>(
    finishJobRunsStatement([
      runs.map((run) => run.id),
      runs.map((run) => run.attempt),
      runs.map((run) => run.startedAt),
      runs.map((run) => (run.resultJson !== undefined ? run.resultJson : run.result === undefined ? null : JSON.stringify(run.result))),
    ]),
  );
  return new Set(rows.map((row) => row.id));
}

/**
 * True when graphile-worker's completion of a job records its run's success (migration 000189's
 * trigger on graphile_worker._private_jobs): the wrapper relies on it for runs without a result.
 */
export async function completionTriggerInstalled(db: Queryable): Promise<boolean> {
  const { rowCount } = await db.query(
    `select 1 from pg_trigger where tgrelid = to_regclass('graphile_worker._private_jobs') and tgname = 'job_runs_succeed_on_completion' and tgenabled <> 'D'`,
  );
  return rowCount === 1;
}

/** Terminal failure; `attempt` when the wrapper knows it (a run may fail before it was claimed). */
export async function failJobRun(db: Queryable, id: string, errorDetail: string, attempt?: number): Promise<void> {
  await db.query(
    `update job_runs set status = 'failed', error_detail = $2, attempts = coalesce($3, attempts),
       started_at = coalesce(started_at, now()), finished_at = now(), updated_at = now()
     where id = $1 and status in ('queued', 'running')`,
    [id, errorDetail, attempt ?? null],
  );
}

/** A transient failure with attempts left: back to queued, keeping the error for pollers. */
export async function retryJobRun(db: Queryable, id: string, errorDetail: string): Promise<void> {
  await db.query(`update job_runs set status = 'queued', error_detail = $2, updated_at = now() ${ASYNC_COMMIT} where id = $1 and status = 'running'`, [
    id,
    errorDetail,
  ]);
}

export async function lockJobRun(db: Queryable, id: string): Promise<JobRun | null> {
  const { rows } = await db.query<JobRun>('select * from job_runs where id = $1 for update', [id]);
  return rows[0] ?? null;
}

export async function markJobRunCancelled(db: Queryable, id: string): Promise<JobRun> {
  const { rows } = await db.query<JobRun>(`update job_runs set status = 'cancelled', finished_at = now(), updated_at = now() where id = $1 returning *`, [id]);
  return rows[0];
}

export interface JobScope {
  workspaceId?: string;
  tenantId?: string;
}

/** A job run visible to the given workspace or tenant (never another's). */
export async function findJobRun(db: Queryable, id: string, scope: JobScope): Promise<JobRun | null> {
  if (!isUuid(id)) return null;
  const { rows } = await db.query<JobRun>(
    `select * from job_runs where id = $1
       and ($2::uuid is null or workspace_id = $2) and ($3::uuid is null or tenant_id = $3)`,
    [id, scope.workspaceId ?? null, scope.tenantId ?? null],
  );
  return rows[0] ?? null;
}

/**
 * Queue depth by task: graphile-worker's own queue (jobs waiting, including retries not yet due, and
 * jobs a worker holds), which is small, rather than the job_runs history, which is not.
 */
export async function activeJobCounts(db: Queryable): Promise<Array<{ kind: string; status: string; count: number }>> {
  const { rows } = await db.query<{ kind: string; status: string; count: number }>(
    `select task_identifier as kind, case when locked_at is null then 'queued' else 'running' end as status, count(*)::int as count
       from graphile_worker.jobs group by 1, 2`,
  );
  return rows;
}

/** The run holding a durable job key (`provision:{tenant_id}`), if any. */
export async function findJobRunByKey(db: Queryable, jobKey: string): Promise<JobRun | null> {
  const { rows } = await db.query<JobRun>('select * from job_runs where job_key = $1', [jobKey]);
  return rows[0] ?? null;
}

/** The most recently created run of `kind` for a tenant (what the status routes poll). */
export async function latestTenantJobRun(db: Queryable, tenantId: string, kind: string): Promise<JobRun | null> {
  const { rows } = await db.query<JobRun>('select * from job_runs where tenant_id = $1 and kind = $2 order by created_at desc, id desc limit 1', [
    tenantId,
    kind,
  ]);
  return rows[0] ?? null;
}

export interface JobRunFilter {
  status?: JobStatus;
  kind?: string;
  workspaceId?: string;
  tenantId?: string;
  limit: number;
}

/** The newest job runs matching the filter (operators' `svc jobs list`, the staff console's jobs page). */
export async function listJobRuns(db: Queryable, filter: JobRunFilter): Promise<JobRun[]> {
  const { rows } = await db.query<JobRun>(
    `select * from job_runs
      where ($1::text is null or status = $1) and ($2::text is null or kind = $2) and ($3::uuid is null or workspace_id = $3)
        and ($5::uuid is null or tenant_id = $5)
      order by created_at desc, id desc limit $4`,
    [filter.status ?? null, filter.kind ?? null, filter.workspaceId ?? null, filter.limit, filter.tenantId ?? null],
  );
  return rows;
}

export interface QueuedWorkerJob {
  id: number;
  queue_name: string | null;
  run_at: Date;
  attempts: number;
  max_attempts: number;
  last_error: string | null;
  locked_at: Date | null;
  locked_by: string | null;
}

/** graphile-worker's row of a job while it is queued or running (gone once it finished). */
export async function findWorkerJob(db: Queryable, workerJobId: number): Promise<QueuedWorkerJob | null> {
  const { rows } = await db.query<QueuedWorkerJob>(
    `select id, queue_name, run_at, attempts, max_attempts, last_error, locked_at, locked_by from graphile_worker.jobs where id = $1`,
    [workerJobId],
  );
  return rows[0] ?? null;
}

/** GET /v1/jobs. */
export function jobRunList(workspaceId: string, f: { status?: string; kind?: string }): ListSource {
  return {
    ...equalityFilters({ workspace_id: workspaceId, status: f.status, kind: f.kind }),
    select: '*',
    from: 'job_runs',
    sortColumns: { created_at: { expr: 'created_at', type: 'timestamptz' } },
    idExpr: 'id',
  };
}

/** Adds a graphile-worker job (on the caller's transaction) and returns its id. */
export async function addWorkerJob(
  db: Queryable,
  job: { task: string; payloadJson: string; runAt?: Date | null; maxAttempts: number; queueName?: string | null },
): Promise<number> {
  const { rows } = await db.query<{ id: number }>(`select id from graphile_worker.add_job($1, $2::json, run_at => $3, max_attempts => $4, queue_name => $5)`, [
    job.task,
    job.payloadJson,
    job.runAt ?? null,
    job.maxAttempts,
    job.queueName ?? null,
  ]);
  return rows[0].id;
}

/**
 * Removes a job that no worker holds (graphile-worker's `complete_jobs` skips locked ones). Returns
 * whether it was removed, and whether it is still in the queue (held by a worker) when it was not.
 */
export async function removeQueuedWorkerJob(db: Queryable, workerJobId: number): Promise<{ removed: boolean; stillQueued: boolean }> {
  const removed = ((await db.query('select id from graphile_worker.complete_jobs(array[$1::bigint])', [workerJobId])).rowCount ?? 0) > 0;
  const stillQueued = ((await db.query('select 1 from graphile_worker.jobs where id = $1', [workerJobId])).rowCount ?? 0) > 0;
  return { removed, stillQueued };
}

export interface RerunJob {
  job_run_id: string;
  kind: string;
  /** The attempt that completed without its result being recorded. */
  attempt: number;
  worker: string | null;
  worker_job_id: number;
}

/**
 * The sweep of migration 000270's markers: a run of a task that returns a result whose job graphile-
 * worker completed (deleted) while the run was not yet recorded succeeded. A marker is due once it is
 * older than `graceMs` and the worker pool that completed the job no longer heartbeats (a dead worker
 * never writes the result; a live one writes it within a round trip, or retries while the database is
 * away), or once it is older than ten times `graceMs` in any case (a result acknowledged just before a
 * database crash, written asynchronously, can be lost while its worker lives on). A due run still
 * queued or running without a job gets its job back as it was (its queue, its attempt given back: the
 * attempt did its work, only its record was lost), records the interruption and goes back to queued;
 * markers of runs that finished otherwise are dropped. Run it in a transaction. Two sweepers never take
 * the same marker (skip locked), and a run whose own worker is writing it right now is skipped.
 */
export async function rerunJobsWithoutResult(db: Queryable, graceMs: number): Promise<RerunJob[]> {
  await db.query(
    `delete from job_results_pending m
      where not exists (select 1 from job_runs r where r.id = m.job_run_id and r.status in ('queued', 'running'))`,
  );
  const { rows: due } = await db.query<{
    job_run_id: string;
    kind: string;
    queue_name: string | null;
    attempts: number;
    locked_by: string | null;
    max_attempts: number;
    workspace_id: string | null;
    tenant_id: string | null;
    job_exists: boolean;
  }>(
    `select m.job_run_id, r.kind, m.queue_name, m.attempts, m.locked_by, r.max_attempts, r.workspace_id, r.tenant_id,
            exists (select 1 from graphile_worker._private_jobs j where j.id = r.worker_job_id) as job_exists
       from job_results_pending m join job_runs r on r.id = m.job_run_id
      where r.status in ('queued', 'running')
        and (m.completed_at < now() - 10 * $1 * interval '1 millisecond'
             or (m.completed_at < now() - $1 * interval '1 millisecond'
                 and not exists (select 1 from worker_heartbeats h
                                  where h.pool_id = m.locked_by and h.last_seen_at >= now() - $1 * interval '1 millisecond')))
      order by m.completed_at
      limit 500
      for update of m, r skip locked`,
    [graceMs],
  );
  const rerun: RerunJob[] = [];
  for (const run of due) {
    await db.query('delete from job_results_pending where job_run_id = $1', [run.job_run_id]);
    if (run.job_exists) continue; // it has a job again (put back by an operator): nothing was lost
    // No input in the envelope: the attempt reads it from the run as it claims it (any task can).
    const { rows } = await db.query<{ id: string }>(
      `select id from graphile_worker.add_job($1, json_build_object('job_run_id', $2::uuid, 'workspace_id', $3::uuid, 'tenant_id', $4::uuid,
                                                                    'worker_records_success', true),
                                             queue_name => $5, max_attempts => $6)`,
      [run.kind, run.job_run_id, run.workspace_id, run.tenant_id, run.queue_name, run.max_attempts],
    );
    const workerJobId = Number(rows[0].id);
    await db.query('update graphile_worker._private_jobs set attempts = least(greatest($2::int - 1, 0), max_attempts - 1) where id = $1', [
      workerJobId,
      run.attempts,
    ]);
    await db.query(
      `update job_runs set status = 'queued', worker_job_id = $2,
         interruptions = interruptions || jsonb_build_array(jsonb_build_object(
           'attempt', $3::int, 'worker', $4::text, 'released_at', now(), 'reason', 'completed without its result recorded')),
         error_detail = format('attempt %s: the job completed but worker %s did not record its result; run again', $3::int, coalesce($4, 'unknown')),
         updated_at = now()
       where id = $1`,
      [run.job_run_id, workerJobId, run.attempts, run.locked_by],
    );
    rerun.push({ job_run_id: run.job_run_id, kind: run.kind, attempt: run.attempts, worker: run.locked_by, worker_job_id: workerJobId });
  }
  return rerun;
}
