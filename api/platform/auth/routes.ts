/** POST /v1/auth/exchange and POST /v1/auth/refresh (no bearer: they are how a caller gets one). */
import { z } from 'zod';
import { reply } from '../../http/routes.ts';
import { platformRoute } from '../route.ts';
import { signInIdentity } from '../../../usecases/signIn.ts';
import { verifySubjectToken } from './identityProvider.ts';
import { rotateRefreshToken } from '../../../usecases/refreshSession.ts';

export const tokenPairSchema = z.object({
  access_token: z.string(),
  refresh_token: z.string(),
  token_type: z.literal('bearer'),
  expires_in: z.literal(259200),
  scope: z.string().describe('Space-separated scopes'),
  workspace_id: z.string(),
});

export const authRoutes = [
  platformRoute({
    method: 'post',
    path: '/v1/auth/exchange',
    operationId: 'exchangeToken',
    summary: 'Exchange an identity-provider token for a service token pair',
    description:
      'Deny by default: the identity must resolve to an existing membership or to just-in-time provisioning the workspace enabled. ' +
      'With several memberships, `workspace_id` picks one (default: the earliest).',
    tags: ['auth'],
    auth: 'public',
    body: z.object({
      subject_token: z.string().min(1, 'must not be empty'),
      workspace_id: z.uuid().optional(),
      mfa_code: z
        .string()
        .trim()
        .min(1, 'must not be empty')
        .max(64)
        .optional()
        .describe('TOTP or SMS code, or a recovery code; required once the user has a verified factor'),
    }),
    responses: {
      200: { description: 'Token pair', schema: tokenPairSchema },
      401: { description: 'The subject token cannot be verified (`invalid_grant`)' },
      403: {
        description:
          'The identity resolves to no membership (`forbidden`); a second factor is needed (`mfa_required`); the workspace requires SSO (`sso_required`)',
      },
      429: { description: 'Too many wrong MFA codes (`rate_limited`)' },
    },
    handler: async ({ body, app, req }) => {
      const identity = await verifySubjectToken(app, body.subject_token);
      return reply.ok(await signInIdentity(app, identity, body.workspace_id, req.clientIp, { method: 'exchange', mfaCode: body.mfa_code }));
    },
  }),
  platformRoute({
    method: 'post',
    path: '/v1/auth/refresh',
    operationId: 'refreshToken',
    summary: 'Rotate a refresh token into a new token pair',
    description: 'Refresh tokens live 30 days and are single-use. Presenting one that was already used revokes every token of that sign-in (reuse detection).',
    tags: ['auth'],
    auth: 'public',
    body: z.object({ refresh_token: z.string().min(1, 'must not be empty') }),
    responses: {
      200: { description: 'New token pair', schema: tokenPairSchema },
      401: { description: 'Invalid, expired, revoked or reused refresh token (`invalid_grant`)' },
      403: { description: 'The workspace enforces SSO and this sign-in was not made through it (`sso_required`)' },
    },
    handler: async ({ body, app, req }) => reply.ok(await rotateRefreshToken(app, body.refresh_token, req.clientIp)),
  }),
];
