-- Foundation: process-wide settings, the job ledger, the idempotency cache and rate-limit counters.

-- Secrets generated once per installation (development JWT key, cursor signing key).
create table app_settings (
  key text primary key,
  value text not null,
  created_at timestamptz not null default now()
);

-- graphile-worker deletes finished jobs; job_runs is the durable, pollable record of every job.
create table job_runs (
  id uuid primary key default gen_random_uuid(),
  kind text not null,
  workspace_id uuid,
  tenant_id uuid,
  status text not null default 'queued'
    check (status in ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
  progress smallint not null default 0 check (progress between 0 and 100),
  steps_completed text[] not null default '{}',
  error_detail text,
  result jsonb,
  payload jsonb not null default '{}',
  attempts integer not null default 0,
  max_attempts integer not null default 5 check (max_attempts >= 1),
  job_key text unique,
  worker_job_id bigint,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz
);
create index job_runs_workspace_created on job_runs (workspace_id, created_at desc, id desc) where workspace_id is not null;
create index job_runs_tenant_created on job_runs (tenant_id, created_at desc, id desc) where tenant_id is not null;
create index job_runs_active on job_runs (kind, status) where status in ('queued', 'running');

-- Idempotency cache of the /v1 surface: (hash of Authorization, key, path) -> first 2xx response.
create table idempotency_keys (
  auth_hash text not null,
  idempotency_key text not null,
  path text not null,
  request_hash text not null,
  state text not null check (state in ('in_flight', 'completed')),
  response_status integer,
  response_headers jsonb,
  response_body text,
  locked_until timestamptz not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  primary key (auth_hash, idempotency_key, path)
);
create index idempotency_keys_expires on idempotency_keys (expires_at);

-- Shared rate-limit counters (RATE_LIMIT_STORE=postgres): one row per client key holding the
-- current and previous fixed windows of a sliding-window counter.
create table rate_limit_counters (
  key text primary key,
  window_start_ms bigint not null,
  current_hits integer not null,
  previous_hits integer not null,
  updated_at timestamptz not null default now()
);

/*
 * Takes one hit for p_key if the sliding-window estimate allows it, atomically.
 * estimate = previous_hits * (1 - elapsed/window) + current_hits  (the weighted two-window
 * approximation of a sliding log, as Cloudflare describes it). Denied attempts are not counted.
 * Mirrors slidingWindowTake() in api/http/rateLimit.ts; the test suite runs both stores.
 */
create function rate_limit_take(p_key text, p_limit integer, p_window_ms bigint, p_now_ms bigint)
returns table (allowed boolean, remaining integer, retry_after_ms bigint)
language plpgsql as $$
declare
  v_window_start bigint := p_now_ms - (p_now_ms % p_window_ms);
  v_row rate_limit_counters;
  v_current integer := 0;
  v_previous integer := 0;
  v_elapsed bigint := p_now_ms - v_window_start;
  v_weight double precision;
  v_estimate double precision;
  v_wait double precision;
begin
  insert into rate_limit_counters (key, window_start_ms, current_hits, previous_hits)
  values (p_key, v_window_start, 0, 0)
  on conflict (key) do nothing;
  select * into v_row from rate_limit_counters where key = p_key for update;

  if v_row.window_start_ms = v_window_start then
    v_current := v_row.current_hits; v_previous := v_row.previous_hits;
  elsif v_row.window_start_ms = v_window_start - p_window_ms then
    v_previous := v_row.current_hits;
  end if;

  v_weight := (p_window_ms - v_elapsed)::double precision / p_window_ms;
  v_estimate := v_previous * v_weight + v_current;
  if v_estimate + 1 <= p_limit then
    update rate_limit_counters
       set window_start_ms = v_window_start, current_hits = v_current + 1, previous_hits = v_previous, updated_at = now()
     where key = p_key;
    return query select true, greatest(0, floor(p_limit - v_estimate - 1))::integer, 0::bigint;
  else
    update rate_limit_counters
       set window_start_ms = v_window_start, current_hits = v_current, previous_hits = v_previous, updated_at = now()
     where key = p_key;
    -- Earliest time the estimate drops to limit - 1: first inside this window (the previous
    -- window's weight decays), otherwise in the next one (this window becomes the previous).
    if v_current <= p_limit - 1 and v_previous > 0 then
      v_wait := p_window_ms * (1 - (p_limit - 1 - v_current)::double precision / v_previous) - v_elapsed;
    else
      v_wait := (p_window_ms - v_elapsed) + p_window_ms * (1 - (p_limit - 1)::double precision / greatest(v_current, 1));
    end if;
    return query select false, 0, greatest(1, ceil(v_wait))::bigint;
  end if;
end;
$$;
