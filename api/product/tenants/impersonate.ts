/**
 * POST /admin/tenants/{tenant_id}/impersonate: an `onboarding_admin` gets a real tenant session as the
 * tenant's earliest-created active user. The tenant cookie and a fresh CSRF cookie are set; the staff
 * session is untouched, and the tenant session ends with it (logout, password reset, deactivation). Audited in the control log (`employee_impersonation`, actor the employee,
 * resource the user) and in the tenant's own log, in the same transaction as the session.
 */
import { impersonateTenant } from '../../../usecases/tenants/impersonate.ts';
import { reply } from '../../http/routes.ts';
import { setSessionCookies, TENANT_COOKIE } from '../cookies.ts';
import { detailSchema } from '../errors.ts';
import { productRoute } from '../route.ts';
import { sessionOrigin, tenantMeSchema } from '../session/identity.ts';
import { tenantParams } from './lookup.ts';

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
    const { employeeId, sessionId, email, fullName } = staff;
    const minted = await impersonateTenant(app, params.tenant_id, { employeeId, sessionId, email, fullName }, sessionOrigin(req));
    setSessionCookies(app, req, res, TENANT_COOKIE, minted.cookie);
    return reply.ok(minted.me);
  },
});
