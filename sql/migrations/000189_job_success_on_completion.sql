-- A job run's success is recorded by graphile-worker's own completion of its job (issue 11).
--
-- graphile-worker deletes a job from graphile_worker._private_jobs when its task succeeded (our wrapper
-- also returns normally after it has recorded a terminal failure, and cancellation marks the run
-- cancelled before it removes the job). This trigger moves the job's run (the `job_run_id` of the
-- envelope jobs/runtime.ts writes) from queued or running to succeeded in that same statement, so
-- "job gone" and "run succeeded" commit together, and a quick job needs no statement of its own.
-- Runs already terminal (failed, cancelled, succeeded with a result written by the wrapper) are left
-- as they are; so are jobs whose payload carries no run id (cron lines, untracked tasks). jobs/worker.ts
-- refuses to start without this trigger.
create function graphile_job_completed() returns trigger language plpgsql as $$
begin
  update job_runs
     set status = 'succeeded', attempts = greatest(attempts, old.attempts), started_at = coalesce(started_at, old.locked_at, now()),
         progress = 100, error_detail = null, finished_at = now(), updated_at = now()
   where id = (old.payload ->> 'job_run_id')::uuid and status in ('queued', 'running');
  return null;
end $$;

create trigger job_runs_succeed_on_completion
  after delete on graphile_worker._private_jobs
  for each row when (old.payload ->> 'job_run_id' ~ '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$')
  execute function graphile_job_completed();
