-- Notifications (issue 13): per-member preferences, the notifications themselves (one per member,
-- kind and subject, whatever retries happen), their e-mail and chat deliveries, an unread counter
-- per member, and the Postgres NOTIFY feeds of the realtime WebSocket.

-- Only saved preferences have a row: a member who never saved reads the defaults.
create table notification_preferences (
  workspace_id uuid not null references workspaces (id) on delete cascade,
  user_id uuid not null references users (id) on delete cascade,
  preferences jsonb not null,
  updated_at timestamptz not null default now(),
  primary key (workspace_id, user_id)
);

create table notifications (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces (id) on delete cascade,
  user_id uuid not null references users (id) on delete cascade,
  kind text not null check (kind in (
    'high_confidence_prediction', 'issue_escalated_critical', 'member_invited', 'new_issue_ingested', 'new_prediction',
    'pattern_confirmed', 'pattern_detected', 'recommendation_pushed', 'weekly_digest')),
  subject_type text not null,
  subject_id text not null,
  title text not null,
  body text not null,
  link text,
  -- Shown in the in-app inbox (the member's matrix had in_app for the kind).
  in_app boolean not null,
  created_at timestamptz not null default now(),
  read_at timestamptz,
  -- A notification is sent once per member, kind and subject, even when the job that routes it retries.
  constraint notifications_once unique (workspace_id, user_id, kind, subject_id)
);
create index notifications_inbox on notifications (workspace_id, user_id, created_at desc, id desc) where in_app;

-- Unread in-app notifications per member, kept in step by the writes (insert, mark read) in their own
-- transactions: GET /v1/me/notifications/unread-count reads one row by primary key.
create table notification_unread_counts (
  workspace_id uuid not null references workspaces (id) on delete cascade,
  user_id uuid not null references users (id) on delete cascade,
  unread integer not null default 0 check (unread >= 0),
  primary key (workspace_id, user_id)
);

-- What goes out by e-mail or chat, and when: at once, after quiet hours, or in a digest.
create table notification_deliveries (
  id uuid primary key default gen_random_uuid(),
  notification_id uuid not null references notifications (id) on delete cascade,
  workspace_id uuid not null references workspaces (id) on delete cascade,
  user_id uuid not null references users (id) on delete cascade,
  channel text not null check (channel in ('email', 'chat')),
  status text not null default 'pending' check (status in ('pending', 'queued', 'sent', 'failed')),
  -- true: collected into the member's daily or weekly digest e-mail.
  digest boolean not null default false,
  due_at timestamptz not null,
  sent_at timestamptz,
  detail text,
  created_at timestamptz not null default now(),
  unique (notification_id, channel)
);
create index notification_deliveries_due on notification_deliveries (due_at) where status = 'pending';

-- Realtime: every statement that appends events announces, per workspace, the last sequence it
-- wrote; NOTIFY is delivered at commit, in commit order, to every listening API process.
create function announce_events() returns trigger language plpgsql as $$
begin
  perform pg_notify('svc_events', workspace_id::text || ':' || max(sequence)::text) from inserted group by workspace_id;
  return null;
end $$;
create trigger events_announce after insert on events
  referencing new table as inserted
  for each statement execute function announce_events();

-- Live-only realtime messages (not in the event log): new in-app notifications and engine run status.
create function announce_notifications() returns trigger language plpgsql as $$
begin
  perform pg_notify('svc_realtime', json_build_object(
      'type', 'notification.created', 'workspace_id', workspace_id, 'user_id', user_id,
      'data', json_build_object('id', id, 'kind', kind, 'subject_type', subject_type, 'subject_id', subject_id,
                                'title', left(title, 300), 'link', left(link, 500), 'created_at', created_at))::text)
    from inserted where in_app;
  return null;
end $$;
create trigger notifications_announce after insert on notifications
  referencing new table as inserted
  for each statement execute function announce_notifications();

create index engine_runs_job_run on engine_runs (job_run_id) where job_run_id is not null;

create function announce_engine_run() returns trigger language plpgsql as $$
declare
  run record;
begin
  select id, workspace_id into run from engine_runs where job_run_id = new.id;
  if found then
    perform pg_notify('svc_realtime', json_build_object(
        'type', 'engine_run.updated', 'workspace_id', run.workspace_id,
        'data', json_build_object('id', run.id, 'job_id', new.id, 'status', new.status, 'progress', new.progress))::text);
  end if;
  return null;
end $$;
create trigger job_runs_announce_engine_run after update on job_runs
  for each row when (new.kind = 'engine__run' and (old.status is distinct from new.status or old.progress is distinct from new.progress))
  execute function announce_engine_run();
