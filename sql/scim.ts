/**
 * SCIM 2.0 provisioning state of a workspace: its SCIM tokens, provisioned users (each tied to a
 * `users` row and, while active, a membership) and groups (each mapped to a workspace role).
 */
import type { Queryable } from '../lib/db.ts';
import type { ListSource } from './pagination.ts';
import type { ScimEmail, ScimUserFields } from '../domain/scim/documents.ts';

export interface ScimTokenRow {
  id: string;
  workspace_id: string;
  name: string;
  created_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

export interface ScimUserRow {
  id: string;
  workspace_id: string;
  user_id: string;
  user_name: string;
  external_id: string | null;
  active: boolean;
  display_name: string | null;
  given_name: string | null;
  family_name: string | null;
  emails: ScimEmail[];
  /** The stored SCIM document (everything but id, meta, groups and password). */
  extra: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

export interface ScimGroupRow {
  id: string;
  workspace_id: string;
  display_name: string;
  external_id: string | null;
  role: 'admin' | 'member' | 'viewer';
  created_at: Date;
  updated_at: Date;
}

export async function insertScimToken(db: Queryable, workspaceId: string, name: string, tokenHash: string, createdBy: string): Promise<ScimTokenRow> {
  const { rows } = await db.query<ScimTokenRow>(
    `insert into scim_tokens (workspace_id, name, token_hash, created_by) values ($1, $2, $3, $4)
     returning id, workspace_id, name, created_at, revoked_at, last_used_at`,
    [workspaceId, name, tokenHash, createdBy],
  );
  return rows[0];
}

export async function revokeScimToken(db: Queryable, workspaceId: string, id: string): Promise<boolean> {
  const result = await db.query('update scim_tokens set revoked_at = coalesce(revoked_at, now()) where workspace_id = $1 and id = $2 and revoked_at is null', [
    workspaceId,
    id,
  ]);
  return (result.rowCount ?? 0) > 0;
}

/** The workspace of a live SCIM token, with its organization and its slug (the `{tenant}` of the URL). */
export async function findLiveScimToken(
  db: Queryable,
  tokenHash: string,
): Promise<{ id: string; workspace_id: string; organization_id: string; organization_slug: string } | null> {
  const { rows } = await db.query<{ id: string; workspace_id: string; organization_id: string; organization_slug: string }>(
    `select t.id, t.workspace_id, o.id as organization_id, o.slug as organization_slug
       from scim_tokens t join workspaces w on w.id = t.workspace_id join organizations o on o.id = w.organization_id
      where t.token_hash = $1 and t.revoked_at is null`,
    [tokenHash],
  );
  return rows[0] ?? null;
}

export async function touchScimToken(db: Queryable, id: string): Promise<void> {
  await db.query('update scim_tokens set last_used_at = now() where id = $1', [id]);
}

/** Inserts a provisioned user; null when the userName or the user is already provisioned here. */
export async function insertScimUser(db: Queryable, workspaceId: string, userId: string, f: ScimUserFields): Promise<ScimUserRow | null> {
  const { rows } = await db.query<ScimUserRow>(
    `insert into scim_users (workspace_id, user_id, user_name, external_id, active, display_name, given_name, family_name, emails, extra)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     on conflict do nothing returning *`,
    [workspaceId, userId, f.userName, f.externalId, f.active, f.displayName, f.givenName, f.familyName, JSON.stringify(f.emails), JSON.stringify(f.document)],
  );
  return rows[0] ?? null;
}

/** Replaces a provisioned user's attributes; null when the new userName belongs to another user. */
export async function updateScimUser(db: Queryable, workspaceId: string, id: string, f: ScimUserFields): Promise<ScimUserRow | null> {
  const taken = await db.query('select 1 from scim_users where workspace_id = $1 and lower(user_name) = lower($2) and id <> $3', [workspaceId, f.userName, id]);
  if (taken.rows.length) return null;
  const { rows } = await db.query<ScimUserRow>(
    `update scim_users set user_name = $3, external_id = $4, active = $5, display_name = $6, given_name = $7, family_name = $8,
       emails = $9, extra = $10, updated_at = now()
     where workspace_id = $1 and id = $2 returning *`,
    [workspaceId, id, f.userName, f.externalId, f.active, f.displayName, f.givenName, f.familyName, JSON.stringify(f.emails), JSON.stringify(f.document)],
  );
  return rows[0] ?? null;
}

export async function findScimUser(db: Queryable, workspaceId: string, id: string, lock = false): Promise<ScimUserRow | null> {
  const { rows } = await db.query<ScimUserRow>(`select * from scim_users where workspace_id = $1 and id = $2${lock ? ' for update' : ''}`, [workspaceId, id]);
  return rows[0] ?? null;
}

export async function scimUsersByIds(db: Queryable, workspaceId: string, ids: string[]): Promise<ScimUserRow[]> {
  const { rows } = await db.query<ScimUserRow>('select * from scim_users where workspace_id = $1 and id = any($2::uuid[])', [workspaceId, ids]);
  return rows;
}

export async function deleteScimUser(db: Queryable, workspaceId: string, id: string): Promise<void> {
  await db.query('delete from scim_users where workspace_id = $1 and id = $2', [workspaceId, id]);
}

/** A page of rows matching `where` (SQL over the table's columns, params from $2) and the total. */
export async function listScim<T>(
  db: Queryable,
  table: 'scim_users' | 'scim_groups',
  workspaceId: string,
  where: string | null,
  params: unknown[],
  offset: number,
  count: number,
): Promise<{ rows: T[]; total: number }> {
  const condition = `workspace_id = $1${where ? ` and (${where})` : ''}`;
  const total = await db.query<{ n: string }>(`select count(*) as n from ${table} where ${condition}`, [workspaceId, ...params]);
  const page =
    count === 0
      ? { rows: [] as T[] }
      : await db.query(`select * from ${table} where ${condition} order by created_at, id offset ${offset} limit ${count}`, [workspaceId, ...params]);
  return { rows: page.rows as T[], total: Number(total.rows[0].n) };
}

export async function groupsOfScimUsers(db: Queryable, scimUserIds: string[]): Promise<Array<{ scim_user_id: string; id: string; display_name: string }>> {
  const { rows } = await db.query<{ scim_user_id: string; id: string; display_name: string }>(
    `select m.scim_user_id, g.id, g.display_name from scim_group_members m join scim_groups g on g.id = m.group_id
      where m.scim_user_id = any($1::uuid[]) order by g.created_at, g.id`,
    [scimUserIds],
  );
  return rows;
}

export async function insertScimGroup(
  db: Queryable,
  workspaceId: string,
  g: { displayName: string; externalId: string | null; role: string },
): Promise<ScimGroupRow | null> {
  const { rows } = await db.query<ScimGroupRow>(
    `insert into scim_groups (workspace_id, display_name, external_id, role) values ($1, $2, $3, $4) on conflict do nothing returning *`,
    [workspaceId, g.displayName, g.externalId, g.role],
  );
  return rows[0] ?? null;
}

export async function updateScimGroup(
  db: Queryable,
  workspaceId: string,
  id: string,
  g: { displayName: string; externalId: string | null; role: string },
): Promise<ScimGroupRow | null> {
  const taken = await db.query('select 1 from scim_groups where workspace_id = $1 and lower(display_name) = lower($2) and id <> $3', [
    workspaceId,
    g.displayName,
    id,
  ]);
  if (taken.rows.length) return null;
  const { rows } = await db.query<ScimGroupRow>(
    `update scim_groups set display_name = $3, external_id = $4, role = $5, updated_at = now() where workspace_id = $1 and id = $2 returning *`,
    [workspaceId, id, g.displayName, g.externalId, g.role],
  );
  return rows[0] ?? null;
}

export async function findScimGroup(db: Queryable, workspaceId: string, id: string, lock = false): Promise<ScimGroupRow | null> {
  const { rows } = await db.query<ScimGroupRow>(`select * from scim_groups where workspace_id = $1 and id = $2${lock ? ' for update' : ''}`, [workspaceId, id]);
  return rows[0] ?? null;
}

export async function deleteScimGroup(db: Queryable, workspaceId: string, id: string): Promise<string[]> {
  const members = await groupMemberIds(db, id);
  await db.query('delete from scim_groups where workspace_id = $1 and id = $2', [workspaceId, id]);
  return members;
}

export async function groupMembers(db: Queryable, groupIds: string[]): Promise<Array<{ group_id: string; id: string; user_name: string }>> {
  const { rows } = await db.query<{ group_id: string; id: string; user_name: string }>(
    `select m.group_id, u.id, u.user_name from scim_group_members m join scim_users u on u.id = m.scim_user_id
      where m.group_id = any($1::uuid[]) order by u.created_at, u.id`,
    [groupIds],
  );
  return rows;
}

export async function groupMemberIds(db: Queryable, groupId: string): Promise<string[]> {
  const { rows } = await db.query<{ scim_user_id: string }>('select scim_user_id from scim_group_members where group_id = $1', [groupId]);
  return rows.map((r) => r.scim_user_id);
}

export async function setGroupMembers(db: Queryable, groupId: string, scimUserIds: string[]): Promise<void> {
  await db.query('delete from scim_group_members where group_id = $1 and not (scim_user_id = any($2::uuid[]))', [groupId, scimUserIds]);
  await db.query('insert into scim_group_members (group_id, scim_user_id) select $1, unnest($2::uuid[]) on conflict do nothing', [groupId, scimUserIds]);
}

/** The highest role among the groups of a provisioned user, or null when they are in none. */
export async function groupRoleOf(db: Queryable, scimUserId: string): Promise<'admin' | 'member' | 'viewer' | null> {
  const { rows } = await db.query<{ role: 'admin' | 'member' | 'viewer' }>(
    `select g.role from scim_group_members m join scim_groups g on g.id = m.group_id where m.scim_user_id = $1
      order by case g.role when 'admin' then 0 when 'member' then 1 else 2 end limit 1`,
    [scimUserId],
  );
  return rows[0]?.role ?? null;
}

/** Ends every sign-in of the user in the workspace (deactivation and deprovisioning). */
export async function revokeUserSignIns(db: Queryable, workspaceId: string, userId: string, reason: string): Promise<number> {
  const result = await db.query(
    `update token_families set revoked_at = now(), revoked_reason = $3 where workspace_id = $1 and user_id = $2 and revoked_at is null`,
    [workspaceId, userId, reason],
  );
  return result.rowCount ?? 0;
}

/** GET /v1/scim/tokens: metadata only, never a hash. */
export function scimTokenList(workspaceId: string): ListSource {
  return {
    select: 'id, workspace_id, name, created_at, revoked_at, last_used_at',
    from: 'scim_tokens',
    where: ['workspace_id = $1'],
    params: [workspaceId],
    sortColumns: { created_at: { expr: 'created_at', type: 'timestamptz' } },
    idExpr: 'id',
  };
}
