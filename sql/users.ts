/** Users, their linked upstream identities, and workspace memberships. */
import type { Queryable } from '../lib/db.ts';
import { equalityFilters, type ListSource } from './pagination.ts';

export interface UserRow {
  id: string;
  email: string;
  name: string;
  created_at: Date;
}

export interface MembershipRow {
  id: string;
  workspace_id: string;
  user_id: string;
  role: 'owner' | 'admin' | 'member' | 'viewer';
  created_at: Date;
  updated_at: Date;
}

export async function findUserByEmail(db: Queryable, email: string): Promise<UserRow | null> {
  const { rows } = await db.query<UserRow>('select * from users where lower(email) = lower($1)', [email]);
  return rows[0] ?? null;
}

/** The user with this e-mail, created when missing (race-safe on the unique lower(email) index). */
export async function upsertUserByEmail(db: Queryable, email: string, name: string): Promise<{ user: UserRow; created: boolean }> {
  const inserted = await db.query<UserRow>(`insert into users (email, name) values ($1, $2) on conflict (lower(email)) do nothing returning *`, [email, name]);
  if (inserted.rows[0]) return { user: inserted.rows[0], created: true };
  return { user: (await findUserByEmail(db, email))!, created: false };
}

export async function findUserentity(db: Queryable, issuer: string, subject: string): Promise<UserRow | null> {
  const { rows } = await db.query<UserRow>(`select u.* from user_identities i join users u on u.id = i.user_id where i.issuer = $1 and i.subject = $2`, [
    issuer,
    subject,
  ]);
  return rows[0] ?? null;
}

export async function linkIdentity(db: Queryable, userId: string, issuer: string, subject: string): Promise<void> {
  await db.query(`insert into user_identities (issuer, subject, user_id) values ($1, $2, $3) on conflict (issuer, subject) do nothing`, [
    issuer,
    subject,
    userId,
  ]);
}

export async function membershipsOfUser(db: Queryable, userId: string): Promise<MembershipRow[]> {
  const { rows } = await db.query<MembershipRow>('select * from memberships where user_id = $1 order by created_at, id', [userId]);
  return rows;
}

export async function findMembership(db: Queryable, workspaceId: string, userId: string): Promise<MembershipRow | null> {
  const { rows } = await db.query<MembershipRow>('select * from memberships where workspace_id = $1 and user_id = $2', [workspaceId, userId]);
  return rows[0] ?? null;
}

/** Adds a membership; an existing one keeps its role and is returned with `created: false`. */
export async function ensureMembership(
  db: Queryable,
  workspaceId: string,
  userId: string,
  role: string,
): Promise<{ membership: MembershipRow; created: boolean }> {
  const inserted = await db.query<MembershipRow>(
    `insert into memberships (workspace_id, user_id, role) values ($1, $2, $3) on conflict (workspace_id, user_id) do nothing returning *`,
    [workspaceId, userId, role],
  );
  if (inserted.rows[0]) return { membership: inserted.rows[0], created: true };
  return { membership: (await findMembership(db, workspaceId, userId))!, created: false };
}

export async function lockOwners(db: Queryable, workspaceId: string): Promise<string[]> {
  const { rows } = await db.query<{ user_id: string }>(
    `select user_id from memberships where workspace_id = $1 and role = 'owner' order by user_id for update`,
    [workspaceId],
  );
  return rows.map((r) => r.user_id);
}

export async function updateMembershipRole(db: Queryable, workspaceId: string, userId: string, role: string): Promise<MembershipRow | null> {
  const { rows } = await db.query<MembershipRow>(`update memberships set role = $3, updated_at = now() where workspace_id = $1 and user_id = $2 returning *`, [
    workspaceId,
    userId,
    role,
  ]);
  return rows[0] ?? null;
}

export async function deleteMembership(db: Queryable, workspaceId: string, userId: string): Promise<boolean> {
  const result = await db.query('delete from memberships where workspace_id = $1 and user_id = $2', [workspaceId, userId]);
  return (result.rowCount ?? 0) > 0;
}

export async function findUser(db: Queryable, id: string): Promise<UserRow | null> {
  const { rows } = await db.query<UserRow>('select * from users where id = $1', [id]);
  return rows[0] ?? null;
}

/** The owner membership of a workspace held by the user with this e-mail address (lowercase). */
export async function findOwnerByEmail(
  db: Queryable,
  workspaceId: string,
  email: string,
): Promise<{ user_id: string; membership_id: string; email: string } | null> {
  const { rows } = await db.query<{ user_id: string; membership_id: string; email: string }>(
    `select m.user_id, m.id as membership_id, u.email from memberships m join users u on u.id = m.user_id
      where m.workspace_id = $1 and m.role = 'owner' and lower(u.email) = $2`,
    [workspaceId, email],
  );
  return rows[0] ?? null;
}

/** GET /v1/members: memberships with their users. */
export function memberList(workspaceId: string, f: { role?: string }): ListSource {
  return {
    ...equalityFilters({ 'm.workspace_id': workspaceId, 'm.role': f.role }),
    select: 'm.user_id, m.id as membership_id, u.email, u.name, m.role, m.created_at',
    from: 'memberships m join users u on u.id = m.user_id',
    sortColumns: { joined_at: { expr: 'm.created_at', type: 'timestamptz' }, email: { expr: 'lower(u.email)', type: 'text' } },
    idExpr: 'm.id',
  };
}
