/**
 * The cookie-session product surface. Installed in this order: request id and log scope, access
 * log and metrics, the allowlisted routes (JSON body, session, CSRF and permission checks, then
 * validation and the handler), /openapi.json, /docs and /redoc, the plain 404 and `{detail}` errors.
 */
import express, { type Express, type Request, type Response } from 'express';
import type { AppContext } from '../../lib/context.ts';
import { accessLog } from '../http/accessLog.ts';
import { docsRouter } from '../http/docs.ts';
import { buildOpenApi } from '../http/openapi.ts';
import { requestContext } from '../http/requestContext.ts';
import { CLIENT_ERROR_BODY, type ClientErrorBody } from '../http/server.ts';
import { expressPath, parseRequest } from '../http/routes.ts';
import { allowlist, isAllowed, type AllowedOperation } from './allowlist.ts';
import { issuesToValidationDetail, productErrorHandler, sendProductError } from './errors.ts';
import { createSessionGuard, staffRolesOf } from './guard.ts';
import type { ProductRoute } from './route.ts';

export interface ProductAppOptions {
  routes: ProductRoute[];
  /** The published operations; the declared allowlist unless a test widens it. */
  allowlist?: readonly AllowedOperation[];
  validateResponses?: boolean;
}

/** Declared routes that are also on the allowlist: the published surface. */
export function publishedRoutes(routes: ProductRoute[], list: readonly AllowedOperation[] = allowlist): ProductRoute[] {
  const published = routes.filter((r) => isAllowed(list, r.method, r.path));
  const missing = list.filter((op) => !published.some((r) => r.method === op.method && r.path === op.path));
  if (missing.length) throw new Error(`allowlisted operations without a route: ${missing.map((m) => `${m.method.toUpperCase()} ${m.path}`).join(', ')}`);
  return published;
}

export function createProductApp(app: AppContext, options: ProductAppOptions): Express {
  const routes = publishedRoutes(options.routes, options.allowlist);
  const guard = createSessionGuard(app);
  const server = express();
  server.disable('x-powered-by');
  server.set('etag', false);
  server.set(CLIENT_ERROR_BODY, ((_status, message) => ({ detail: message })) satisfies ClientErrorBody);
  // `/HEALTH` and `/health/` are not published operations: they answer the plain 404 too.
  server.set('case sensitive routing', true);
  server.set('strict routing', true);
  server.use(requestContext(app.config.TRUST_PROXY, app.config.CONSOLE_PROXY_SECRET));
  server.use(accessLog('product', app.logger));
  // Parsed per published route, so that a body sent to anything else is still the plain 404.
  const jsonBody = express.json({ limit: '1mb' });

  for (const route of routes) {
    server[route.method](expressPath(route.path), jsonBody, async (req: Request, res: Response) => {
      req.routeTemplate = route.path;
      const principals = await guard.authorize(route, req);
      const parsed = parseRequest(route, req);
      if (!parsed.ok) return sendProductError(res, 422, issuesToValidationDetail(parsed.issues));
      const result = await route.handler({ ...parsed.value, ...principals, app, req, res } as Parameters<ProductRoute['handler']>[0]);
      if (!result) return;
      if (options.validateResponses) {
        const spec = route.responses[result.status];
        if (!spec) throw new Error(`${route.operationId} answered ${result.status}, which its route does not declare`);
        const check = spec.schema?.safeParse(JSON.parse(JSON.stringify(result.body ?? null)));
        if (check && !check.success) throw new Error(`${route.operationId} ${result.status} body does not match its schema: ${check.error.message}`);
      }
      for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
      res.status(result.status);
      if (result.body === undefined) res.end();
      else res.json(result.body);
    });
  }

  const openapi = productOpenApi(routes);
  server.get('/openapi.json', (_req, res) => {
    res.json(openapi);
  });
  server.use(docsRouter({ title: 'svc product API', redoc: true }));
  server.use((_req, res) => sendProductError(res, 404, 'Not Found'));
  server.use(productErrorHandler(app.logger));
  return server;
}

export function productOpenApi(routes: ProductRoute[]) {
  return buildOpenApi({
    title: 'svc product API',
    description:
      'The cookie-session surface for the staff and tenant consoles. Errors are `{detail: …}`; request validation ' +
      'failures are 422 with `detail` an array of `{loc, msg, type, input}`. Mutating cookie routes require ' +
      'X-CSRF-Token equal to the svc_csrf cookie.',
    routes,
    decorate: (route, operation) => {
      const responses = operation.responses as Record<string, unknown>;
      if (route.body || route.query || route.params) responses['422'] ??= { description: 'Request validation failed' };
      if (route.auth === 'staff') operation.security = [{ staffSession: [] }];
      else if (route.auth === 'tenant') operation.security = [{ tenantSession: [] }];
      else operation.security = [];
      if (route.permission) operation['x-required-permission'] = route.permission;
      if (route.auth === 'staff') operation['x-staff-roles'] = staffRolesOf(route);
    },
    components: {
      securitySchemes: {
        staffSession: { type: 'apiKey', in: 'cookie', name: 'svc_admin_session' },
        tenantSession: { type: 'apiKey', in: 'cookie', name: 'svc_tenant_session' },
      },
    },
    extensions: { servers: [{ url: '/' }] },
  });
}
