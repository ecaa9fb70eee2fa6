/**
 * Opening a tenant user's session (a login, an accepted invitation, a password reset, or an employee's
 * impersonation): the session row (24 h, its token kept only as a hash) and the tenant audit row
 * `user_login` or `employee_impersonation`, inside the tenant's schema.
 */
import type { AppContext } from '../lib/context.ts';
import { randomToken, sha256Hex } from '../lib/crypto.ts';
import type { Queryable } from '../lib/db.ts';
import { recordTenantAudit } from '../sql/tenant/audit.ts';
import { insertTenantSession } from '../sql/tenant/sessions.ts';
import { userPermissions, type TenantUserRow } from '../sql/tenant/users.ts';
import type { TenantRow } from '../sql/tenants.ts';
import { TENANT_SESSION_TTL_MS } from '../domain/productSessions.ts';

/** Where a session is opened from, as the session and audit rows record it. */
export interface SessionOrigin {
  ip: string | null;
  userAgent: string | null;
}

/** The signed-in tenant user as GET /me answers it (api/product/session/identity.ts `tenantMeSchema`). */
export interface TenantMe {
  user_id: string;
  workspace: string;
  email: string;
  full_name: string;
  permissions: string[];
  impersonated_by: { employee_id: string; email: string; full_name: string } | null;
}

export interface MintedTenantSession {
  /** The `svc_tenant_session` cookie value, `<slug>:<token>`: set it once the transaction committed. */
  cookie: string;
  me: TenantMe;
}

/**
 * Creates a tenant session for `user` and the tenant audit row `user_login` (or
 * `employee_impersonation` when an employee mints it). `client` must be inside `withTenant` for
 * `tenant`; set the returned cookie with `setSessionCookies(…, TENANT_COOKIE, cookie)` after commit.
 */
export async function mintTenantSession(
  app: AppContext,
  client: Queryable,
  from: SessionOrigin,
  tenant: TenantRow,
  user: TenantUserRow,
  impersonator: { employeeId: string; sessionId: string; email: string; fullName: string } | null = null,
): Promise<MintedTenantSession> {
  const token = randomToken(32);
  await insertTenantSession(client, {
    userId: user.id,
    tokenHash: sha256Hex(token),
    ip: from.ip,
    userAgent: from.userAgent,
    expiresAt: new Date(app.clock.now().getTime() + TENANT_SESSION_TTL_MS),
    impersonator: impersonator && { employeeId: impersonator.employeeId, sessionId: impersonator.sessionId },
  });
  await recordTenantAudit(client, {
    action: impersonator ? 'employee_impersonation' : 'user_login',
    actorType: impersonator ? 'employee' : 'user',
    actorId: impersonator?.employeeId ?? user.id,
    resourceType: 'user',
    resourceId: user.id,
    clientIp: from.ip,
  });
  const me: TenantMe = {
    user_id: user.id,
    workspace: tenant.slug,
    email: user.email,
    full_name: user.full_name,
    permissions: await userPermissions(client, user.id),
    impersonated_by: impersonator && { employee_id: impersonator.employeeId, email: impersonator.email, full_name: impersonator.fullName },
  };
  return { cookie: `${tenant.slug}:${token}`, me };
}
