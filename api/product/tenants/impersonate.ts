/**
 * POST /admin/tenants/{tenant_id}/impersonate: an `onboarding_admin` gets a real tenant session as the
 * tenant's earliest-created active user. The tenant cookie and a fresh CSRF cookie are set; the staff
 * session is untouched, and the tenant session ends with it (logout, password reset, deactivation). Audited in the control log (`employee_impersonation`, actor the employee,
 * resource the user) and in the tenant's own log, in the same transaction as the session.
 */
import { conflict } from '../../../lib/errors.ts';
import { recordControlAudit } from '../../../sql/controlAudit.ts';
import { withTenant } from '../../../sql/tenant/schema.ts';
import { earliestActiveUser } from '../../../sql/tenant/users.ts';
import { reply } from '../../http/routes.ts';
import { setSessionCookies, TENANT_COOKIE } from '../cookies.ts';
import { detailSchema } from '../errors.ts';
import { productRoute } from '../route.ts';
import { mintTenantSession, requestIp, requestUserAgent, tenantMeSchema } from '../session/identity.ts';
import { requireTenant, tenantParams } from './lookup.ts';

export const impersonateRoute = productRoute({
  method: 'post',
  path: '/admin/tenants/{tenant_id}/impersonate',
  operationId: 'impersonate_tenant',
  summary: 'Sign in to a live tenant as its earliest-created active user',
  tags: ['onboarding'],
  auth: 'staff',
  params: tenantParams,
  responses: {
    200: { description: 'Tenant session minted; tenant and CSRF cookies set', schema: tenantMeSchema },
    404: { description: 'Tenant not found.', schema: detailSchema },
    409: { description: 'Tenant is not live yet. / Tenant has no active users to impersonate.', schema: detailSchema },
  },
  handler: async ({ app, req, res, params, staff }) => {
    const tenant = await requireTenant(app.pool, params.tenant_id);
    if (tenant.lifecycle_state !== 'live') throw conflict('Tenant is not live yet.');
    const minted = await withTenant(app.pool, tenant.schema_name, async (client) => {
      const user = await earliestActiveUser(client);
      if (!user) throw conflict('Tenant has no active users to impersonate.');
      await recordControlAudit(client, {
        action: 'employee_impersonation',
        actorType: 'employee',
        actorId: staff.employeeId,
        resourceType: 'tenant_user',
        resourceId: user.id,
        tenantId: tenant.id,
        clientIp: requestIp(req),
        userAgent: requestUserAgent(req),
        metadata: { workspace: tenant.slug, email: user.email },
      });
      return mintTenantSession(app, client, req, tenant, user, { employeeId: staff.employeeId, sessionId: staff.sessionId });
    });
    setSessionCookies(app, req, res, TENANT_COOKIE, minted.cookie);
    return reply.ok(minted.me);
  },
});
