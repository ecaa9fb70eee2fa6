-- Runs inserted already running (cron lines, CLI engine runs) used to keep attempts = 0, so
-- `svc jobs list` showed a succeeded run as `0/3` (issue 28). New ones start on attempt 1
-- (sql/jobRuns.ts insertJobRun); the ones that ran before are corrected here.
update job_runs set attempts = 1
 where attempts = 0 and started_at is not null and status in ('running', 'succeeded', 'failed');
