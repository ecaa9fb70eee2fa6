-- E-mail domains a workspace claims for just-in-time sign-up. A claim is verified by a DNS TXT record
-- `_svc-verification.<domain>` holding `svc-verification=<token>`; a domain is verified by at most
-- one workspace at a time.
create table workspace_domains (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  domain text not null check (domain = lower(domain)),
  verification_token text not null,
  created_at timestamptz not null default now(),
  verified_at timestamptz,
  unique (workspace_id, domain)
);
create unique index workspace_domains_verified_once on workspace_domains (domain) where verified_at is not null;
