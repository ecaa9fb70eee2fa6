-- Issue 16: multi-factor authentication, single sign-on connections and SCIM 2.0 provisioning.

alter table workspaces
  add column mfa_required boolean not null default false,
  add column sso_required boolean not null default false;

-- Second factors belong to the user (not to one workspace): a TOTP secret (AES-256-GCM ciphertext,
-- lib/secretBox.ts) or an SMS phone number. A TOTP step is accepted at most once (last_used_step);
-- failed attempts lock the factor for a while (failed_attempts, locked_until).
create table mfa_factors (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users (id) on delete cascade,
  type text not null check (type in ('totp', 'sms')),
  status text not null default 'pending' check (status in ('pending', 'verified')),
  secret_ciphertext text,
  phone_number text,
  challenge_hash text,
  challenge_expires_at timestamptz,
  last_used_step bigint,
  failed_attempts integer not null default 0,
  locked_until timestamptz,
  created_at timestamptz not null default now(),
  verified_at timestamptz,
  check ((type = 'totp') = (secret_ciphertext is not null)),
  check ((type = 'sms') = (phone_number is not null))
);
create index mfa_factors_user on mfa_factors (user_id, created_at, id);

create table mfa_recovery_codes (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users (id) on delete cascade,
  code_hash text not null unique,
  created_at timestamptz not null default now(),
  used_at timestamptz
);
create index mfa_recovery_codes_user on mfa_recovery_codes (user_id);

-- Text messages, kept like outbox_emails: the default sender only records and logs them.
create table outbox_sms (
  id uuid primary key default gen_random_uuid(),
  to_number text not null,
  body text not null,
  status text not null default 'logged' check (status in ('logged', 'sent', 'failed')),
  created_at timestamptz not null default now()
);

create table sso_connections (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  type text not null check (type in ('oidc', 'saml')),
  name text not null,
  domains text[] not null default '{}',
  redirect_uris text[] not null default '{}',
  oidc_issuer text,
  oidc_client_id text,
  oidc_client_secret_ciphertext text,
  saml_idp_entity_id text,
  saml_idp_sso_url text,
  saml_idp_certificate text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, name),
  check (type <> 'oidc' or (oidc_issuer is not null and oidc_client_id is not null and oidc_client_secret_ciphertext is not null)),
  check (type <> 'saml' or (saml_idp_entity_id is not null and saml_idp_sso_url is not null and saml_idp_certificate is not null))
);
create index sso_connections_list on sso_connections (workspace_id, created_at desc, id desc);

-- One row per started SSO sign-in: the state (hashed), PKCE verifier and nonce, used once.
create table sso_login_states (
  state_hash text primary key,
  connection_id uuid not null references sso_connections (id) on delete cascade,
  redirect_uri text,
  code_verifier text,
  nonce text,
  saml_request_id text,
  expires_at timestamptz not null,
  used_at timestamptz,
  created_at timestamptz not null default now()
);

-- SAML assertion ids already consumed (replay protection), kept until the assertion expires.
create table saml_consumed_assertions (
  connection_id uuid not null references sso_connections (id) on delete cascade,
  assertion_id text not null,
  expires_at timestamptz not null,
  primary key (connection_id, assertion_id)
);

create table scim_tokens (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  name text not null,
  token_hash text not null unique,
  created_by text,
  created_at timestamptz not null default now(),
  revoked_at timestamptz,
  last_used_at timestamptz
);
create index scim_tokens_list on scim_tokens (workspace_id, created_at desc, id desc);

-- A provisioned user of one workspace. Active users hold a membership whose role follows their
-- groups; deactivated ones stay listed with active = false and hold none.
create table scim_users (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  user_id uuid not null references users (id) on delete cascade,
  user_name text not null,
  external_id text,
  active boolean not null default true,
  display_name text,
  given_name text,
  family_name text,
  emails jsonb not null default '[]',
  extra jsonb not null default '{}',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (workspace_id, user_id)
);
create unique index scim_users_user_name on scim_users (workspace_id, lower(user_name));
create index scim_users_list on scim_users (workspace_id, created_at, id);

create table scim_groups (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  display_name text not null,
  external_id text,
  role text not null check (role in ('admin', 'member', 'viewer')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index scim_groups_display_name on scim_groups (workspace_id, lower(display_name));
create index scim_groups_list on scim_groups (workspace_id, created_at, id);

create table scim_group_members (
  group_id uuid not null references scim_groups (id) on delete cascade,
  scim_user_id uuid not null references scim_users (id) on delete cascade,
  primary key (group_id, scim_user_id)
);
create index scim_group_members_user on scim_group_members (scim_user_id);
