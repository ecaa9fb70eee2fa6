-- Webhooks out and in, connectors and the delivery records (issue 12).

create table connectors (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  name text not null,
  kind text not null check (kind in ('webhook', 'http_pull')),
  config jsonb not null default '{}',
  -- http_pull: the cursor the next sync resumes from (null: from the start).
  sync_cursor text,
  last_synced_at timestamptz,
  last_sync_status text check (last_sync_status in ('succeeded', 'failed')),
  last_sync_error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index connectors_workspace on connectors (workspace_id, created_at desc, id);

create table webhooks (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  url text not null,
  event_types text[] not null default '{}',
  enabled boolean not null default true,
  description text not null default '',
  connector_id uuid references connectors (id) on delete set null,
  -- AES-256-GCM under the webhook secret key (lib/secretBox.ts); never stored in plain text.
  secret_ciphertext text not null,
  secret_rotated_at timestamptz,
  -- Start of the current run of failed attempts (null: the last attempt succeeded).
  failing_since timestamptz,
  disabled_reason text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index webhooks_workspace on webhooks (workspace_id, created_at desc, id);
-- The secret of a connector's inbound endpoint is the signing secret of the one webhook tied to it.
create unique index webhooks_connector on webhooks (connector_id) where connector_id is not null;

-- One row per (event, webhook): the unit of at-least-once delivery. `id` is stable across retries.
create table webhook_deliveries (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  webhook_id uuid not null references webhooks (id) on delete cascade,
  event_id uuid not null references outbound_events (id) on delete cascade,
  event_type text not null,
  status text not null default 'queued' check (status in ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
  attempts integer not null default 0,
  -- queued: when the next attempt is due; running: when the worker's lease on it expires.
  next_attempt_at timestamptz not null default now(),
  status_code integer,
  duration_ms integer,
  delivered_at timestamptz,
  last_error text,
  created_at timestamptz not null default now()
);
create index webhook_deliveries_due on webhook_deliveries (webhook_id, next_attempt_at) where status in ('queued', 'running');
create index webhook_deliveries_list on webhook_deliveries (webhook_id, created_at desc, id);
create index webhook_deliveries_event on webhook_deliveries (event_id);

-- Every attempt, as it happened.
create table webhook_delivery_attempts (
  delivery_id uuid not null references webhook_deliveries (id) on delete cascade,
  attempt integer not null,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  status_code integer,
  duration_ms integer not null,
  error text,
  response_preview text,
  attempted_at timestamptz not null default now(),
  primary key (delivery_id, attempt)
);

-- Inbound webhook payloads: accepted ones and the ones that failed after a valid signature.
create table inbound_deliveries (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  connector_id uuid not null references connectors (id) on delete cascade,
  status text not null check (status in ('succeeded', 'failed')),
  error text,
  payload_preview text not null,
  issue_ids uuid[] not null default '{}',
  received_at timestamptz not null default now()
);
create index inbound_deliveries_connector on inbound_deliveries (connector_id, received_at desc);
