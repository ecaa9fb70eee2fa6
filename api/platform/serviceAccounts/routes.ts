/** Service accounts and their tokens (scope `workspace:admin`). Token secrets are shown once. */
import { z } from 'zod';
import * as accounts from '../../../sql/serviceAccounts.ts';
import { reply } from '../../http/routes.ts';
import {
  createServiceAccount,
  deleteServiceAccount,
  issueServiceAccountToken,
  revokeServiceAccountToken,
  serviceAccountNotFound,
} from '../../../usecases/admin/serviceAccounts.ts';
import { listQuery, listResponse, paginate } from '../pagination.ts';
import { workspaceActor } from '../principal.ts';
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
      reply.created(toAccount(await createServiceAccount(app, workspaceActor(principal, req.clientIp), { name: body.name, scopes: body.scopes }))),
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
      if (!row) throw serviceAccountNotFound();
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
    handler: async ({ params, principal, app, req }) => {
      await deleteServiceAccount(app, workspaceActor(principal, req.clientIp), params.id);
      return reply.noContent();
    },
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
      const { token, secret } = await issueServiceAccountToken(app, workspaceActor(principal, req.clientIp), params.id, {
        name: body.name,
        expiresAt: new Date(body.expires_at),
      });
      return reply.created({ id: token.id, token: secret, name: token.name, expires_at: token.expires_at.toISOString() });
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
      if (!account) throw serviceAccountNotFound();
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
    handler: async ({ params, principal, app, req }) => {
      await revokeServiceAccountToken(app, workspaceActor(principal, req.clientIp), params.id, params.tok_id);
      return reply.noContent();
    },
  }),
];
