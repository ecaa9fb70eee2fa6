/** Users, their linked upstream identities, and workspace memberships. */
import type { Queryable } from '../lib/db.ts';
import { equalityFilters, type ListSource } from './pagination.ts';

export interface UserRow {
  id: string;
  email: string;
  name: string;
  /** Set on an organization-managed account (SCIM, or JIT through the organization's SSO connection). */
  managed_by_organization_id: string | null;
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

/** The global (not organization-managed) account with this e-mail. */
export async function findUserByEmail(db: Queryable, email: string): Promise<UserRow | null> {
  const { rows } = await db.query<UserRow>('select * from users where lower(email) = lower($1) and managed_by_organization_id is null', [email]);
  return rows[0] ?? null;
}

/** The global account with this e-mail, created when missing (race-safe on the unique lower(email) index). */
export async function upsertUserByEmail(db: Queryable, email: string, name: string): Promise<{ user: UserRow; created: boolean }> {
  const inserted = await db.query<UserRow>(
    `insert into users (email, name) values ($1, $2) on conflict (lower(email)) where managed_by_organization_id is null do nothing returning *`,
    [email, name],
  );
  if (inserted.rows[0]) return { user: inserted.rows[0], created: true };
  return { user: (await findUserByEmail(db, email))!, created: false };
}

/** The account this organization manages under this e-mail. */
export async function findManagedUserByEmail(db: Queryable, organizationId: string, email: string): Promise<UserRow | null> {
  const { rows } = await db.query<UserRow>('select * from users where managed_by_organization_id = $1 and lower(email) = lower($2)', [organizationId, email]);
  return rows[0] ?? null;
}

/** The organization's managed account with this e-mail, created when missing; never a global account or another organization's. */
export async function upsertManagedUser(db: Queryable, organizationId: string, email: string, name: string): Promise<{ user: UserRow; created: boolean }> {
  const inserted = await db.query<UserRow>(
    `insert into users (email, name, managed_by_organization_id) values ($2, $3, $1)
     on conflict (managed_by_organization_id, lower(email)) where managed_by_organization_id is not null do nothing returning *`,
    [organizationId, email, name],
  );
  if (inserted.rows[0]) return { user: inserted.rows[0], created: true };
  return { user: (await findManagedUserByEmail(db, organizationId, email))!, created: false };
}

/**
 * Changes the address of an account the organization manages; false when it manages another
 * account with that address. Global accounts and other organizations' accounts are never touched.
 */
export async function updateManagedUserEmail(db: Queryable, organizationId: string, userId: string, email: string): Promise<boolean> {
  const taken = await db.query('select 1 from users where managed_by_organization_id = $1 and lower(email) = lower($2) and id <> $3', [
    organizationId,
    email,
    userId,
  ]);
  if (taken.rows.length) return false;
  await db.query('update users set email = $3 where id = $2 and managed_by_organization_id = $1 and email <> $3', [organizationId, userId, email]);
  return true;
}

/** Where an identity was asserted: the platform identity provider (connection null) or one SSO connection. */
export interface IdentityKey {
  issuer: string;
  subject: string;
  connectionId: string | null;
}

/** The user an identity is linked to, looked up in the identity's own namespace only. */
export async function findLinkedUser(db: Queryable, identity: IdentityKey): Promise<UserRow | null> {
  const { rows } = identity.connectionId
    ? await db.query<UserRow>(`select u.* from user_identities i join users u on u.id = i.user_id where i.connection_id = $1 and i.subject = $2`, [
        identity.connectionId,
        identity.subject,
      ])
    : await db.query<UserRow>(
        `select u.* from user_identities i join users u on u.id = i.user_id where i.connection_id is null and i.issuer = $1 and i.subject = $2`,
        [identity.issuer, identity.subject],
      );
  return rows[0] ?? null;
}

export async function linkIdentity(db: Queryable, userId: string, identity: IdentityKey): Promise<void> {
  await db.query(
    identity.connectionId
      ? `insert into user_identities (issuer, subject, user_id, connection_id) values ($1, $2, $3, $4)
         on conflict (connection_id, subject) where connection_id is not null do nothing`
      : `insert into user_identities (issuer, subject, user_id) values ($1, $2, $3)
         on conflict (issuer, subject) where connection_id is null do nothing`,
    identity.connectionId ? [identity.issuer, identity.subject, userId, identity.connectionId] : [identity.issuer, identity.subject, userId],
  );
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
