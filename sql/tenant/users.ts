/**
 * Users of one tenant, their role-profile grants and permissions. Every function runs inside
 * `withTenant` (search_path is the tenant's schema), so the tenant is the schema itself.
 */
import type { Queryable } from '../../lib/db.ts';

export interface TenantUserRow {
  id: string;
  email: string;
  password_hash: string;
  full_name: string;
  active: boolean;
  created_at: Date;
  updated_at: Date;
}

export async function findTenantUserByEmail(db: Queryable, email: string): Promise<TenantUserRow | null> {
  const { rows } = await db.query<TenantUserRow>('select * from users where email = lower($1)', [email]);
  return rows[0] ?? null;
}

/** Creates the user, or (same e-mail) sets the password, reactivates it and updates the name when given. */
export async function upsertTenantUser(db: Queryable, u: { email: string; passwordHash: string; fullName?: string | null }): Promise<TenantUserRow> {
  const { rows } = await db.query<TenantUserRow>(
    `insert into users (email, password_hash, full_name) values (lower($1), $2, coalesce($3, split_part(lower($1), '@', 1)))
     on conflict (email) do update set password_hash = excluded.password_hash, active = true,
       full_name = coalesce($3, users.full_name), updated_at = now()
     returning *`,
    [u.email, u.passwordHash, u.fullName ?? null],
  );
  return rows[0];
}

export async function setTenantUserPassword(db: Queryable, id: string, passwordHash: string): Promise<void> {
  await db.query('update users set password_hash = $2, updated_at = now() where id = $1', [id, passwordHash]);
}

/** Replaces the hash only while it is still `expected` (a rehash at login never undoes a password change). */
export async function upgradeTenantUserPasswordHash(db: Queryable, id: string, expected: string, passwordHash: string): Promise<void> {
  await db.query('update users set password_hash = $3 where id = $1 and password_hash = $2', [id, expected, passwordHash]);
}

/** Grants a role profile by name; false when no such profile exists. Granting twice is a no-op. */
export async function grantRoleProfile(db: Queryable, userId: string, profile: string): Promise<boolean> {
  const { rows } = await db.query<{ id: string }>('select id from role_profiles where name = $1', [profile]);
  if (!rows[0]) return false;
  await db.query('insert into user_role_profiles (user_id, role_profile_id) values ($1, $2) on conflict do nothing', [userId, rows[0].id]);
  return true;
}

/** The sorted union of the permissions of the user's role profiles. */
export async function userPermissions(db: Queryable, userId: string): Promise<string[]> {
  const { rows } = await db.query<{ permission: string }>(
    `select distinct unnest(p.permissions) as permission
       from user_role_profiles g join role_profiles p on p.id = g.role_profile_id
      where g.user_id = $1 order by 1`,
    [userId],
  );
  return rows.map((r) => r.permission);
}

/** The earliest-created active user (the one impersonation signs in as). */
export async function earliestActiveUser(db: Queryable): Promise<TenantUserRow | null> {
  const { rows } = await db.query<TenantUserRow>('select * from users where active order by created_at, id limit 1');
  return rows[0] ?? null;
}
