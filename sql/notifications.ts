/**
 * Notifications and their deliveries. A notification is unique per (workspace, member, kind,
 * subject): inserting it again (a retried job, a second producer) does nothing, so nothing is sent
 * twice. The unread counter of a member moves in the same statement as the rows it counts.
 */
import type { Queryable } from '../lib/db.ts';
import { equalityFilters, type ListSource } from './pagination.ts';

export interface NewNotification {
  user_id: string;
  kind: string;
  subject_type: string;
  subject_id: string;
  title: string;
  body: string;
  link: string | null;
  in_app: boolean;
}

export interface NotificationRow {
  id: string;
  workspace_id: string;
  user_id: string;
  kind: string;
  subject_type: string;
  subject_id: string;
  title: string;
  body: string;
  link: string | null;
  in_app: boolean;
  created_at: Date;
  read_at: Date | null;
}

/**
 * Inserts the notifications not sent before and returns those (the others were already sent).
 * Rows go in (user, kind, subject) order and counters in user order, the one lock order of every writer.
 */
export async function insertNotifications(db: Queryable, workspaceId: string, createdAt: Date, items: NewNotification[]): Promise<NotificationRow[]> {
  if (!items.length) return [];
  const { rows } = await db.query<NotificationRow>(
    `with inserted as (
       insert into notifications (workspace_id, user_id, kind, subject_type, subject_id, title, body, link, in_app, created_at)
       select $1, r.user_id, r.kind, r.subject_type, r.subject_id, r.title, r.body, r.link, r.in_app, $2
         from jsonb_to_recordset($3::jsonb) as r(user_id uuid, kind text, subject_type text, subject_id text, title text, body text, link text, in_app boolean)
        order by r.user_id, r.kind, r.subject_id
       on conflict on constraint notifications_once do nothing
       returning *
     ), counted as (
       insert into notification_unread_counts (workspace_id, user_id, unread)
       select $1, user_id, count(*) from inserted where in_app group by user_id order by user_id
       on conflict (workspace_id, user_id) do update set unread = notification_unread_counts.unread + excluded.unread
     )
     select * from inserted`,
    [workspaceId, createdAt, JSON.stringify(items)],
  );
  return rows;
}

export interface NewDelivery {
  notification_id: string;
  user_id: string;
  channel: 'email' | 'chat';
  digest: boolean;
  due_at: Date;
}

export async function insertDeliveries(
  db: Queryable,
  workspaceId: string,
  deliveries: NewDelivery[],
): Promise<Array<{ id: string; notification_id: string; channel: string }>> {
  if (!deliveries.length) return [];
  const { rows } = await db.query<{ id: string; notification_id: string; channel: string }>(
    `insert into notification_deliveries (notification_id, workspace_id, user_id, channel, digest, due_at)
     select r.notification_id, $1, r.user_id, r.channel, r.digest, r.due_at
       from jsonb_to_recordset($2::jsonb) as r(notification_id uuid, user_id uuid, channel text, digest boolean, due_at timestamptz)
     on conflict (notification_id, channel) do nothing
     returning id, notification_id, channel`,
    [workspaceId, JSON.stringify(deliveries)],
  );
  return rows;
}

export async function markDeliveries(db: Queryable, ids: string[], status: 'queued' | 'sent' | 'failed', detail: string | null = null): Promise<void> {
  if (!ids.length) return;
  await db.query(
    `update notification_deliveries set status = $2, detail = $3, sent_at = case when $2 = 'sent' then now() else sent_at end where id = any($1::uuid[])`,
    [ids, status, detail],
  );
}

export interface DueDelivery {
  id: string;
  workspace_id: string;
  user_id: string;
  email: string;
  channel: 'email' | 'chat';
  digest: boolean;
  due_at: Date;
  notification: NotificationRow;
}

/**
 * Locks up to `limit` pending deliveries due at `now` (skipping those another dispatcher holds),
 * oldest first, with their notification and the member's e-mail address.
 */
export async function lockDueDeliveries(db: Queryable, now: Date, limit: number): Promise<DueDelivery[]> {
  const { rows } = await db.query<DueDelivery>(
    `select d.id, d.workspace_id, d.user_id, u.email, d.channel, d.digest, d.due_at, to_jsonb(n) as notification
       from notification_deliveries d
       join notifications n on n.id = d.notification_id
       join users u on u.id = d.user_id
      where d.status = 'pending' and d.due_at <= $1
      order by d.due_at, d.id
      limit $2
      for update of d skip locked`,
    [now, limit],
  );
  return rows.map((r) => ({ ...r, notification: { ...r.notification, created_at: new Date(r.notification.created_at) } }));
}

export interface ChatDelivery {
  id: string;
  workspace_id: string;
  user_id: string;
  status: string;
  notification: NotificationRow;
}

export async function findDelivery(db: Queryable, id: string): Promise<ChatDelivery | null> {
  const { rows } = await db.query<ChatDelivery>(
    `select d.id, d.workspace_id, d.user_id, d.status, to_jsonb(n) as notification
       from notification_deliveries d join notifications n on n.id = d.notification_id where d.id = $1`,
    [id],
  );
  return rows[0] ?? null;
}

/** The member's unread in-app count: one row read by primary key. */
export async function unreadCount(db: Queryable, workspaceId: string, userId: string): Promise<number> {
  const { rows } = await db.query<{ unread: number }>('select unread from notification_unread_counts where workspace_id = $1 and user_id = $2', [
    workspaceId,
    userId,
  ]);
  return rows[0]?.unread ?? 0;
}

/**
 * Marks the member's in-app notifications read (the given ids, or all) and lowers the counter by
 * exactly the rows this statement changed; ids of others, unknown or already read ones change nothing.
 */
export async function markRead(db: Queryable, workspaceId: string, userId: string, ids: string[] | 'all', at: Date): Promise<number> {
  const { rows } = await db.query<{ changed: number }>(
    `with changed as (
       update notifications set read_at = $4
        where workspace_id = $1 and user_id = $2 and in_app and read_at is null and ($3::uuid[] is null or id = any($3::uuid[]))
       returning 1
     ), counted as (
       update notification_unread_counts set unread = greatest(0, unread - (select count(*) from changed))
        where workspace_id = $1 and user_id = $2 and (select count(*) from changed) > 0
     )
     select count(*)::int as changed from changed`,
    [workspaceId, userId, ids === 'all' ? null : ids, at],
  );
  return rows[0].changed;
}

/** GET /v1/me/notifications/inbox: a member's in-app notifications, optionally only unread or only read. */
export function inboxList(workspaceId: string, userId: string, f: { unread?: boolean }): ListSource {
  const { where, params } = equalityFilters({ workspace_id: workspaceId, user_id: userId });
  where.push('in_app');
  if (f.unread !== undefined) where.push(f.unread ? 'read_at is null' : 'read_at is not null');
  return { where, params, select: '*', from: 'notifications', sortColumns: { created_at: { expr: 'created_at', type: 'timestamptz' } }, idExpr: 'id' };
}
