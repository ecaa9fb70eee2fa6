-- The append-only event log with its gap-free per-workspace sequence, the issue and pattern
-- projections, the review queue, the config registry and outbound events.

create table workspace_event_counters (
  workspace_id uuid primary key references workspaces (id) on delete cascade,
  last_sequence bigint not null default 0
);

create table events (
  workspace_id uuid not null references workspaces (id) on delete cascade,
  sequence bigint not null,
  id uuid not null default gen_random_uuid() unique,
  aggregate_type text not null,
  aggregate_id uuid not null,
  event_type text not null,
  payload jsonb not null,
  actor_type text not null,
  actor_id text,
  occurred_at timestamptz not null default now(),
  recorded_at timestamptz not null default now(),
  primary key (workspace_id, sequence)
);
create index events_aggregate on events (workspace_id, aggregate_type, aggregate_id, sequence);

-- Nothing updates or deletes an event (rows leave only with their workspace's cascade).
create trigger events_append_only before update or delete on events
  for each row when (pg_trigger_depth() = 0)
  execute function forbid_change();
create trigger events_no_truncate before truncate on events
  for each statement execute function forbid_change();
create trigger audit_events_no_truncate before truncate on audit_events
  for each statement execute function forbid_change();

-- Issues: a projection of the issue.* events (sql/issueProjection.ts folds the same events).
create table issues (
  id uuid primary key,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  source text not null,
  external_id text,
  title text not null,
  narrative text,
  severity text not null check (severity in ('critical', 'high', 'medium', 'low')),
  status text not null check (status in ('open', 'in_progress', 'resolved', 'closed')),
  engine_status text not null check (engine_status in ('eligible', 'blocked_no_narrative', 'ineligible')),
  ineligible_reason text,
  occurred_at timestamptz,
  source_created_at timestamptz not null,
  pattern_id uuid,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  resolved_at timestamptz,
  closed_at timestamptz,
  version integer not null,
  search tsvector generated always as (
    setweight(to_tsvector('english', coalesce(title, '')), 'A') || setweight(to_tsvector('english', coalesce(narrative, '')), 'B')
  ) stored
);
create unique index issues_source_external on issues (workspace_id, source, external_id) where external_id is not null;
create index issues_workspace_created on issues (workspace_id, created_at desc, id desc);
create index issues_workspace_source_created on issues (workspace_id, source_created_at desc, id desc);
create index issues_workspace_pattern on issues (workspace_id, pattern_id) where pattern_id is not null;
create index issues_workspace_status on issues (workspace_id, status);
create index issues_search on issues using gin (search);

-- Patterns: a projection of the pattern.* events, written by the engine.
create table patterns (
  id uuid primary key,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  name text not null,
  status text not null check (status in ('active', 'resolved', 'watching')),
  risk_score integer not null check (risk_score between 0 and 100),
  issue_count integer not null check (issue_count >= 0),
  first_seen_at timestamptz,
  last_seen_at timestamptz,
  domain text,
  root_cause text,
  top_terms text[] not null default '{}',
  provenance jsonb not null default '{}',
  created_at timestamptz not null,
  updated_at timestamptz not null,
  version integer not null,
  last_sequence bigint not null
);
create index patterns_workspace_risk on patterns (workspace_id, risk_score desc, id desc);
create index patterns_workspace_count on patterns (workspace_id, issue_count desc, id desc);
create index patterns_workspace_seen on patterns (workspace_id, last_seen_at desc nulls last, id desc);

-- The review queue: items the engine (or ingest) could not decide and a human must.
create table review_items (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  kind text not null check (kind in ('missing_narrative', 'extraction', 'root_cause', 'criticality')),
  status text not null default 'open' check (status in ('open', 'resolved', 'dismissed')),
  issue_id uuid references issues (id) on delete cascade,
  pattern_id uuid references patterns (id) on delete set null,
  reason text not null,
  candidates jsonb not null default '[]',
  provenance jsonb not null default '{}',
  decision jsonb,
  decided_by text,
  decided_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index review_items_list on review_items (workspace_id, created_at desc, id desc);
create index review_items_status on review_items (workspace_id, status, kind);
create unique index review_items_one_open on review_items (workspace_id, issue_id, kind) where status = 'open';

-- Config registry: immutable, content-addressed documents (id = SHA-256 of the canonical JSON).
create table config_versions (
  workspace_id uuid not null references workspaces (id) on delete cascade,
  kind text not null check (kind in ('rubric', 'cluster', 'hazard', 'rate-card', 'taxonomy')),
  id text not null check (id ~ '^[0-9a-f]{64}$'),
  document jsonb not null,
  created_by text,
  created_at timestamptz not null default clock_timestamp(),
  primary key (workspace_id, kind, id)
);
create index config_versions_history on config_versions (workspace_id, kind, created_at desc);
create trigger config_versions_immutable before update on config_versions
  for each row execute function forbid_change();

-- An explicit activation pins a version; without one the newest version is active.
create table config_activations (
  workspace_id uuid not null references workspaces (id) on delete cascade,
  kind text not null,
  version_id text not null,
  activated_by text,
  activated_at timestamptz not null default now(),
  primary key (workspace_id, kind),
  foreign key (workspace_id, kind, version_id) references config_versions (workspace_id, kind, id) on delete cascade
);

-- Events for the outside world (outbound webhooks fan out from here).
create table outbound_events (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  event_type text not null,
  payload jsonb not null,
  created_at timestamptz not null default now()
);
create index outbound_events_workspace on outbound_events (workspace_id, created_at desc);
