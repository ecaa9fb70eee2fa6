/**
 * Notification preferences per member (user and workspace), stored as a document whose rules and
 * defaults are domain/notificationPreferences.ts: reading them (completed with the defaults), locking
 * and saving them, and every member of a workspace with theirs.
 */
import type { Queryable } from '../lib/db.ts';
import { completedPreferences, defaultPreferences, isTimeZoneName, type StoredPreferences } from '../domain/notificationPreferences.ts';

export interface MemberPreferences {
  user_id: string;
  preferences: StoredPreferences;
  /** When they were saved; for a member who never saved, when the membership began. */
  updated_at: Date;
}

/** The member's preferences (defaults when never saved); null when the user is not a member of the workspace. */
export async function findPreferences(db: Queryable, workspaceId: string, userId: string): Promise<MemberPreferences | null> {
  const { rows } = await db.query<{ preferences: Partial<StoredPreferences> | null; updated_at: Date | null; member_since: Date }>(
    `select p.preferences, p.updated_at, m.created_at as member_since
       from memberships m left join notification_preferences p on p.workspace_id = m.workspace_id and p.user_id = m.user_id
      where m.workspace_id = $1 and m.user_id = $2`,
    [workspaceId, userId],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    user_id: userId,
    preferences: row.preferences ? completedPreferences(row.preferences) : defaultPreferences,
    updated_at: row.updated_at ?? row.member_since,
  };
}

/** Locks the membership row so that two concurrent PATCHes of a member merge one after the other. */
export async function lockPreferences(db: Queryable, workspaceId: string, userId: string): Promise<void> {
  await db.query('select 1 from memberships where workspace_id = $1 and user_id = $2 for update', [workspaceId, userId]);
}

export async function savePreferences(db: Queryable, workspaceId: string, userId: string, preferences: StoredPreferences): Promise<Date> {
  const { rows } = await db.query<{ updated_at: Date }>(
    `insert into notification_preferences (workspace_id, user_id, preferences, updated_at) values ($1, $2, $3, date_trunc('milliseconds', clock_timestamp()))
     on conflict (workspace_id, user_id) do update set preferences = excluded.preferences, updated_at = excluded.updated_at
     returning updated_at`,
    [workspaceId, userId, JSON.stringify(preferences)],
  );
  return rows[0].updated_at;
}

export interface Recipient {
  user_id: string;
  email: string;
  role: string;
  preferences: StoredPreferences;
  /** The member's time zone: quiet_hours.timezone, else the organization's, else UTC. */
  timezone: string;
}

/** Every member of the workspace with their preferences (defaults where never saved). */
export async function workspaceRecipients(db: Queryable, workspaceId: string): Promise<Recipient[]> {
  const { rows } = await db.query<{
    user_id: string;
    email: string;
    role: string;
    preferences: Partial<StoredPreferences> | null;
    org_timezone: string | null;
  }>(
    `select m.user_id, u.email, m.role, p.preferences, o.timezone as org_timezone
       from memberships m
       join users u on u.id = m.user_id
       join workspaces w on w.id = m.workspace_id
       join organizations o on o.id = w.organization_id
       left join notification_preferences p on p.workspace_id = m.workspace_id and p.user_id = m.user_id
      where m.workspace_id = $1
      order by m.created_at, m.user_id`,
    [workspaceId],
  );
  return rows.map((r) => {
    const preferences = r.preferences ? completedPreferences(r.preferences) : defaultPreferences;
    const orgZone = r.org_timezone && isTimeZoneName(r.org_timezone) ? r.org_timezone : null;
    return { user_id: r.user_id, email: r.email, role: r.role, preferences, timezone: preferences.quiet_hours?.timezone ?? orgZone ?? 'UTC' };
  });
}
