-- Runs of tasks that return a result (`returnsResult`, jobs/runtime.ts) are recorded succeeded, with
-- their result, by the worker's batched finishing statement, which the task no longer waits for
-- (issue 32). Their graphile-worker envelope says so (`worker_records_success`), and graphile-worker's
-- deletion of such a job no longer marks the run succeeded (it would be succeeded without its result
-- until the worker's statement lands, and for good if the worker died in between). Instead, when the
-- run is not yet succeeded at that moment, the deletion leaves a marker in `job_results_pending`, in
-- the same transaction: the worker's finishing statement removes it, and a marker older than the
-- dead-worker threshold whose worker no longer heartbeats is a run whose job completed but whose result
-- was lost: the heartbeat's sweep (sql/jobRuns.ts rerunJobsWithoutResult) puts it back in the queue.
-- No foreign key: a marker whose run was deleted is dropped by that sweep, and the check would cost a
-- lookup in graphile-worker's completion for every such job.
create table job_results_pending (
  job_run_id uuid primary key,
  -- What the sweep needs to put the job back as it was: its queue (engine work is serialised per
  -- workspace), the attempt it completed, and the worker pool that completed it.
  queue_name text,
  attempts integer not null,
  locked_by text,
  completed_at timestamptz not null default now()
);

create or replace function graphile_job_completed() returns trigger language plpgsql as $$
begin
  if old.payload ->> 'worker_records_success' = 'true' then
    insert into job_results_pending (job_run_id, queue_name, attempts, locked_by)
    select r.id, (select q.queue_name from graphile_worker._private_job_queues q where q.id = old.job_queue_id), old.attempts, old.locked_by
      from job_runs r
     where r.id = (old.payload ->> 'job_run_id')::uuid and r.status in ('queued', 'running')
    on conflict (job_run_id) do nothing;
  else
    update job_runs
       set status = 'succeeded', attempts = greatest(attempts, old.attempts), started_at = coalesce(started_at, old.locked_at, now()),
           progress = 100, error_detail = null, finished_at = now(), updated_at = now()
     where id = (old.payload ->> 'job_run_id')::uuid and status in ('queued', 'running');
  end if;
  return null;
end $$;
