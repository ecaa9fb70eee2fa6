-- Remediation inside one tenant's schema (search_path is that schema alone while this runs):
-- corrective action plans (CAPs), the reviews that approve or reject them, and an ordering column
-- for the tenant audit log. The CAP statuses and their transitions are declared once in
-- sql/capWorkflow.ts; the status check and the open-CAP predicate below mirror it.

create table caps (
  id uuid primary key default gen_random_uuid(),
  -- Optimistic concurrency: every change adds one; PATCH names the version it was based on.
  version integer not null default 1 check (version >= 1),
  status text not null default 'draft'
    check (status in ('draft', 'submitted', 'approved', 'in_progress', 'verified', 'closed', 'rejected', 'cancelled')),
  title text not null check (length(title) between 1 and 200),
  problem_statement text check (length(problem_statement) between 1 and 10000),
  target_type text not null check (target_type in ('pattern', 'recommendation', 'record', 'source', 'other')),
  target_id text not null check (length(target_id) between 1 and 200),
  owner_user_id uuid references users (id) on delete set null,
  due_date date,
  created_by uuid references users (id) on delete set null,
  created_at timestamptz not null default clock_timestamp(),
  updated_at timestamptz not null default now(),
  -- What makes two CAPs on one target the same plan (rule 3): the problem statement, or the title
  -- when there is none.
  dedupe_key text generated always as (
    case when problem_statement is null then 'title:' || title else 'problem:' || problem_statement end) stored
);
-- At most one open (non-terminal) CAP per target and dedupe key: concurrent identical POSTs meet
-- here (INSERT … ON CONFLICT DO NOTHING waits for the other insert and then finds its row).
-- md5 keeps the index entry small whatever the length of the problem statement.
create unique index caps_open_dedupe on caps (target_type, target_id, md5(dedupe_key))
  where status not in ('closed', 'rejected', 'cancelled');
create index caps_target on caps (target_type, target_id);
create index caps_created on caps (created_at desc, id desc);

-- A request to approve a CAP, created when the CAP is submitted; decided exactly once.
create table reviews (
  id uuid primary key default gen_random_uuid(),
  cap_id uuid not null references caps (id) on delete cascade,
  -- The CAP version that was submitted for review.
  cap_version integer not null,
  decision text check (decision in ('approved', 'rejected')),
  comment text check (length(comment) <= 5000),
  requested_by uuid references users (id) on delete set null,
  decided_by uuid references users (id) on delete set null,
  created_at timestamptz not null default clock_timestamp(),
  decided_at timestamptz,
  check ((decision is null) = (decided_at is null))
);
create unique index reviews_one_pending on reviews (cap_id) where decision is null;
create index reviews_created on reviews (created_at desc, id desc);

-- Rows written in one transaction share occurred_at (now()); seq orders them as written, so "most
-- recent first" and the export's order are total and stable.
alter table audit_log add column seq bigint generated always as identity;
create unique index audit_log_seq on audit_log (seq);
create index audit_log_recent_seq on audit_log (occurred_at desc, seq desc);
