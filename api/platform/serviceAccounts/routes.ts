/** Service accounts and their tokens (scope `workspace:admin`). Token secrets are shown once. */
import { z } from 'zod';
import { randomToken, sha256Hex } from '../../../lib/crypto.ts';
import { withTransaction } from '../../../lib/db.ts';
import { AppError } from '../../../lib/errors.ts';
import { recordAudit, auditActor } from '../../../sql/audit.ts';
import * as accounts from '../../../sql/serviceAccounts.ts';
import { reply } from '../../http/routes.ts';
import { SERVICE_ACCOUNT_TOKEN_PREFIX } from '../../../domain/credentials.ts';
import { listQuery, listResponse, paginate } from '../pagination.ts';
import { platformRoute } from '../route.ts';
import { allScopes } from '../../../domain/scopes.ts';

const serviceAccountSchema = z.object({
  id: z.string(),
  name: z.string(),
  scopes: z.array(z.string()),
  status: z.literal('active'),
  workspace_id: z.string(),
  created_at: z.string(),
});
const tokenMetadataSchema = z.object({
  id: z.string(),
  name: z.string(),
  expires_at: z.string(),
  created_at: z.string(),
  revoked_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
  status: z.enum(['active', 'revoked', 'expired']),
});
const createdTokenSchema = z.object({
  id: z.string(),
  token: z.string().describe('Shown once; only a SHA-256 hash is kept'),
  name: z.string(),
  expires_at: z.string(),
});

const toAccount = (row: accounts.ServiceAccountRow) => ({
  id: row.id,
  name: row.name,
  scopes: row.scopes,
  status: row.status,
  workspace_id: row.workspace_id,
  created_at: row.created_at.toISOString(),
});

const toTokenMetadata = (row: accounts.ServiceAccountTokenRow, now: Date) => ({
  id: row.id,
  name: row.name,
  expires_at: row.expires_at.toISOString(),
  created_at: row.created_at.toISOString(),
  revoked_at: row.revoked_at?.toISOString() ?? null,
  last_used_at: row.last_used_at?.toISOString() ?? null,
  status: row.revoked_at ? ('revoked' as const) : row.expires_at <= now ? ('expired' as const) : ('active' as const),
});

const accountParams = z.object({ id: z.string() });
const notFound = () => new AppError('not_found', 'Service account not found');

export const serviceAccountRoutes = [
  platformRoute({
    method: 'post',
    path: '/v1/service-accounts',
    operationId: 'createServiceAccount',
    summary: 'Create a service account',
    tags: ['service-accounts'],
    scope: 'workspace:admin',
    body: z.object({
      name: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'),
      scopes: z.array(z.enum(allScopes, { error: 'is not a known scope' })).min(1, 'must name at least one scope'),
    }),
    responses: { 201: { description: 'Created', schema: serviceAccountSchema }, 409: { description: 'The name is taken (`conflict`)' } },
    handler: async ({ body, principal, app, req }) =>
      withTransaction(app.pool, async (client) => {
        const row = await accounts.insertServiceAccount(client, principal.workspaceId, body.name, [...new Set(body.scopes)], principal.subjectId);
        if (!row) throw new AppError('conflict', `A service account named '${body.name}' already exists`);
        await recordAudit(client, {
          workspaceId: principal.workspaceId,
          action: 'service_account.created',
          ...auditActor(principal),
          targetType: 'service_account',
          targetId: row.id,
          clientIp: req.clientIp,
          metadata: { name: row.name, scopes: row.scopes },
        });
        return reply.created(toAccount(row));
      }),
  }),
  platformRoute({
    method: 'get',
    path: '/v1/service-accounts',
    operationId: 'listServiceAccounts',
    summary: 'List service accounts',
    tags: ['service-accounts'],
    scope: 'workspace:admin',
    query: listQuery({}, ['created_at', 'name'], '-created_at'),
    responses: { 200: { description: 'A page of service accounts', schema: listResponse(serviceAccountSchema) } },
    handler: async ({ query, principal, app }) =>
      reply.ok(
        await paginate(app.pool, accounts.serviceAccountList(principal.workspaceId), { query, cursorKey: app.secrets.cursorKey }, (row) =>
          toAccount(row as accounts.ServiceAccountRow),
        ),
      ),
  }),
  platformRoute({
    method: 'get',
    path: '/v1/service-accounts/{id}',
    operationId: 'getServiceAccount',
    summary: 'Get a service account',
    tags: ['service-accounts'],
    scope: 'workspace:admin',
    params: accountParams,
    responses: { 200: { description: 'The service account', schema: serviceAccountSchema }, 404: { description: 'Not found' } },
    handler: async ({ params, principal, app }) => {
      const row = await accounts.findServiceAccount(app.pool, principal.workspaceId, params.id);
      if (!row) throw notFound();
      return reply.ok(toAccount(row));
    },
  }),
  platformRoute({
    method: 'delete',
    path: '/v1/service-accounts/{id}',
    operationId: 'deleteServiceAccount',
    summary: 'Delete a service account and all its tokens',
    tags: ['service-accounts'],
    scope: 'workspace:admin',
    params: accountParams,
    responses: { 204: { description: 'Deleted' }, 404: { description: 'Not found' } },
    handler: async ({ params, principal, app, req }) =>
      withTransaction(app.pool, async (client) => {
        if (!(await accounts.deleteServiceAccount(client, principal.workspaceId, params.id))) throw notFound();
        await recordAudit(client, {
          workspaceId: principal.workspaceId,
          action: 'service_account.deleted',
          ...auditActor(principal),
          targetType: 'service_account',
          targetId: params.id,
          clientIp: req.clientIp,
        });
        return reply.noContent();
      }),
  }),
  platformRoute({
    method: 'post',
    path: '/v1/service-accounts/{id}/tokens',
    operationId: 'createServiceAccountToken',
    summary: 'Issue a token for a service account (the secret is returned once)',
    tags: ['service-accounts'],
    scope: 'workspace:admin',
    params: accountParams,
    body: z.object({
      name: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'),
      expires_at: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 timestamp' }),
    }),
    responses: { 201: { description: 'The token, with its secret', schema: createdTokenSchema }, 404: { description: 'Not found' } },
    handler: async ({ params, body, principal, app, req }) => {
      const expiresAt = new Date(body.expires_at);
      if (expiresAt <= app.clock.now()) throw new AppError('validation_error', 'Request validation failed', { expires_at: 'must be in the future' });
      return withTransaction(app.pool, async (client) => {
        const account = await accounts.findServiceAccount(client, principal.workspaceId, params.id);
        if (!account) throw notFound();
        const secret = randomToken(32, SERVICE_ACCOUNT_TOKEN_PREFIX);
        const token = await accounts.insertServiceAccountToken(client, account, body.name, sha256Hex(secret), expiresAt);
        await recordAudit(client, {
          workspaceId: principal.workspaceId,
          action: 'service_account.token.created',
          ...auditActor(principal),
          targetType: 'service_account_token',
          targetId: token.id,
          clientIp: req.clientIp,
          metadata: { service_account_id: account.id, expires_at: token.expires_at },
        });
        return reply.created({ id: token.id, token: secret, name: token.name, expires_at: token.expires_at.toISOString() });
      });
    },
  }),
  platformRoute({
    method: 'get',
    path: '/v1/service-accounts/{id}/tokens',
    operationId: 'listServiceAccountTokens',
    summary: "List a service account's tokens (metadata only, never the secret)",
    tags: ['service-accounts'],
    scope: 'workspace:admin',
    params: accountParams,
    query: listQuery({}, ['created_at'], '-created_at'),
    responses: { 200: { description: 'A page of tokens', schema: listResponse(tokenMetadataSchema) }, 404: { description: 'Not found' } },
    handler: async ({ params, query, principal, app }) => {
      const account = await accounts.findServiceAccount(app.pool, principal.workspaceId, params.id);
      if (!account) throw notFound();
      const now = app.clock.now();
      return reply.ok(
        await paginate(app.pool, accounts.serviceAccountTokenList(principal.workspaceId, account.id), { query, cursorKey: app.secrets.cursorKey }, (row) =>
          toTokenMetadata(row as accounts.ServiceAccountTokenRow, now),
        ),
      );
    },
  }),
  platformRoute({
    method: 'delete',
    path: '/v1/service-accounts/{id}/tokens/{tok_id}',
    operationId: 'revokeServiceAccountToken',
    summary: 'Revoke a service-account token (it stops working immediately)',
    tags: ['service-accounts'],
    scope: 'workspace:admin',
    params: z.object({ id: z.string(), tok_id: z.string() }),
    responses: { 204: { description: 'Revoked' }, 404: { description: 'Not found' } },
    handler: async ({ params, principal, app, req }) =>
      withTransaction(app.pool, async (client) => {
        const token = await accounts.revokeServiceAccountToken(client, principal.workspaceId, params.id, params.tok_id);
        if (!token) throw new AppError('not_found', 'Service-account token not found');
        await recordAudit(client, {
          workspaceId: principal.workspaceId,
          action: 'service_account.token.revoked',
          ...auditActor(principal),
          targetType: 'service_account_token',
          targetId: token.id,
          clientIp: req.clientIp,
        });
        return reply.noContent();
      }),
  }),
];
