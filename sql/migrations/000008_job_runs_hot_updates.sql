-- A job's bookkeeping (queued -> running -> succeeded) updates its job_runs row two or three times.
-- The partial index on status made every one of those a non-HOT update (new entries in every index
-- of the table); queue depth is now read from graphile-worker's own queue instead (sql/jobRuns.ts),
-- and free space on each page lets the status updates stay on the page (HOT).
drop index job_runs_active;
alter table job_runs set (fillfactor = 80);
