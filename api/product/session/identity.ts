/** The staff and tenant identities the session routes answer, and minting a tenant session. */
import type { Request } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../../lib/context.ts';
import { randomToken, sha256Hex } from '../../../lib/crypto.ts';
import type { Queryable } from '../../../lib/db.ts';
import { controlRoles, type EmployeeRow } from '../../../sql/employees.ts';
import { recordTenantAudit } from '../../../sql/tenant/audit.ts';
import type { TenantRow } from '../../../sql/tenants.ts';
import { insertTenantSession } from '../../../sql/tenant/sessions.ts';
import { userPermissions, type TenantUserRow } from '../../../sql/tenant/users.ts';
import { TENANT_SESSION_TTL_MS } from '../cookies.ts';
import type { StaffPrincipal, TenantPrincipal } from '../principal.ts';

export const employeeMeSchema = z
  .object({ id: z.uuid(), email: z.string(), full_name: z.string(), control_role: z.enum(controlRoles) })
  .meta({ title: 'EmployeeMeResponse' });

export const tenantMeSchema = z
  .object({
    user_id: z.uuid(),
    workspace: z.string().describe('The tenant slug'),
    email: z.string(),
    full_name: z.string(),
    permissions: z.array(z.string()).describe('Sorted permissions resolved from the user’s role profiles'),
  })
  .meta({ title: 'TenantMeResponse' });

export type EmployeeMe = z.output<typeof employeeMeSchema>;
export type TenantMe = z.output<typeof tenantMeSchema>;

export const employeeMe = (e: EmployeeRow | StaffPrincipal): EmployeeMe =>
  'employeeId' in e
    ? { id: e.employeeId, email: e.email, full_name: e.fullName, control_role: e.role }
    : { id: e.id, email: e.email, full_name: e.full_name, control_role: e.control_role };

export const tenantMe = (p: TenantPrincipal): TenantMe => ({
  user_id: p.userId,
  workspace: p.slug,
  email: p.email,
  full_name: p.fullName,
  permissions: p.permissions,
});

export const requestIp = (req: Request) => req.clientIp ?? null;
export const requestUserAgent = (req: Request) => req.get('user-agent')?.slice(0, 512) ?? null;

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
  req: Request,
  tenant: TenantRow,
  user: TenantUserRow,
  impersonator: { employeeId: string; sessionId: string } | null = null,
): Promise<MintedTenantSession> {
  const token = randomToken(32);
  await insertTenantSession(client, {
    userId: user.id,
    tokenHash: sha256Hex(token),
    ip: requestIp(req),
    userAgent: requestUserAgent(req),
    expiresAt: new Date(app.clock.now().getTime() + TENANT_SESSION_TTL_MS),
    impersonator,
  });
  await recordTenantAudit(client, {
    action: impersonator ? 'employee_impersonation' : 'user_login',
    actorType: impersonator ? 'employee' : 'user',
    actorId: impersonator?.employeeId ?? user.id,
    resourceType: 'user',
    resourceId: user.id,
    clientIp: requestIp(req),
  });
  const me = { user_id: user.id, workspace: tenant.slug, email: user.email, full_name: user.full_name, permissions: await userPermissions(client, user.id) };
  return { cookie: `${tenant.slug}:${token}`, me };
}
