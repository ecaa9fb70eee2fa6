/** Tenant sessions inside the tenant's schema (run inside `withTenant`); tokens stored only as hashes. */
import type { Queryable } from '../../lib/db.ts';
import type { TenantUserRow } from './users.ts';

export async function insertTenantSession(
  db: Queryable,
  s: {
    userId: string;
    tokenHash: string;
    ip: string | null;
    userAgent: string | null;
    expiresAt: Date;
    impersonator?: { employeeId: string; sessionId: string } | null;
  },
): Promise<{ id: string }> {
  const { rows } = await db.query<{ id: string }>(
    `insert into sessions (user_id, token_hash, ip, user_agent, expires_at, impersonated_by, impersonator_session_id) values ($1, $2, $3, $4, $5, $6, $7) returning id`,
    [s.userId, s.tokenHash, s.ip, s.userAgent, s.expiresAt, s.impersonator?.employeeId ?? null, s.impersonator?.sessionId ?? null],
  );
  return rows[0];
}

/**
 * The live session with this token hash, of an active user. An impersonation session is live only
 * while the staff session that minted it is, and its employee is active.
 */
export async function findLiveTenantSession(db: Queryable, tokenHash: string, now: Date): Promise<(TenantUserRow & { session_id: string }) | null> {
  const { rows } = await db.query<TenantUserRow & { session_id: string }>(
    `select u.*, s.id as session_id from sessions s join users u on u.id = s.user_id
      where s.token_hash = $1 and s.revoked_at is null and s.expires_at > $2 and u.active
        and (s.impersonated_by is null or exists (
              select 1 from public.employee_sessions es join public.employees e on e.id = es.employee_id
               where es.id = s.impersonator_session_id and es.revoked_at is null and es.expires_at > $2 and e.active))`,
    [tokenHash, now],
  );
  return rows[0] ?? null;
}

export async function revokeTenantSession(db: Queryable, sessionId: string, now: Date): Promise<void> {
  await db.query('update sessions set revoked_at = $2 where id = $1 and revoked_at is null', [sessionId, now]);
}

export async function revokeAllTenantSessions(db: Queryable, userId: string, now: Date): Promise<number> {
  const { rowCount } = await db.query('update sessions set revoked_at = $2 where user_id = $1 and revoked_at is null', [userId, now]);
  return rowCount ?? 0;
}
