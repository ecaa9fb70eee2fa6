/**
 * worker_heartbeats: one row per live worker process (its graphile-worker pool id), and the release
 * of the locks a dead one held. graphile-worker itself only reclaims a locked job after 4 hours.
 */
import type { Queryable } from '../lib/db.ts';

export async function recordHeartbeat(db: Queryable, poolId: string, hostname: string, pid: number): Promise<void> {
  await db.query(
    `insert into worker_heartbeats (pool_id, hostname, pid) values ($1, $2, $3)
     on conflict (pool_id) do update set last_seen_at = now()`,
    [poolId, hostname, pid],
  );
}

export async function removeHeartbeat(db: Queryable, poolId: string): Promise<void> {
  await db.query('delete from worker_heartbeats where pool_id = $1', [poolId]);
}

export interface ReleasedJob {
  job_run_id: string | null;
  worker_job_id: number;
  task: string;
  attempt: number;
  worker: string;
}

/**
 * Releases every lock held by a dead worker pool: one whose heartbeat is older than `deadAfterMs`,
 * or one that never heartbeated (a runner of an older release) holding a lock older than that.
 * The job_runs row of each released job records the interrupted attempt and goes back to queued
 * (or to failed when that was its last attempt: graphile-worker will not run it again). Run it in
 * a transaction.
 */
export async function releaseDeadWorkers(db: Queryable, deadAfterMs: number): Promise<ReleasedJob[]> {
  const { rows: dead } = await db.query<{ pool_id: string }>(
    `with stale as (
       delete from worker_heartbeats where last_seen_at < now() - $1 * interval '1 millisecond' returning pool_id
     )
     select pool_id from stale
     union
     select locked_by from graphile_worker._private_jobs
      where locked_by is not null and locked_at < now() - $1 * interval '1 millisecond'
        and locked_by not in (select pool_id from worker_heartbeats)
     union
     select locked_by from graphile_worker._private_job_queues
      where locked_by is not null and locked_at < now() - $1 * interval '1 millisecond'
        and locked_by not in (select pool_id from worker_heartbeats)`,
    [deadAfterMs],
  );
  if (!dead.length) return [];
  const workers = dead.map((d) => d.pool_id);
  const released = await releaseWorkerJobs(db, { workers, reason: 'stopped heartbeating' });
  // Also the queue locks a dead pool may hold without a job.
  await db.query('select graphile_worker.force_unlock_workers($1::text[])', [workers]);
  return released;
}

/**
 * Releases the jobs the given worker pools hold (all of them, or those of `workerJobIds`): each
 * job_runs row records the interrupted attempt and goes back to queued (or to failed when that was
 * its last attempt: graphile-worker will not run it again), and the locks go. With `giveBackAttempt`
 * (an orderly shutdown interrupted the attempt, the job did nothing wrong) the attempt is not
 * counted against the job's max_attempts. Run it in a transaction.
 */
export async function releaseWorkerJobs(
  db: Queryable,
  options: { workers: string[]; reason: string; workerJobIds?: Array<string | number>; giveBackAttempt?: boolean },
): Promise<ReleasedJob[]> {
  const { workers, reason, workerJobIds = null, giveBackAttempt = false } = options;
  const { rows: released } = await db.query<ReleasedJob & { last: boolean }>(
    `select j.id as worker_job_id, t.identifier as task, j.attempts as attempt, j.locked_by as worker,
            j.attempts >= j.max_attempts and not $3 as last, j.payload->>'job_run_id' as job_run_id
       from graphile_worker._private_jobs j
       join graphile_worker._private_tasks t on t.id = j.task_id
      where j.locked_by = any($1) and ($2::bigint[] is null or j.id = any($2))
      for update of j`,
    [workers, workerJobIds, giveBackAttempt],
  );
  if (!released.length) return [];
  await db.query(
    `update job_runs r set
       status = case when x.last then 'failed' else 'queued' end,
       interruptions = r.interruptions || jsonb_build_array(jsonb_build_object(
         'attempt', x.attempt, 'worker', x.worker, 'released_at', now(), 'reason', $2::text)),
       error_detail = format('attempt %s interrupted: worker %s %s', x.attempt, x.worker, $2::text),
       finished_at = case when x.last then now() end,
       updated_at = now()
     from jsonb_to_recordset($1) as x(job_run_id uuid, attempt int, worker text, last boolean)
     where r.id = x.job_run_id and r.status in ('queued', 'running')`,
    [JSON.stringify(released.filter((r) => r.job_run_id)), reason],
  );
  const ids = released.map((r) => r.worker_job_id);
  // The lock of each job and of its queue (jobs of one queue run one at a time).
  await db.query(
    `with j as (
       update graphile_worker._private_jobs set locked_by = null, locked_at = null,
              attempts = case when $2 then greatest(attempts - 1, 0) else attempts end
        where id = any($1::bigint[]) returning job_queue_id, locked_by
     )
     update graphile_worker._private_job_queues q set locked_by = null, locked_at = null
      where q.id in (select job_queue_id from j) and q.locked_by = any($3)`,
    [ids, giveBackAttempt, workers],
  );
  // A job interrupted on its last attempt will never be picked again: it failed (recorded above).
  const exhausted = released.filter((r) => r.last).map((r) => r.worker_job_id);
  if (exhausted.length) await db.query('select graphile_worker.complete_jobs($1::bigint[])', [exhausted]);
  return released.map(({ last: _last, ...job }) => job);
}
