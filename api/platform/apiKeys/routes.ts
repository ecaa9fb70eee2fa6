/**
 * Workspace API keys (scope `workspace:admin`): list and read them without their secret, issue one
 * (the secret is shown once), set or clear an expiry, revoke. Every change is an audit event
 * (`api_key.created`, `api_key.expiry_set`, `api_key.revoked`).
 */
import { z } from 'zod';
import * as apiKeys from '../../../sql/apiKeys.ts';
import { apiKeyNotFound, issueApiKey, revokeApiKey, setApiKeyExpiry } from '../../../usecases/admin/apiKeys.ts';
import { reply } from '../../http/routes.ts';
import { listQuery, listResponse, paginate } from '../pagination.ts';
import { workspaceActor } from '../principal.ts';
import { platformRoute } from '../route.ts';
import { allScopes } from '../../../domain/scopes.ts';

const apiKeySchema = z.object({
  id: z.string(),
  note: z.string(),
  scopes: z.array(z.string()),
  status: z.enum(['active', 'revoked', 'expired']),
  created_at: z.string(),
  expires_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
});
const createdApiKeySchema = apiKeySchema.extend({ secret: z.string().describe('Shown once; only a SHA-256 hash is kept') });

const toApiKey = (row: apiKeys.ApiKeyMetadataRow, now: Date): z.output<typeof apiKeySchema> => ({
  id: row.id,
  note: row.note,
  scopes: row.scopes,
  status: row.revoked_at ? 'revoked' : row.expires_at && row.expires_at <= now ? 'expired' : 'active',
  created_at: row.created_at.toISOString(),
  expires_at: row.expires_at?.toISOString() ?? null,
  revoked_at: row.revoked_at?.toISOString() ?? null,
  last_used_at: row.last_used_at?.toISOString() ?? null,
});

const idParams = z.object({ id: z.string() });

const expiresAt = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 timestamp' }).transform((v) => new Date(v));
export const apiKeyRoutes = [
  platformRoute({
    method: 'get',
    path: '/v1/api-keys',
    operationId: 'listApiKeys',
    summary: "List the workspace's API keys (metadata only, never the secret)",
    tags: ['api-keys'],
    scope: 'workspace:admin',
    query: listQuery({}, ['created_at'], '-created_at'),
    responses: { 200: { description: 'A page of API keys', schema: listResponse(apiKeySchema) } },
    handler: async ({ query, principal, app }) => {
      const now = app.clock.now();
      return reply.ok(
        await paginate(app.pool, apiKeys.apiKeyList(principal.workspaceId), { query, cursorKey: app.secrets.cursorKey }, (row) =>
          toApiKey(row as unknown as apiKeys.ApiKeyMetadataRow, now),
        ),
      );
    },
  }),
  platformRoute({
    method: 'post',
    path: '/v1/api-keys',
    operationId: 'createApiKey',
    summary: 'Issue a workspace API key (the secret is returned once)',
    description: 'Scopes default to the member role’s, as for the key issued at provisioning. `expires_at` is optional.',
    tags: ['api-keys'],
    scope: 'workspace:admin',
    body: z.object({
      note: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
      scopes: z
        .array(z.enum(allScopes, { error: 'is not a known scope' }))
        .min(1, 'must name at least one scope')
        .optional(),
      expires_at: expiresAt.optional(),
    }),
    responses: { 201: { description: 'Issued', schema: createdApiKeySchema } },
    handler: async ({ body, principal, app, req }) => {
      const { row, secret } = await issueApiKey(app, workspaceActor(principal, req.clientIp), {
        note: body.note,
        scopes: body.scopes,
        expiresAt: body.expires_at,
      });
      return reply.created({ ...toApiKey(row, app.clock.now()), secret });
    },
  }),
  platformRoute({
    method: 'get',
    path: '/v1/api-keys/{id}',
    operationId: 'getApiKey',
    summary: 'Get an API key (metadata only)',
    tags: ['api-keys'],
    scope: 'workspace:admin',
    params: idParams,
    responses: { 200: { description: 'The API key', schema: apiKeySchema }, 404: { description: 'Not found' } },
    handler: async ({ params, principal, app }) => {
      const row = await apiKeys.findApiKey(app.pool, principal.workspaceId, params.id);
      if (!row) throw apiKeyNotFound();
      return reply.ok(toApiKey(row, app.clock.now()));
    },
  }),
  platformRoute({
    method: 'patch',
    path: '/v1/api-keys/{id}',
    operationId: 'updateApiKey',
    summary: 'Set (or clear, with null) the expiry of an API key; a past time expires it at once',
    tags: ['api-keys'],
    scope: 'workspace:admin',
    params: idParams,
    body: z.object({ expires_at: expiresAt.nullable() }),
    responses: { 200: { description: 'The API key', schema: apiKeySchema }, 404: { description: 'Not found (or revoked)' } },
    handler: async ({ params, body, principal, app, req }) =>
      reply.ok(toApiKey(await setApiKeyExpiry(app, workspaceActor(principal, req.clientIp), params.id, body.expires_at), app.clock.now())),
  }),
  platformRoute({
    method: 'delete',
    path: '/v1/api-keys/{id}',
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key (it stops working immediately)',
    tags: ['api-keys'],
    scope: 'workspace:admin',
    params: idParams,
    responses: { 204: { description: 'Revoked' }, 404: { description: 'Not found' } },
    handler: async ({ params, principal, app, req }) => {
      await revokeApiKey(app, workspaceActor(principal, req.clientIp), params.id);
      return reply.noContent();
    },
  }),
];
