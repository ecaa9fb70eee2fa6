/**
 * POST /v1/auth/refresh: rotating a refresh token into a new token pair (the rules in
 * domain/signInPolicy.ts). Reusing a rotated refresh token revokes its whole sign-in, the reuse
 * detection that identity providers apply; so does the sign-in's absolute lifetime and the end of
 * the membership. A sign-in not made through SSO ends when the workspace enforces SSO.
 */
import type { AppContext } from '../lib/context.ts';
import { sha256Hex } from '../lib/crypto.ts';
import { withTransaction } from '../lib/db.ts';
import { AppError } from '../lib/errors.ts';
import { roleScopes, type Role } from '../domain/memberRoles.ts';
import { refreshRefusal, ssoRequired } from '../domain/signInPolicy.ts';
import { recordAudit } from '../sql/audit.ts';
import * as families from '../sql/tokenFamilies.ts';
import { pairFor, type TokenPair } from './tokenPairs.ts';

const invalidRefresh = () => new AppError('invalid_grant', 'The refresh token is invalid, expired or revoked');

export async function rotateRefreshToken(app: AppContext, refreshToken: string, clientIp: string): Promise<TokenPair> {
  const outcome = await withTransaction(app.pool, async (client) => {
    const found = await families.lockRefreshToken(client, sha256Hex(refreshToken));
    if (!found || found.family.revoked_at) return { kind: 'invalid' as const };
    const { token, family } = found;
    const refusal = refreshRefusal(token, family, app.clock.now());
    if (refusal === 'reused') {
      await families.revokeFamily(client, family.id, 'refresh_token_reuse');
      await recordAudit(client, {
        workspaceId: family.workspace_id,
        action: 'auth.refresh.reuse_detected',
        actorType: 'user',
        actorId: family.user_id,
        targetType: 'token_family',
        targetId: family.id,
        clientIp,
      });
      return { kind: 'invalid' as const };
    }
    if (refusal === 'expired') return { kind: 'invalid' as const };
    if (refusal === 'absolute_lifetime') {
      await families.revokeFamily(client, family.id, 'absolute_lifetime');
      return { kind: 'invalid' as const };
    }
    const live = await families.liveSignIn(client, family.id, family.user_id, family.workspace_id);
    if (!live) {
      await families.revokeFamily(client, family.id, 'membership_removed');
      return { kind: 'invalid' as const };
    }
    // Refreshing prolongs a sign-in: one not made through SSO ends when the workspace enforces SSO.
    if (live.ssoRequired) return { kind: 'sso_required' as const };
    await families.markRotated(client, token.id);
    return { kind: 'ok' as const, pair: await pairFor(app, client, family.id, family.user_id, family.workspace_id, roleScopes[live.role as Role]) };
  });
  // The revocation above commits before the caller learns the token was refused.
  if (outcome.kind === 'sso_required') throw ssoRequired();
  if (outcome.kind !== 'ok') throw invalidRefresh();
  return outcome.pair;
}
