-- Onboarding data inside one tenant's schema (search_path is that schema alone while this runs):
-- sources, uploaded files, versioned datasets, the training configuration and data policy, model
-- checkpoints with the insight collections each materialises, and user invitations.

-- Where records come from. `file_upload` sources take POST /sources/{id}/upload.
create table sources (
  id uuid primary key default gen_random_uuid(),
  name text not null unique check (length(name) between 1 and 200),
  kind text not null check (kind in ('file_upload', 'api', 'webhook', 'email')),
  config jsonb not null default '{}',
  created_by_type text not null check (created_by_type in ('employee', 'user', 'system')),
  created_by uuid,
  created_at timestamptz not null default now()
);

-- An uploaded file, parsed at upload: `uploaded` (valid, waiting for commit), `failed` (with the
-- reason) or `committed` (its dataset version exists). Parsed records wait here until commit.
create table uploads (
  id uuid primary key default gen_random_uuid(),
  source_id uuid references sources (id) on delete set null,
  filename text not null,
  format text check (format in ('csv', 'xlsx')),
  byte_size integer not null check (byte_size >= 0),
  sha256 text not null,
  status text not null check (status in ('uploaded', 'failed', 'committed')),
  row_count integer not null default 0,
  duplicate_rows integer not null default 0,
  ignored_columns text[] not null default '{}',
  error_detail text,
  records jsonb,
  uploaded_by_type text not null check (uploaded_by_type in ('employee', 'user')),
  uploaded_by uuid,
  created_at timestamptz not null default now(),
  committed_at timestamptz,
  check ((status = 'failed') = (error_detail is not null))
);
create index uploads_created on uploads (created_at desc, id desc);

-- Versions of the tenant's dataset: version n holds version n-1's records with the upload's merged
-- in (the same (source, external_id) replaces the earlier record).
create table datasets (
  id uuid primary key default gen_random_uuid(),
  version integer not null unique check (version >= 1),
  upload_id uuid not null unique references uploads (id) on delete restrict,
  record_count integer not null,
  records_added integer not null,
  records_updated integer not null,
  created_at timestamptz not null default now()
);

create table dataset_records (
  dataset_id uuid not null references datasets (id) on delete cascade,
  -- Kept from version to version for the same (source, external_id), so models can be compared.
  record_id uuid not null,
  source text not null,
  external_id text not null,
  title text not null,
  narrative text,
  severity text not null check (severity in ('critical', 'high', 'medium', 'low')),
  occurred_at timestamptz,
  primary key (dataset_id, source, external_id),
  unique (dataset_id, record_id)
);

-- The engine's cluster settings for this tenant's training (one row; absent means the defaults).
create table training_config (
  singleton boolean primary key default true check (singleton),
  document jsonb not null,
  config_hash text not null,
  updated_by uuid,
  updated_at timestamptz not null default now()
);

-- What training may use: records older than `retention_days` (by occurred_at) are left out, and
-- with `redact_pii` e-mail addresses and phone numbers are masked when a dataset is committed.
create table data_policy (
  singleton boolean primary key default true check (singleton),
  retention_days integer check (retention_days between 1 and 36500),
  redact_pii boolean not null default false,
  updated_by uuid,
  updated_at timestamptz not null default now()
);

create sequence model_versions;

-- A trained model. At most one is active: the one the insight snapshot reads.
create table checkpoints (
  id uuid primary key default gen_random_uuid(),
  model_version integer not null unique default nextval('model_versions'),
  dataset_id uuid not null references datasets (id) on delete restrict,
  dataset_version integer not null,
  config_hash text not null,
  config jsonb not null,
  engine_version text not null,
  metrics jsonb not null,
  job_run_id uuid unique,
  active boolean not null default false,
  created_at timestamptz not null default now(),
  activated_at timestamptz
);
alter sequence model_versions owned by checkpoints.model_version;
create unique index checkpoints_one_active on checkpoints (active) where active;

-- The insights a checkpoint materialises, written with it in one transaction and never changed:
-- one collection per (dataset_version, model_version).
create table insight_collections (
  id uuid primary key default gen_random_uuid(),
  checkpoint_id uuid not null unique references checkpoints (id) on delete cascade,
  dataset_version integer not null,
  model_version integer not null,
  record_count integer not null,
  clustered_count integer not null,
  created_at timestamptz not null default now(),
  unique (dataset_version, model_version)
);

create table insight_patterns (
  collection_id uuid not null references insight_collections (id) on delete cascade,
  pattern_id uuid not null,
  rank integer not null,
  name text not null,
  size integer not null,
  risk_score integer not null,
  risk_components jsonb not null,
  top_terms text[] not null,
  terms jsonb not null,
  severity_counts jsonb not null,
  stability jsonb not null,
  first_seen_at timestamptz,
  last_seen_at timestamptz,
  member_ids uuid[] not null,
  primary key (collection_id, pattern_id),
  unique (collection_id, rank)
);

-- Invitations to the tenant's workspace: the token is kept only as its SHA-256 hash.
create table invitations (
  id uuid primary key default gen_random_uuid(),
  email text not null check (email = lower(email) and email like '%_@_%'),
  full_name text,
  role_profile text not null references role_profiles (name) on update cascade on delete restrict,
  token_hash text not null unique,
  status text not null default 'pending' check (status in ('pending', 'accepted')),
  invited_by uuid,
  expires_at timestamptz not null,
  created_at timestamptz not null default now(),
  accepted_at timestamptz,
  accepted_user_id uuid references users (id) on delete set null
);
create index invitations_created on invitations (created_at desc, id desc);
