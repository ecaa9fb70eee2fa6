/** SCIM tokens (scope `workspace:admin`): the plaintext is returned once, only its SHA-256 hash is kept. */
import { z } from 'zod';
import * as scim from '../../../sql/scim.ts';
import { reply } from '../../http/routes.ts';
import { listQuery, listResponse, paginate } from '../pagination.ts';
import { workspaceActor } from '../principal.ts';
import { platformRoute } from '../route.ts';
import { createScimToken, revokeScimToken } from '../../../usecases/admin/scimTokens.ts';

const tokenSchema = z.object({
  id: z.string(),
  name: z.string(),
  created_at: z.string(),
  revoked_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
});
const toToken = (row: scim.ScimTokenRow) => ({
  id: row.id,
  name: row.name,
  created_at: row.created_at.toISOString(),
  revoked_at: row.revoked_at?.toISOString() ?? null,
  last_used_at: row.last_used_at?.toISOString() ?? null,
});

export const scimTokenRoutes = [
  platformRoute({
    method: 'post',
    path: '/v1/scim/tokens',
    operationId: 'createScimToken',
    summary: 'Create a SCIM bearer token for /scim/v2/{organization slug} (shown once)',
    tags: ['scim'],
    scope: 'workspace:admin',
    body: z.object({ name: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters') }),
    responses: {
      201: {
        description: 'The token, with its secret',
        schema: z.object({ id: z.string(), name: z.string(), token: z.string().describe('Shown once; only a SHA-256 hash is kept'), created_at: z.string() }),
      },
    },
    handler: async ({ body, principal, app, req }) => {
      const { row, secret } = await createScimToken(app, workspaceActor(principal, req.clientIp), body.name);
      return reply.created({ id: row.id, name: row.name, token: secret, created_at: row.created_at.toISOString() });
    },
  }),
  platformRoute({
    method: 'get',
    path: '/v1/scim/tokens',
    operationId: 'listScimTokens',
    summary: 'List SCIM tokens (metadata only)',
    tags: ['scim'],
    scope: 'workspace:admin',
    query: listQuery({}, ['created_at'], '-created_at'),
    responses: { 200: { description: 'A page of tokens', schema: listResponse(tokenSchema) } },
    handler: async ({ query, principal, app }) =>
      reply.ok(
        await paginate(app.pool, scim.scimTokenList(principal.workspaceId), { query, cursorKey: app.secrets.cursorKey }, (row) =>
          toToken(row as unknown as scim.ScimTokenRow),
        ),
      ),
  }),
  platformRoute({
    method: 'delete',
    path: '/v1/scim/tokens/{id}',
    operationId: 'revokeScimToken',
    summary: 'Revoke a SCIM token (it stops working immediately)',
    tags: ['scim'],
    scope: 'workspace:admin',
    params: z.object({ id: z.uuid({ error: 'must be a token id' }) }),
    responses: { 204: { description: 'Revoked' }, 404: { description: 'Not found' } },
    handler: async ({ params, principal, app, req }) => {
      await revokeScimToken(app, workspaceActor(principal, req.clientIp), params.id);
      return reply.noContent();
    },
  }),
];
