-- Product surface, access half: staff (employees) and their sessions, the tenant registry whose
-- tenants each own an isolated schema (tenant_<id without dashes>, see sql/tenantSchema.ts), login
-- attempt windows shared by every process, the control audit log and password-reset tokens.

create table employees (
  id uuid primary key default gen_random_uuid(),
  email text not null unique check (email = lower(email) and email like '%_@_%'),
  password_hash text not null,
  full_name text not null default '',
  control_role text not null check (control_role in ('onboarding_admin', 'support_readonly')),
  active boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table employee_sessions (
  id uuid primary key default gen_random_uuid(),
  employee_id uuid not null references employees (id) on delete cascade,
  token_hash text not null unique,
  ip text,
  user_agent text,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  revoked_at timestamptz
);
create index employee_sessions_live on employee_sessions (employee_id) where revoked_at is null;

create table tenants (
  id uuid primary key default gen_random_uuid(),
  slug text not null unique check (length(slug) between 3 and 63 and slug ~ '^[a-z0-9]([a-z0-9-]*[a-z0-9])?$'),
  company text not null,
  industry text,
  lifecycle_state text not null default 'draft'
    check (lifecycle_state in ('draft', 'provisioning', 'onboarding', 'live', 'offboarded')),
  -- Derived from the id, never from input: the one identifier interpolated into tenant SQL.
  schema_name text not null unique generated always as ('tenant_' || replace(id::text, '-', '')) stored,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index tenants_live on tenants (created_at) where lifecycle_state = 'live';

alter table job_runs
  add constraint job_runs_tenant_fk foreign key (tenant_id) references tenants (id) on delete cascade;
alter table outbox_emails
  add constraint outbox_emails_tenant_fk foreign key (tenant_id) references tenants (id) on delete cascade;

-- Fixed login windows: a key's window opens with its first attempt and lasts the budget's window;
-- the attempt that opened it is the oldest, so Retry-After is window_started_at + window - now.
-- Keys: `ip:{ip}`, `employee:{email}`, `tenant:{tenant_id}:{email}`.
create table login_attempts (
  key text primary key,
  window_started_at timestamptz not null,
  attempts integer not null check (attempts >= 0),
  updated_at timestamptz not null default now()
);

-- Control-plane audit (employee_login, employee_impersonation, …); append-only.
create table control_audit_events (
  id uuid primary key default gen_random_uuid(),
  action text not null,
  actor_type text not null check (actor_type in ('employee', 'system')),
  actor_id uuid,
  resource_type text,
  resource_id text,
  tenant_id uuid references tenants (id) on delete cascade,
  client_ip text,
  user_agent text,
  trace_id text,
  metadata jsonb not null default '{}',
  occurred_at timestamptz not null default now()
);
create index control_audit_events_recent on control_audit_events (occurred_at desc, id desc);
create index control_audit_events_tenant on control_audit_events (tenant_id, occurred_at desc) where tenant_id is not null;
create trigger control_audit_events_append_only before update or delete on control_audit_events
  for each row when (pg_trigger_depth() = 0)
  execute function forbid_change();

-- One-time password-reset links, for an employee or for a user inside a tenant's schema.
create table password_reset_tokens (
  id uuid primary key default gen_random_uuid(),
  token_hash text not null unique,
  subject_type text not null check (subject_type in ('employee', 'tenant_user')),
  employee_id uuid references employees (id) on delete cascade,
  tenant_id uuid references tenants (id) on delete cascade,
  tenant_user_id uuid,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz,
  check ((subject_type = 'employee' and employee_id is not null and tenant_id is null and tenant_user_id is null)
      or (subject_type = 'tenant_user' and employee_id is null and tenant_id is not null and tenant_user_id is not null))
);
