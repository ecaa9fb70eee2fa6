/**
 * The session guard of the product surface: resolves the staff or tenant principal a route needs from
 * its cookie only (no header fallback, no default identity), then checks CSRF on mutating routes and
 * the route's staff roles or tenant permission. The two session stores are separate: a staff cookie
 * means nothing to a tenant route and the reverse.
 */
import type { Request } from 'express';
import type { AppContext } from '../../lib/context.ts';
import { constantTimeEqual, sha256Hex } from '../../lib/crypto.ts';
import { AppError } from '../../lib/errors.ts';
import { controlRoles, findLiveEmployeeSession, type ControlRole } from '../../sql/employees.ts';
import { findTenantBySlug } from '../../sql/tenants.ts';
import { withTenant } from '../../sql/tenant/schema.ts';
import { findLiveTenantSession } from '../../sql/tenant/sessions.ts';
import { userPermissions } from '../../sql/tenant/users.ts';
import { CSRF_COOKIE, csrfTokenMatchesSession, readCookies, STAFF_COOKIE, TENANT_COOKIE } from './cookies.ts';
import type { Principals, StaffPrincipal, TenantPrincipal } from './principal.ts';
import type { ProductRoute } from './route.ts';
import { isLive } from '../../domain/tenantLifecycle.ts';

export interface ProductGuard {
  /** The principal a route needs (none for public routes); throws AppError (401, 403) when it may not proceed. */
  authorize(route: ProductRoute, req: Request): Promise<Principals>;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const unauthorized = (message: string) => new AppError('unauthorized', message);

/**
 * Double-submit: X-CSRF-Token must equal the svc_csrf cookie (constant-time), and that value must
 * carry this server's HMAC for the route's session cookie; nothing is stored.
 */
function checkCsrf(app: AppContext, req: Request, cookies: Map<string, string>, session: string): void {
  const header = req.headers['x-csrf-token'];
  const sent = Array.isArray(header) ? header[0] : header;
  const expected = cookies.get(CSRF_COOKIE);
  if (!sent || !expected || !constantTimeEqual(sent, expected) || !csrfTokenMatchesSession(app, sent, session)) {
    throw new AppError('forbidden', 'CSRF token missing or mismatched.');
  }
}

/** Python's tuple spelling, as in the spec's message: `('onboarding_admin',)`. */
const tuple = (items: readonly string[]) => `(${items.map((i) => `'${i}'`).join(', ')}${items.length === 1 ? ',' : ''})`;

export function staffRolesOf(route: ProductRoute): readonly ControlRole[] {
  return route.staffRoles ?? (route.method === 'get' ? controlRoles : ['onboarding_admin']);
}

/** Splits `<slug>:<token>` on the first colon; null when either part is empty. */
function parseTenantCookie(value: string): { slug: string; token: string } | null {
  const colon = value.indexOf(':');
  if (colon <= 0 || colon === value.length - 1) return null;
  return { slug: value.slice(0, colon), token: value.slice(colon + 1) };
}

export function createSessionGuard(app: AppContext): ProductGuard {
  async function staff(cookies: Map<string, string>): Promise<StaffPrincipal> {
    const token = cookies.get(STAFF_COOKIE);
    if (!token) throw unauthorized('No employee session.');
    const session = await findLiveEmployeeSession(app.pool, sha256Hex(token), app.clock.now());
    if (!session) throw unauthorized('Employee session expired or revoked.');
    return { employeeId: session.id, email: session.email, fullName: session.full_name, role: session.control_role, sessionId: session.session_id };
  }

  async function tenant(cookies: Map<string, string>): Promise<TenantPrincipal> {
    const value = cookies.get(TENANT_COOKIE);
    if (!value) throw unauthorized('No tenant session.');
    const expired = unauthorized('Tenant session expired or revoked.');
    const parsed = parseTenantCookie(value);
    if (!parsed) throw expired;
    const row = await findTenantBySlug(app.pool, parsed.slug);
    if (!row || !isLive(row.lifecycle_state)) throw expired;
    const resolved = await withTenant(app.pool, row.schema_name, async (client) => {
      const session = await findLiveTenantSession(client, sha256Hex(parsed.token), app.clock.now());
      return session && { session, permissions: await userPermissions(client, session.id) };
    });
    if (!resolved) throw expired;
    const { session, permissions } = resolved;
    return {
      tenantId: row.id,
      slug: row.slug,
      schema: row.schema_name,
      userId: session.id,
      email: session.email,
      fullName: session.full_name,
      permissions,
      sessionId: session.session_id,
      impersonatedBy: session.impersonator && {
        employeeId: session.impersonator.employee_id,
        email: session.impersonator.email,
        fullName: session.impersonator.full_name,
      },
    };
  }

  return {
    async authorize(route, req) {
      if (route.auth === 'public') return {};
      const cookies = readCookies(req);
      const principals: Principals = route.auth === 'staff' ? { staff: await staff(cookies) } : { tenant: await tenant(cookies) };
      if (!SAFE_METHODS.has(req.method) && !route.csrfExempt) checkCsrf(app, req, cookies, cookies.get(route.auth === 'staff' ? STAFF_COOKIE : TENANT_COOKIE)!);
      if (principals.staff) {
        const allowed = staffRolesOf(route);
        if (!allowed.includes(principals.staff.role)) {
          throw new AppError('forbidden', `Requires one of ${tuple(allowed)}, has '${principals.staff.role}'.`);
        }
      }
      if (principals.tenant && route.permission && !principals.tenant.permissions.includes(route.permission)) {
        throw new AppError('forbidden', `Missing required permission '${route.permission}'.`);
      }
      return principals;
    },
  };
}
