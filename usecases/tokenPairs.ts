/**
 * Issuing and rotating /v1 token pairs: a 72-hour access JWT plus an opaque refresh token (stored
 * hashed, 30 days, rotated on every use). Reusing a rotated refresh token revokes its whole family,
 * the reuse detection that identity providers apply.
 */
import { randomToken, sha256Hex } from '../lib/crypto.ts';
import type { AppContext } from '../lib/context.ts';
import { withTransaction, type Queryable } from '../lib/db.ts';
import { AppError } from '../lib/errors.ts';
import { recordAudit } from '../sql/audit.ts';
import * as families from '../sql/tokenFamilies.ts';
import { ACCESS_TOKEN_TTL_SECONDS, signAccessToken } from '../lib/accessTokens.ts';
import { roleScopes, type Role } from '../domain/memberRoles.ts';

export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** A sign-in's absolute lifetime: however often it is refreshed, after this the user exchanges again. */
export const TOKEN_FAMILY_MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;
const REFRESH_PREFIX = 'svc_rt_';

export interface TokenPair {
  access_token: string;
  refresh_token: string;
  token_type: 'bearer';
  expires_in: number;
  scope: string;
  workspace_id: string;
}

async function pairFor(app: AppContext, db: Queryable, familyId: string, userId: string, workspaceId: string, scopes: readonly string[]): Promise<TokenPair> {
  const refresh = randomToken(32, REFRESH_PREFIX);
  await families.insertRefreshToken(db, familyId, sha256Hex(refresh), new Date(app.clock.now().getTime() + REFRESH_TOKEN_TTL_MS));
  const access = await signAccessToken(app, { userId, workspaceId, familyId, scopes: [...scopes] });
  return {
    access_token: access,
    refresh_token: refresh,
    token_type: 'bearer',
    expires_in: ACCESS_TOKEN_TTL_SECONDS,
    scope: scopes.join(' '),
    workspace_id: workspaceId,
  };
}

/** Starts a new sign-in (token family) for a member and returns its first token pair. */
export async function issueTokenPair(
  app: AppContext,
  db: Queryable,
  userId: string,
  workspaceId: string,
  role: Role,
  clientIp: string,
  method: families.SignInMethod = 'exchange',
): Promise<TokenPair> {
  const scopes = roleScopes[role];
  const family = await families.insertFamily(db, userId, workspaceId, [...scopes], app.clock.now(), method);
  await recordAudit(db, {
    workspaceId,
    action: 'auth.token.issued',
    actorType: 'user',
    actorId: userId,
    targetType: 'token_family',
    targetId: family.id,
    clientIp,
    metadata: { role, method },
  });
  return pairFor(app, db, family.id, userId, workspaceId, scopes);
}

const invalidRefresh = () => new AppError('invalid_grant', 'The refresh token is invalid, expired or revoked');
export const ssoRequired = () => new AppError('sso_required', 'This workspace requires sign-in through its SSO connection');

export async function rotateRefreshToken(app: AppContext, refreshToken: string, clientIp: string): Promise<TokenPair> {
  const outcome = await withTransaction(app.pool, async (client) => {
    const found = await families.lockRefreshToken(client, sha256Hex(refreshToken));
    if (!found || found.family.revoked_at) return { kind: 'invalid' as const };
    const { token, family } = found;
    if (token.rotated_at) {
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
    if (token.expires_at.getTime() <= app.clock.now().getTime()) return { kind: 'invalid' as const };
    if (family.created_at.getTime() + TOKEN_FAMILY_MAX_AGE_MS <= app.clock.now().getTime()) {
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
