/**
 * SCIM 2.0 at `{base_url}/scim/v2/{tenant}` (tenant = organization slug), authenticated by a SCIM
 * token of one of that organization's workspaces (only its SHA-256 hash is stored). Every answer is
 * `application/scim+json`; every failure a SCIM error body. Bodies are read after the token is
 * checked, as JSON when sent as `application/scim+json`, `application/json` or without a
 * Content-Type; any other Content-Type is 415.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import type { AppContext } from '../../../lib/context.ts';
import { sha256Hex } from '../../../lib/crypto.ts';
import { SCIM_TOKEN_PREFIX } from '../../../domain/credentials.ts';
import * as scim from '../../../sql/scim.ts';
import { bearerToken } from '../principal.ts';
import { platformBaseUrl } from '../publicUrl.ts';
import { discoveryDocuments } from './discovery.ts';
import { ScimError, scimNotFound } from '../../../domain/scim/errors.ts';
import type { PatchOperation } from '../../../domain/scim/patch.ts';
import type { ScimScope } from '../../../usecases/scim/scimScope.ts';
import { createScimGroup, deleteScimGroup, patchScimGroup, replaceScimGroup } from '../../../usecases/scim/groups.ts';
import { deprovisionScimUser, patchScimUser, provisionScimUser, replaceScimUser } from '../../../usecases/scim/users.ts';
import { SCIM_CONTENT_TYPE, sendScimError } from './errors.ts';
import { filterToSql } from './filter.ts';
import * as resources from './resources.ts';
import { isUuid } from '../../../lib/ids.ts';

const MAX_COUNT = 200;
const TOUCH_INTERVAL_MS = 60_000;

declare module 'express-serve-static-core' {
  interface Request {
    scim?: ScimScope;
  }
}

const send = (res: Response, status: number, body?: unknown, headers: Record<string, string> = {}) => {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.status(status);
  if (body === undefined) return void res.end();
  res.setHeader('Content-Type', SCIM_CONTENT_TYPE);
  res.send(JSON.stringify(body));
};

function pagingOf(query: Request['query']): { startIndex: number; count: number } {
  const integer = (name: string, fallback: number) => {
    const raw = query[name];
    if (raw === undefined) return fallback;
    if (typeof raw !== 'string' || !/^-?\d+$/.test(raw.trim())) throw new ScimError(400, `${name} must be an integer`, 'invalidValue');
    return Number(raw);
  };
  // RFC 7644 3.4.2.4: startIndex below 1 is 1, a negative count is 0.
  return { startIndex: Math.max(1, integer('startIndex', 1)), count: Math.min(MAX_COUNT, Math.max(0, integer('count', 100))) };
}

function patchOperations(body: unknown): PatchOperation[] {
  if (typeof body !== 'object' || body === null) throw new ScimError(400, 'The body must be a PatchOp message', 'invalidSyntax');
  const record = body as Record<string, unknown>;
  const operations = record.Operations ?? record.operations;
  if (!Array.isArray(operations) || operations.length === 0) throw new ScimError(400, 'Operations must be a non-empty array', 'invalidSyntax');
  if (!operations.every((op) => typeof op === 'object' && op !== null && typeof (op as PatchOperation).op === 'string')) {
    throw new ScimError(400, 'Every operation needs an op', 'invalidSyntax');
  }
  return operations as PatchOperation[];
}

export function createScimRouter(app: AppContext): express.Router {
  const router = express.Router({ mergeParams: true });
  const lastTouched = new Map<string, number>();

  // `req.is` is null without a body and false for a body of another type.
  const requireJsonBody = (req: Request, _res: Response, next: NextFunction) => {
    if (req.headers['content-type'] && req.is(['application/scim+json', 'application/json']) === false) {
      throw new ScimError(415, `Send the body as application/scim+json (or application/json), not ${req.headers['content-type']}`);
    }
    next();
  };
  // What reaches the parser is JSON or untyped (Okta's published requests name no Content-Type).
  const jsonBody = express.json({ limit: '1mb', type: () => true });

  const authenticate = async (req: Request, _res: Response, next: NextFunction) => {
    const token = bearerToken(req);
    const found = token?.startsWith(SCIM_TOKEN_PREFIX) ? await scim.findLiveScimToken(app.pool, sha256Hex(token)) : null;
    if (!found || found.organization_slug !== req.params.tenant) throw new ScimError(401, 'Missing or invalid SCIM bearer token for this tenant');
    if (Date.now() - (lastTouched.get(found.id) ?? 0) > TOUCH_INTERVAL_MS) {
      lastTouched.set(found.id, Date.now());
      scim.touchScimToken(app.pool, found.id).catch((err) => app.logger.warn('could not record last_used_at', { err }));
    }
    req.scim = {
      workspaceId: found.workspace_id,
      organizationId: found.organization_id,
      tokenId: found.id,
      base: `${platformBaseUrl(app, req)}/scim/v2/${found.organization_slug}`,
      clientIp: req.clientIp,
    };
    next();
  };

  /** Declares one SCIM operation: the access log names its template, the token is checked first. */
  const route = (
    method: 'get' | 'post' | 'put' | 'patch' | 'delete',
    path: string,
    handler: (req: Request, res: Response, scope: ScimScope, id: string) => Promise<void>,
  ) => {
    router[method](
      `/:tenant${path}`,
      (req, _res, next) => {
        req.routeTemplate = `/scim/v2/{tenant}${path.replace(/:(\w+)/g, '{$1}')}`;
        next();
      },
      authenticate,
      requireJsonBody,
      jsonBody,
      async (req, res) => handler(req, res, req.scim!, String(req.params.id ?? '')),
    );
  };

  for (const [path, document] of Object.entries(discoveryDocuments)) {
    route('get', `/${path}`, async (_req, res, scope, _id) => send(res, 200, document(scope.base)));
  }
  route('get', '/Schemas/:id', async (_req, res, scope, id) => {
    const found = discoveryDocuments.Schemas(scope.base).Resources.find((s) => s.id === id);
    if (!found) throw scimNotFound('Schema');
    send(res, 200, found);
  });
  route('get', '/ResourceTypes/:id', async (_req, res, scope, id) => {
    const found = discoveryDocuments.ResourceTypes(scope.base).Resources.find((s) => s.id === id);
    if (!found) throw scimNotFound('ResourceType');
    send(res, 200, found);
  });

  const list = async (req: Request, scope: ScimScope, table: 'scim_users' | 'scim_groups') => {
    const { startIndex, count } = pagingOf(req.query);
    const filterText = req.query.filter;
    if (filterText !== undefined && typeof filterText !== 'string') throw new ScimError(400, 'filter must be a single string', 'invalidFilter');
    const where = filterText ? filterToSql(filterText, table === 'scim_users' ? resources.userFilterAttributes : resources.groupFilterAttributes) : null;
    return { startIndex, ...(await scim.listScim<never>(app.pool, table, scope.workspaceId, where?.sql ?? null, where?.params ?? [], startIndex - 1, count)) };
  };
  const listResponse = (startIndex: number, total: number, items: unknown[]) => ({
    schemas: [resources.LIST_SCHEMA],
    totalResults: total,
    startIndex,
    itemsPerPage: items.length,
    Resources: items,
  });
  const excludesMembers = (req: Request) =>
    typeof req.query.excludedAttributes === 'string' && req.query.excludedAttributes.split(',').some((a) => a.trim().toLowerCase() === 'members');

  // Users ---------------------------------------------------------------------------------------
  route('get', '/Users', async (req, res, scope, _id) => {
    const page = await list(req, scope, 'scim_users');
    send(res, 200, listResponse(page.startIndex, page.total, await resources.renderUsers(app.pool, page.rows as scim.ScimUserRow[], scope.base)));
  });
  const oneUser = async (id: string, scope: ScimScope) => {
    const row = isUuid(id) ? await scim.findScimUser(app.pool, scope.workspaceId, id) : null;
    if (!row) throw scimNotFound('User');
    return (await resources.renderUsers(app.pool, [row], scope.base))[0];
  };
  route('get', '/Users/:id', async (_req, res, scope, id) => send(res, 200, await oneUser(id, scope)));
  route('post', '/Users', async (req, res, scope, _id) => {
    const row = await provisionScimUser(app, scope, req.body);
    const body = await oneUser(row.id, scope);
    send(res, 201, body, { Location: body.meta.location });
  });
  route('put', '/Users/:id', async (req, res, scope, id) => {
    if (!isUuid(id)) throw scimNotFound('User');
    await replaceScimUser(app, scope, id, req.body);
    send(res, 200, await oneUser(id, scope));
  });
  route('patch', '/Users/:id', async (req, res, scope, id) => {
    if (!isUuid(id)) throw scimNotFound('User');
    const operations = patchOperations(req.body);
    await patchScimUser(app, scope, id, operations);
    send(res, 200, await oneUser(id, scope));
  });
  route('delete', '/Users/:id', async (_req, res, scope, id) => {
    if (!isUuid(id)) throw scimNotFound('User');
    await deprovisionScimUser(app, scope, id);
    send(res, 204);
  });

  // Groups --------------------------------------------------------------------------------------
  const renderGroups = async (rows: scim.ScimGroupRow[], scope: ScimScope, withMembers: boolean) => {
    const members =
      withMembers && rows.length
        ? await scim.groupMembers(
            app.pool,
            rows.map((r) => r.id),
          )
        : [];
    return rows.map((row) => resources.toScimGroup(row, withMembers ? members.filter((m) => m.group_id === row.id) : null, scope.base));
  };
  const oneGroup = async (id: string, scope: ScimScope, withMembers = true) => {
    const row = isUuid(id) ? await scim.findScimGroup(app.pool, scope.workspaceId, id) : null;
    if (!row) throw scimNotFound('Group');
    return (await renderGroups([row], scope, withMembers))[0];
  };
  route('get', '/Groups', async (req, res, scope, _id) => {
    const page = await list(req, scope, 'scim_groups');
    send(res, 200, listResponse(page.startIndex, page.total, await renderGroups(page.rows as scim.ScimGroupRow[], scope, !excludesMembers(req))));
  });
  route('get', '/Groups/:id', async (req, res, scope, id) => send(res, 200, await oneGroup(id, scope, !excludesMembers(req))));
  route('post', '/Groups', async (req, res, scope, _id) => {
    const row = await createScimGroup(app, scope, req.body);
    const body = await oneGroup(row.id, scope);
    send(res, 201, body, { Location: body.meta.location });
  });
  route('put', '/Groups/:id', async (req, res, scope, id) => {
    await replaceScimGroup(app, scope, id, req.body);
    send(res, 200, await oneGroup(id, scope));
  });
  route('patch', '/Groups/:id', async (req, res, scope, id) => {
    const operations = patchOperations(req.body);
    await patchScimGroup(app, scope, id, operations);
    send(res, 200, await oneGroup(id, scope));
  });
  route('delete', '/Groups/:id', async (_req, res, scope, id) => {
    await deleteScimGroup(app, scope, id);
    send(res, 204);
  });

  router.use((req, res) => sendScimError(res, new ScimError(404, `No SCIM endpoint for ${req.method} ${req.originalUrl.split('?')[0]}`)));
  router.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (err instanceof ScimError) return sendScimError(res, err);
    const type = (err as { type?: string }).type;
    if (type === 'entity.parse.failed') return sendScimError(res, new ScimError(400, 'The body is not valid JSON', 'invalidSyntax'));
    if (type === 'entity.too.large') return sendScimError(res, new ScimError(413, 'The body is too large'));
    app.logger.error('unhandled SCIM error', { err, method: req.method, path: req.path });
    sendScimError(res, new ScimError(500, `Internal error (trace ${req.traceId})`));
  });
  return router;
}
