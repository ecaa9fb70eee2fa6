-- Identity and access of the /v1 surface: organizations, workspaces, users, memberships,
-- invitations, refresh-token families, service accounts and their tokens, workspace API keys,
-- the security audit log and the e-mail outbox.

create table organizations (
  id uuid primary key default gen_random_uuid(),
  slug text not null unique check (slug ~ '^[a-z0-9][a-z0-9-]*$' and length(slug) <= 63),
  name text not null,
  plan text not null default 'free' check (plan in ('free', 'starter', 'growth', 'enterprise')),
  seats integer check (seats is null or seats >= 0),
  timezone text,
  created_at timestamptz not null default now()
);

create table workspaces (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  name text not null,
  -- Just-in-time provisioning: off unless an admin opts in, and then only for verified e-mail
  -- addresses in these domains.
  jit_enabled boolean not null default false,
  jit_domains text[] not null default '{}',
  jit_role text not null default 'member' check (jit_role in ('admin', 'member', 'viewer')),
  created_at timestamptz not null default now()
);
create index workspaces_organization on workspaces (organization_id);

create table users (
  id uuid primary key default gen_random_uuid(),
  email text not null,
  name text not null,
  created_at timestamptz not null default now()
);
create unique index users_email on users (lower(email));

-- Upstream identities (OIDC issuer + subject) linked to users.
create table user_identities (
  issuer text not null,
  subject text not null,
  user_id uuid not null references users (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (issuer, subject)
);
create index user_identities_user on user_identities (user_id);

create table memberships (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  user_id uuid not null references users (id) on delete cascade,
  role text not null check (role in ('owner', 'admin', 'member', 'viewer')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, user_id)
);
create index memberships_user on memberships (user_id, created_at);

create table invitations (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  email text not null,
  role text not null check (role in ('owner', 'admin', 'member', 'viewer')),
  token_hash text not null unique,
  status text not null default 'pending' check (status in ('pending', 'accepted', 'revoked')),
  invited_by uuid references users (id) on delete set null,
  expires_at timestamptz not null,
  accepted_at timestamptz,
  accepted_by uuid references users (id) on delete set null,
  created_at timestamptz not null default now()
);
create index invitations_workspace on invitations (workspace_id, created_at desc, id desc);

-- A token family is one sign-in: its access tokens carry the family id, its refresh tokens rotate
-- inside it, and revoking it (logout, refresh-token reuse) invalidates all of them at once.
create table token_families (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users (id) on delete cascade,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  scopes text[] not null,
  created_at timestamptz not null default now(),
  revoked_at timestamptz,
  revoked_reason text
);
create index token_families_user on token_families (user_id);

create table refresh_tokens (
  id uuid primary key default gen_random_uuid(),
  family_id uuid not null references token_families (id) on delete cascade,
  token_hash text not null unique,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  rotated_at timestamptz
);
create index refresh_tokens_family on refresh_tokens (family_id);

create table service_accounts (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  name text not null,
  scopes text[] not null,
  status text not null default 'active' check (status in ('active')),
  created_by uuid,
  created_at timestamptz not null default now(),
  unique (workspace_id, name)
);
create index service_accounts_list on service_accounts (workspace_id, created_at desc, id desc);

create table service_account_tokens (
  id uuid primary key default gen_random_uuid(),
  service_account_id uuid not null references service_accounts (id) on delete cascade,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  name text not null,
  token_hash text not null unique,
  expires_at timestamptz not null,
  created_at timestamptz not null default now(),
  revoked_at timestamptz,
  last_used_at timestamptz
);
create index service_account_tokens_account on service_account_tokens (service_account_id, created_at desc, id desc);

-- Workspace API keys (issued by client provisioning): bearer tokens with explicit scopes.
create table api_keys (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  note text not null,
  token_hash text not null unique,
  scopes text[] not null,
  created_at timestamptz not null default now(),
  revoked_at timestamptz,
  last_used_at timestamptz
);
create index api_keys_workspace on api_keys (workspace_id);

-- Append-only security audit log. workspace_id is null for events with no workspace yet
-- (a denied login of an unknown identity).
create table audit_events (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid references workspaces (id) on delete cascade,
  action text not null,
  actor_type text not null check (actor_type in ('user', 'service_account', 'api_key', 'provisioning_key', 'identity', 'system')),
  actor_id text,
  target_type text,
  target_id text,
  client_ip text,
  trace_id text,
  metadata jsonb not null default '{}',
  occurred_at timestamptz not null default now()
);
create index audit_events_workspace on audit_events (workspace_id, occurred_at desc, id desc);

create function forbid_change() returns trigger language plpgsql as $$
begin
  raise exception '% is append-only: % is not allowed', tg_table_name, tg_op using errcode = 'restrict_violation';
end;
$$;
create trigger audit_events_append_only before update or delete on audit_events
  -- Direct changes are refused; rows leave only through the cascade of a deleted workspace.
  for each row when (pg_trigger_depth() = 0)
  execute function forbid_change();

-- Every e-mail the service sends; the mail__send job delivers it (or, without SMTP_URL, logs it).
create table outbox_emails (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid references workspaces (id) on delete cascade,
  tenant_id uuid,
  to_address text not null,
  subject text not null,
  text_body text not null,
  html_body text,
  status text not null default 'queued' check (status in ('queued', 'sent', 'logged', 'failed')),
  error_detail text,
  created_at timestamptz not null default now(),
  sent_at timestamptz
);

alter table job_runs
  add constraint job_runs_workspace_fk foreign key (workspace_id) references workspaces (id) on delete cascade;
