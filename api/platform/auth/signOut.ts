/**
 * POST /v1/auth/sign-out: ends a sign-in (usecases/signOut.ts). Like token revocation (RFC 7009), an
 * unknown or already revoked token also answers 204: the answer reveals nothing about the token.
 */
import { z } from 'zod';
import { signOut } from '../../../usecases/signOut.ts';
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
      await signOut(app, body.refresh_token, req.clientIp);
      return reply.noContent();
    },
  }),
];
