-- Access inside one tenant's schema (search_path is that schema alone while this runs): users,
-- role profiles and their grants, tenant sessions and the tenant's own audit log.

create table users (
  id uuid primary key default gen_random_uuid(),
  email text not null unique check (email = lower(email) and email like '%_@_%'),
  password_hash text not null,
  full_name text not null default '',
  active boolean not null default true,
  created_at timestamptz not null default clock_timestamp(),
  updated_at timestamptz not null default now()
);
create index users_active_created on users (created_at, id) where active;

-- Named permission sets (viewer, analyst, admin); rows are seeded from the table in
-- sql/tenantRoles.ts at provisioning, so the code holds the one definition.
create table role_profiles (
  id uuid primary key default gen_random_uuid(),
  name text not null unique,
  permissions text[] not null,
  created_at timestamptz not null default now()
);

create table user_role_profiles (
  user_id uuid not null references users (id) on delete cascade,
  role_profile_id uuid not null references role_profiles (id) on delete cascade,
  granted_at timestamptz not null default now(),
  primary key (user_id, role_profile_id)
);

create table sessions (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users (id) on delete cascade,
  token_hash text not null unique,
  ip text,
  user_agent text,
  -- The employee who minted it by impersonation (null for a real login).
  impersonated_by uuid references public.employees (id) on delete set null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  revoked_at timestamptz
);
create index sessions_user_live on sessions (user_id) where revoked_at is null;

-- The tenant's audit trail (logins, impersonations, and later remediation actions); append-only.
create table audit_log (
  id uuid primary key default gen_random_uuid(),
  action text not null,
  actor_type text not null check (actor_type in ('user', 'employee', 'system')),
  actor_id uuid,
  resource_type text,
  resource_id text,
  client_ip text,
  trace_id text,
  metadata jsonb not null default '{}',
  occurred_at timestamptz not null default now()
);
create index audit_log_recent on audit_log (occurred_at desc, id desc);
create trigger audit_log_append_only before update or delete on audit_log
  for each row when (pg_trigger_depth() = 0)
  execute function public.forbid_change();
