/**
 * The /v1 bearer surface. Concerns are installed in this order: request id and log scope, access
 * log and metrics, rate limit (headers on every response), mandatory Idempotency-Key, the declared
 * routes (authenticate and authorize, then JSON body, validate, idempotency cache, handle), docs, 404,
 * and the error envelope.
 */
import express, { type Express, type Request, type Response } from 'express';
import { z } from 'zod';
import { jsonValue } from '../http/jsonValue.ts';
import type { AppContext } from '../../lib/context.ts';
import { AppError } from '../../lib/errors.ts';
import { withReadPool } from '../../lib/readReplica.ts';
import { accessLog } from '../http/accessLog.ts';
import { docsRouter } from '../http/docs.ts';
import { buildOpenApi, jsonSchema } from '../http/openapi.ts';
import { rateLimit, type RateLimitStore } from '../http/rateLimit.ts';
import { requestContext } from '../http/requestContext.ts';
import { CLIENT_ERROR_BODY, type ClientErrorBody } from '../http/server.ts';
import { expressPath, jsonContentTypeProblem, takesJsonBody, JSON_MEDIA_TYPES, parseRequest, type Reply } from '../http/routes.ts';
import * as idempotencyStore from '../../sql/idempotency.ts';
import { issuesToDetails, platformErrorHandler, sendPlatformError, validationError } from './errors.ts';
import { IDEMPOTENCY_LOCK_MS, IDEMPOTENCY_TTL_MS, idempotencyIdentity, idempotencyKeyRequired, requireIdempotencyKey } from './idempotency.ts';
import { bearerToken, type PlatformAuthenticator, type Principal } from './principal.ts';
import type { PlatformRoute } from './route.ts';
import { allScopes, scopeTable } from '../../domain/scopes.ts';
import { createScimRouter } from './scim/app.ts';
import { ScimError } from '../../domain/scim/errors.ts';
import { sendScimError } from './scim/errors.ts';

const SCIM_BASE = '/scim/v2';

export const RATE_LIMIT = { limit: 600, windowMs: 60_000 };
const JSON_BODY_LIMIT = '5mb';

export interface PlatformAppOptions {
  routes: PlatformRoute[];
  authenticator: PlatformAuthenticator;
  rateLimitStore: RateLimitStore;
  /** Validate handler responses against their declared schemas (tests keep /openapi.json truthful). */
  validateResponses?: boolean;
}

const errorEnvelopeSchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    trace_id: z.string().optional().describe('Equals the X-Request-Id response header; absent on 429'),
    details: z.record(z.string(), jsonValue('What is wrong with this field or item')).optional(),
  }),
});

const unauthorized = () => new AppError('unauthorized', 'Missing or invalid Authorization header');

export function createPlatformApp(app: AppContext, options: PlatformAppOptions): Express {
  const server = express();
  server.disable('x-powered-by');
  server.set('etag', false);
  server.set(CLIENT_ERROR_BODY, ((_status, message, traceId) => ({ error: { code: 'bad_request', message, trace_id: traceId } })) satisfies ClientErrorBody);
  // Paths are matched as documented: `/V1/INGEST/…` must not reach the ingest handlers while
  // slipping past the (case-sensitive) mandatory Idempotency-Key rule and the cache's path key.
  server.set('case sensitive routing', true);
  // `/v1/jobs/` is not `/v1/jobs`: one spelling per operation, one idempotency cache key.
  server.set('strict routing', true);
  server.use(requestContext(app.config.TRUST_PROXY));
  server.use(accessLog('platform', app.logger));
  server.use(
    rateLimit({
      ...RATE_LIMIT,
      store: options.rateLimitStore,
      now: () => app.clock.now().getTime(),
      logger: app.logger,
      onLimited: (res, req) =>
        req.path.startsWith(SCIM_BASE)
          ? sendScimError(res, new ScimError(429, 'Rate limit exceeded; retry after the number of seconds in Retry-After'))
          : res.status(429).json({ error: { code: 'rate_limited', message: 'Rate limit exceeded; retry after the number of seconds in Retry-After' } }),
    }),
  );
  server.use(requireIdempotencyKey());
  server.use(SCIM_BASE, createScimRouter(app));
  // Bodies are parsed per declared route: JSON sent to an unknown path is still a plain 404.
  // Not strict: a JSON string, number or null is JSON, and fails the route's schema (not "Malformed JSON").
  const jsonBody = express.json({ limit: JSON_BODY_LIMIT, strict: false, type: JSON_MEDIA_TYPES });
  const rawBody = express.raw({ limit: JSON_BODY_LIMIT, type: () => true });
  // Browsers POST SAML responses to the assertion consumer service as a form.
  const formBody = express.urlencoded({ limit: JSON_BODY_LIMIT, extended: false });
  const bodyParserOf = (route: PlatformRoute) =>
    route.rawBody ? rawBody : route.bodyContentType === 'application/x-www-form-urlencoded' ? formBody : jsonBody;

  for (const route of options.routes) {
    // The caller is authenticated before its body is read: an anonymous client cannot make the
    // server parse megabytes of JSON.
    const authenticateFirst = async (req: Request, res: Response, next: () => void) => {
      req.routeTemplate = route.path;
      res.locals.principal = await authenticate(options, route, req);
      next();
    };
    const jsonOnly = (req: Request, _res: Response, next: () => void) => {
      const problem = jsonContentTypeProblem(route, req);
      if (problem) throw new AppError('unsupported_media_type', problem);
      next();
    };
    server[route.method](expressPath(route.path), authenticateFirst, jsonOnly, bodyParserOf(route), async (req: Request, res: Response) => {
      await handle(app, options, route, res.locals.principal as Principal | null, req, res);
    });
  }

  const openapi = platformOpenApi(options.routes);
  server.get('/openapi.json', (_req, res) => {
    res.json(openapi);
  });
  server.use(docsRouter({ title: 'svc platform API', redoc: false }));
  server.use((req, res) => sendPlatformError(req, res, new AppError('not_found', `No route for ${req.method} ${req.path}`)));
  server.use(platformErrorHandler(app.logger));
  return server;
}

async function authenticate(options: PlatformAppOptions, route: PlatformRoute, req: Request): Promise<Principal | null> {
  if (route.auth === 'public') return null;
  const token = bearerToken(req);
  if (route.auth === 'provisioning') {
    const check = options.authenticator.provisioningKey(token ?? '');
    if (check === 'unconfigured') throw new AppError('service_unavailable', 'Client provisioning is not configured on this server');
    if (!token || check === 'invalid') throw new AppError('unauthorized', 'Missing or invalid provisioning key');
    return null;
  }
  if (!token) throw unauthorized();
  const principal = await options.authenticator.bearer(token, req);
  if (!principal) throw unauthorized();
  if (route.scope && !principal.scopes.has(route.scope)) {
    throw new AppError('forbidden', `This request requires the scope ${route.scope}`, { required_scope: route.scope });
  }
  return principal;
}

function serialize(result: Reply): { status: number; headers: Record<string, string>; body: string | null } {
  const headers: Record<string, string> = { ...result.headers };
  if (result.body === undefined || result.status === 204) return { status: result.status, headers, body: null };
  headers['Content-Type'] ??= 'application/json; charset=utf-8';
  return { status: result.status, headers, body: JSON.stringify(result.body) };
}

function send(res: Response, out: { status: number; headers: Record<string, string>; body: string | null }) {
  for (const [name, value] of Object.entries(out.headers)) res.setHeader(name, value);
  res.status(out.status);
  if (out.body === null) res.end();
  else res.send(out.body);
}

async function handle(app: AppContext, options: PlatformAppOptions, route: PlatformRoute, principal: Principal | null, req: Request, res: Response) {
  // Validated before the idempotency cache is consulted: nothing malformed reaches the database.
  const parsed = parseRequest(route, req);
  if (!parsed.ok) {
    const { invalidBody } = route;
    if (invalidBody && parsed.issues.every((i) => i.location === 'body'))
      return sendPlatformError(req, res, new AppError(invalidBody.code, invalidBody.message, issuesToDetails(parsed.issues)));
    return sendPlatformError(req, res, validationError(parsed.issues), route.validationStatus);
  }
  const idempotency = idempotencyIdentity(req);
  if (idempotency) {
    const claim = await idempotencyStore.claimIdempotencyKey(app.pool, idempotency.id, idempotency.requestHash, IDEMPOTENCY_LOCK_MS, IDEMPOTENCY_TTL_MS);
    if (claim.outcome === 'mismatch') throw new AppError('conflict', 'Idempotency-Key was already used with a different request body');
    if (claim.outcome === 'in_flight') throw new AppError('conflict', 'A request with this Idempotency-Key is still being processed');
    if (claim.outcome === 'replay') {
      res.setHeader('Idempotency-Replayed', 'true');
      return send(res, { ...claim.response, body: claim.response.body ? openCachedBody(app, idempotency.id, claim.response.body) : null });
    }
  }
  try {
    const run = async (pool: AppContext['pool']) =>
      route.handler({ ...parsed.value, principal, app: pool === app.pool ? app : { ...app, pool }, req, res } as Parameters<PlatformRoute['handler']>[0]);
    const result = route.readsFrom === 'replica' && principal ? await withReadPool(app.pool, app.replica, principal.workspaceId, run) : await run(app.pool);
    // A write of this workspace is committed: its reads stay on the primary until the replica has it.
    if (principal && app.replica && req.method !== 'GET' && req.method !== 'HEAD') app.replica.noteWrite(principal.workspaceId);
    if (!result) {
      // The handler streamed its own response: nothing to cache.
      if (idempotency) await idempotencyStore.releaseIdempotencyKey(app.pool, idempotency.id);
      return;
    }
    if (options.validateResponses) assertDeclaredResponse(route, result);
    const out = serialize(result);
    if (idempotency) {
      if (out.status >= 200 && out.status < 300) {
        const body = out.body === null ? '' : app.secrets.secretBox.encrypt(out.body, cacheContext(idempotency.id));
        await idempotencyStore.storeIdempotentResponse(app.pool, idempotency.id, { status: out.status, headers: out.headers, body });
      } else {
        await idempotencyStore.releaseIdempotencyKey(app.pool, idempotency.id);
      }
    }
    send(res, out);
  } catch (err) {
    if (idempotency) await idempotencyStore.releaseIdempotencyKey(app.pool, idempotency.id).catch(() => {});
    throw err;
  }
}

/**
 * Cached bodies may hold one-time secrets (a service-account token, provisioning's API key and
 * invite URL) that a replay must return byte for byte: they are kept encrypted (lib/secretBox.ts),
 * bound to their cache entry.
 */
const cacheContext = (id: idempotencyStore.IdempotencyId) => `idempotency:${id.authHash}:${id.path}:${id.key}`;

function openCachedBody(app: AppContext, id: idempotencyStore.IdempotencyId, sealed: string): string {
  try {
    return app.secrets.secretBox.decrypt(sealed, cacheContext(id));
  } catch {
    // Sealed under another SECRETS_KEY (rotated since): the original cannot be replayed.
    throw new AppError('conflict', 'The response cached for this Idempotency-Key can no longer be replayed; retry with a new key');
  }
}

/** In tests: a handler's answer must be one its route documents, in the documented shape. */
function assertDeclaredResponse(route: PlatformRoute, result: Reply) {
  const spec = route.responses[result.status];
  if (!spec) throw new Error(`${route.operationId} answered ${result.status}, which its route does not declare`);
  if (spec.schema) {
    const check = spec.schema.safeParse(JSON.parse(JSON.stringify(result.body ?? null)));
    if (!check.success) throw new Error(`${route.operationId} ${result.status} body does not match its schema: ${check.error.message}`);
  }
}

export function platformOpenApi(routes: PlatformRoute[]) {
  const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } });
  return buildOpenApi({
    title: 'svc platform API',
    description:
      'The versioned bearer-token surface. Errors use the envelope `{error: {code, message, trace_id, details?}}`. ' +
      'Every response carries X-Request-Id, X-RateLimit-Limit and X-RateLimit-Remaining.',
    routes,
    decorate: (route, operation) => {
      const responses = operation.responses as Record<string, unknown>;
      responses['400'] ??= errorResponse('Validation failed (`validation_error`)');
      if (takesJsonBody(route))
        responses['415'] ??= errorResponse('The body is not declared as JSON: send Content-Type: application/json (`unsupported_media_type`)');
      if (route.auth !== 'public') responses['401'] ??= errorResponse('Missing or invalid credentials (`unauthorized`)');
      if (route.scope) {
        responses['403'] ??= errorResponse(
          'The token lacks the required scope (`forbidden`); the workspace enforces MFA and the user has no verified factor (`mfa_required`) or enforces SSO and the sign-in was not made through it (`sso_required`)',
        );
        operation.security = [{ bearerAuth: [route.scope] }];
        operation['x-required-scope'] = route.scope;
      } else if (route.auth === 'provisioning') {
        operation.security = [{ provisioningKey: [] }];
      } else {
        operation.security = [];
      }
      responses['429'] = errorResponse('Rate limited (`rate_limited`, no trace_id); see Retry-After');
      responses['500'] = errorResponse('Unexpected failure (`internal_error`)');
      const parameters = (operation.parameters ??= []) as unknown[];
      if (['post', 'put', 'patch'].includes(route.method)) {
        const required = idempotencyKeyRequired(route.method.toUpperCase(), route.path);
        parameters.push({
          name: 'Idempotency-Key',
          in: 'header',
          required,
          schema: { type: 'string', maxLength: 255 },
          description: required
            ? 'Mandatory (400 idempotency_key_required when missing). The first 2xx response is replayed for 24 hours.'
            : 'Optional. The first 2xx response is replayed for 24 hours with Idempotency-Replayed: true.',
        });
      }
    },
    components: {
      schemas: { ErrorEnvelope: jsonSchema(errorEnvelopeSchema, 'output') },
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT or service-account token',
          description: `Scopes: ${allScopes.map((s) => `\`${s}\` (${scopeTable[s]})`).join(', ')}`,
        },
        provisioningKey: { type: 'http', scheme: 'bearer', description: 'Platform provisioning key (SVC_PROVISION_KEY_HASHES)' },
      },
    },
    extensions: { 'x-scopes': scopeTable, servers: [{ url: '/' }] },
  });
}
