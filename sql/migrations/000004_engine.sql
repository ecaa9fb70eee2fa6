-- Engine runs: the run record with its manifest, each stage's stored output, the patterns a run
-- produced (what the next run matches against), and the latest extraction of every issue.

create table engine_runs (
  id uuid primary key,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  job_run_id uuid references job_runs (id) on delete set null,
  trigger text not null check (trigger in ('api', 'cli')),
  as_of timestamptz not null,
  event_sequence bigint,
  previous_run_id uuid references engine_runs (id) on delete set null,
  -- A run of a slice of stages reads the earlier stages' outputs from this run.
  base_run_id uuid references engine_runs (id) on delete set null,
  config_versions jsonb not null,
  engine_version text not null,
  seed bigint not null,
  stage_from text not null,
  stage_to text not null,
  input_digest text,
  output_digest text,
  stages jsonb not null default '[]',
  stability_report jsonb,
  summary jsonb,
  created_at timestamptz not null default now(),
  finished_at timestamptz
);
create index engine_runs_list on engine_runs (workspace_id, created_at desc, id desc);

create table engine_stage_outputs (
  run_id uuid not null references engine_runs (id) on delete cascade,
  stage text not null,
  digest text not null,
  bytes bigint not null,
  duration_ms integer not null,
  data bytea not null,
  created_at timestamptz not null default now(),
  primary key (run_id, stage)
);

create table engine_pattern_outputs (
  run_id uuid not null references engine_runs (id) on delete cascade,
  pattern_id uuid not null,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  member_ids uuid[] not null,
  terms jsonb not null,
  rollup jsonb not null,
  stability jsonb not null,
  risk_components jsonb not null,
  provenance jsonb not null,
  primary key (run_id, pattern_id)
);
create index engine_pattern_outputs_pattern on engine_pattern_outputs (workspace_id, pattern_id);

create table issue_extractions (
  issue_id uuid primary key references issues (id) on delete cascade,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  run_id uuid not null references engine_runs (id) on delete cascade,
  domain jsonb not null,
  root_cause jsonb not null,
  criticality jsonb not null,
  provenance jsonb not null,
  updated_at timestamptz not null default now()
);
create index issue_extractions_workspace on issue_extractions (workspace_id);
