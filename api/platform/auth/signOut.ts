/**
 * POST /v1/auth/sign-out: ends a sign-in. The refresh token names its token family; the family is
 * revoked, so its refresh tokens are refused and its access tokens stop authenticating at once (the
 * authenticator checks the family on every request). Like token revocation (RFC 7009), an unknown or
 * already revoked token also answers 204: the answer reveals nothing about the token.
 */
import { z } from 'zod';
import { sha256Hex } from '../../../lib/crypto.ts';
import { withTransaction } from '../../../lib/db.ts';
import { recordAudit } from '../../../sql/audit.ts';
import * as families from '../../../sql/tokenFamilies.ts';
import { reply } from '../../http/routes.ts';
import { platformRoute } from '../route.ts';

export const signOutRoutes = [
  platformRoute({
    method: 'post',
    path: '/v1/auth/sign-out',
    operationId: 'signOut',
    summary: 'End a sign-in: revoke the refresh token, its rotations and every access token issued with them',
    tags: ['auth'],
    auth: 'public',
    body: z.object({ refresh_token: z.string().min(1, 'must not be empty').max(200) }),
    responses: { 204: { description: 'Signed out (also when the token was unknown or already revoked)' } },
    handler: async ({ body, app, req }) => {
      await withTransaction(app.pool, async (client) => {
        const found = await families.lockRefreshToken(client, sha256Hex(body.refresh_token));
        if (!found || found.family.revoked_at) return;
        await families.revokeFamily(client, found.family.id, 'signed_out');
        await recordAudit(client, {
          workspaceId: found.family.workspace_id,
          action: 'auth.signed_out',
          actorType: 'user',
          actorId: found.family.user_id,
          targetType: 'token_family',
          targetId: found.family.id,
          clientIp: req.clientIp,
        });
      });
      return reply.noContent();
    },
  }),
];
