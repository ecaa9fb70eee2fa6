/** Tenant sessions: POST /login, GET /me, POST /logout, and the live workspace list. */
import { z } from 'zod';
import { listLiveTenants } from '../../../sql/tenants.ts';
import { withTenant } from '../../../sql/tenant/schema.ts';
import { revokeTenantSession } from '../../../sql/tenant/sessions.ts';
import { INVALID_TENANT_LOGIN, tenantLogin } from '../../../usecases/tenantLogin.ts';
import { reply } from '../../http/routes.ts';
import { clearSessionCookie, setSessionCookies, TENANT_COOKIE } from '../cookies.ts';
import { detailSchema } from '../errors.ts';
import { productRoute } from '../route.ts';
import { sessionOrigin, tenantMe, tenantMeSchema } from './identity.ts';

const workspaceSchema = z.object({
  client_id: z.string().describe('The tenant slug'),
  company: z.string(),
  industry: z.string().nullable(),
  status: z.literal('live'),
});

export const tenantSessionRoutes = [
  productRoute({
    method: 'post',
    path: '/login',
    operationId: 'tenant_login',
    summary: 'Tenant user login',
    description:
      'Signs in to a live workspace; sets `svc_tenant_session` (`<slug>:<token>`, 24 h) and a fresh `svc_csrf`. ' +
      'Rate limited per IP (20 / 5 min) and per account `tenant:{tenant_id}:{email}` (5 / 15 min).',
    tags: ['authentication'],
    auth: 'public',
    csrfExempt: true,
    body: z.object({
      workspace: z.string().trim().min(1).max(63).describe('The tenant slug'),
      email: z.string().trim().min(1).max(320),
      password: z.string().min(1).max(1024),
    }),
    responses: {
      200: { description: 'Signed in', schema: tenantMeSchema },
      401: { description: INVALID_TENANT_LOGIN, schema: detailSchema },
      429: { description: 'Too many login attempts. Try again later.', schema: detailSchema },
    },
    handler: async ({ app, req, res, body }) => {
      const minted = await tenantLogin(app, body, req.clientIp, sessionOrigin(req));
      setSessionCookies(app, req, res, TENANT_COOKIE, minted.cookie);
      return reply.ok(minted.me);
    },
  }),
  productRoute({
    method: 'get',
    path: '/me',
    operationId: 'tenant_me',
    summary: 'The signed-in tenant user',
    tags: ['authentication'],
    auth: 'tenant',
    responses: {
      200: { description: 'Tenant identity', schema: tenantMeSchema },
      401: { description: 'No tenant session. / Tenant session expired or revoked.', schema: detailSchema },
    },
    handler: ({ tenant }) => reply.ok(tenantMe(tenant)),
  }),
  productRoute({
    method: 'post',
    path: '/logout',
    operationId: 'tenant_logout',
    summary: 'Tenant logout: revokes the session',
    tags: ['authentication'],
    auth: 'tenant',
    responses: {
      204: { description: 'Session revoked; the tenant cookie is cleared' },
      401: { description: 'No live session', schema: detailSchema },
      403: { description: 'CSRF token missing or mismatched.', schema: detailSchema },
    },
    handler: async ({ app, req, res, tenant }) => {
      await withTenant(app.pool, tenant.schema, (client) => revokeTenantSession(client, tenant.sessionId, app.clock.now()));
      clearSessionCookie(app, req, res, TENANT_COOKIE);
      return reply.noContent();
    },
  }),
  productRoute({
    method: 'get',
    path: '/workspaces',
    operationId: 'list_workspaces',
    summary: 'Live workspaces',
    description: 'Tenants in state `live` only, for the console’s workspace picker. Needs no credential.',
    tags: ['authentication'],
    auth: 'public',
    responses: { 200: { description: 'Live workspaces', schema: z.array(workspaceSchema) } },
    handler: async ({ app }) =>
      reply.ok((await listLiveTenants(app.pool)).map((t) => ({ client_id: t.slug, company: t.company, industry: t.industry, status: 'live' as const }))),
  }),
];
