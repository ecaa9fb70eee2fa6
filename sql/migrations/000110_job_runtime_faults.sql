-- Crash recovery and effects-once of the job runtime (issue 11).

-- Every worker process heartbeats here under its graphile-worker pool id, which is what
-- graphile_worker's jobs and job queues carry in `locked_by` while the pool holds them. A pool
-- whose heartbeat is older than WORKER_DEAD_AFTER_MS is dead: its locks are released with
-- graphile_worker.force_unlock_workers (jobs/heartbeat.ts).
create table worker_heartbeats (
  pool_id text primary key,
  hostname text not null,
  pid integer not null,
  started_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now()
);

-- The attempts of a run that died with their worker: [{attempt, worker, locked_at, released_at}].
-- Written only when a dead worker's lock is released, so the normal path stays one update.
alter table job_runs add column interruptions jsonb not null default '[]';

-- The outbound event a job records is unique per job run: a retried ingest__process finds the
-- event its interrupted attempt committed instead of recording a second one.
alter table outbound_events add column job_run_id uuid references job_runs (id) on delete set null;
create unique index outbound_events_job_run on outbound_events (job_run_id) where job_run_id is not null;
