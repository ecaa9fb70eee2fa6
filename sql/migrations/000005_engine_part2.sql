-- Engine part 2: the latest hazard fit, prediction and financials of every pattern, crest alerts,
-- each run's backtest, fix recommendations (whose status a human moves to implemented) and the CUSUM
-- verification of implemented fixes. Every row carries its workspace, the run that produced it and
-- provenance. Pattern references are checked at commit: a run writes these rows before the rows of
-- the patterns it creates (sql/engineResults.ts writes pattern rows after the events).

-- Stage 8: one row per pattern of the latest run, fitted or not (with the reason).
create table pattern_hazards (
  pattern_id uuid primary key references patterns (id) on delete cascade deferrable initially deferred,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  run_id uuid not null references engine_runs (id) on delete cascade,
  status text not null check (status in ('fitted', 'not_fitted')),
  reason text check (reason in ('no_timestamps', 'insufficient_events')),
  -- The stage's output for the pattern (model, parameters, curves, forecast; or the not-fitted detail).
  hazard jsonb not null,
  provenance jsonb not null,
  updated_at timestamptz not null default now(),
  check ((status = 'fitted') = (reason is null))
);
create index pattern_hazards_workspace on pattern_hazards (workspace_id);

-- Crest alerts: open while a pattern's recurrence probability within the alert horizon stays at or
-- above the threshold; one open alert per pattern at a time.
create table pattern_alerts (
  id uuid primary key,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  pattern_id uuid not null references patterns (id) on delete cascade deferrable initially deferred,
  -- The run that raised it, and the latest run that saw it (its probability is that run's).
  run_id uuid not null references engine_runs (id) on delete cascade,
  last_run_id uuid not null references engine_runs (id) on delete cascade,
  status text not null check (status in ('open', 'resolved')),
  probability double precision not null check (probability between 0 and 1),
  lower double precision not null,
  upper double precision not null,
  threshold double precision not null,
  horizon_days integer not null,
  since_last_days double precision not null,
  last_occurrence_at timestamptz not null,
  as_of timestamptz not null,
  raised_at timestamptz not null,
  resolved_at timestamptz,
  resolved_run_id uuid references engine_runs (id) on delete cascade,
  provenance jsonb not null
);
create unique index pattern_alerts_one_open on pattern_alerts (workspace_id, pattern_id) where status = 'open';
create index pattern_alerts_list on pattern_alerts (workspace_id, raised_at desc, id desc);
create index pattern_alerts_probability on pattern_alerts (workspace_id, probability desc, id desc);

-- Stage 9: the latest prediction of every fitted pattern.
create table predictions (
  id uuid primary key,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  pattern_id uuid not null references patterns (id) on delete cascade deferrable initially deferred,
  run_id uuid not null references engine_runs (id) on delete cascade,
  p_recurrence double precision not null check (p_recurrence between 0 and 1),
  expected_time_to_next_days double precision not null,
  horizon_days integer not null,
  prediction jsonb not null,
  provenance jsonb not null,
  created_at timestamptz not null default now()
);
create unique index predictions_pattern on predictions (workspace_id, pattern_id);
create index predictions_probability on predictions (workspace_id, p_recurrence desc, id desc);
create index predictions_time_to_next on predictions (workspace_id, expected_time_to_next_days, id);

-- Stage 9: every run's rolling-origin backtest (kept per run: how accuracy moves as data grows).
create table prediction_backtests (
  run_id uuid primary key references engine_runs (id) on delete cascade,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  as_of timestamptz not null,
  backtest jsonb not null,
  provenance jsonb not null,
  created_at timestamptz not null default now()
);
create index prediction_backtests_list on prediction_backtests (workspace_id, created_at desc, run_id desc);

-- Stage 10: the latest financials of every pattern.
create table pattern_financials (
  pattern_id uuid primary key references patterns (id) on delete cascade deferrable initially deferred,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  run_id uuid not null references engine_runs (id) on delete cascade,
  financials jsonb not null,
  provenance jsonb not null,
  updated_at timestamptz not null default now()
);
create index pattern_financials_workspace on pattern_financials (workspace_id);

-- Stage 10: fix recommendations. A run replaces the proposed and abstained ones; an implemented one
-- is a human's record and stays (its business case is refreshed while runs still produce it).
create table recommendations (
  id uuid primary key,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  pattern_id uuid not null references patterns (id) on delete cascade deferrable initially deferred,
  run_id uuid not null references engine_runs (id) on delete cascade,
  status text not null check (status in ('proposed', 'abstained', 'implemented')),
  root_cause text,
  confidence double precision,
  roi double precision,
  recommendation jsonb not null,
  provenance jsonb not null,
  implemented_at timestamptz,
  implemented_by jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check ((status = 'implemented') = (implemented_at is not null))
);
create unique index recommendations_pattern on recommendations (workspace_id, pattern_id);
create index recommendations_list on recommendations (workspace_id, created_at desc, id desc);
create index recommendations_roi on recommendations (workspace_id, (coalesce(roi, '-infinity'::double precision)) desc, id desc);
create index recommendations_implemented on recommendations (workspace_id) where status = 'implemented';

-- CUSUM verification of an implemented fix: the latest result, recomputed by recommendation__verify.
create table recommendation_verifications (
  recommendation_id uuid primary key references recommendations (id) on delete cascade,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  pattern_id uuid not null references patterns (id) on delete cascade,
  run_id uuid references engine_runs (id) on delete set null,
  verdict text not null check (verdict in ('insufficient_data', 'holding', 'regressed')),
  verification jsonb not null,
  provenance jsonb not null,
  as_of timestamptz not null,
  regressed_at timestamptz,
  computed_at timestamptz not null default now()
);
create index recommendation_verifications_workspace on recommendation_verifications (workspace_id, verdict);
