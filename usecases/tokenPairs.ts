/**
 * Issuing /v1 token pairs: a 72-hour access JWT plus an opaque refresh token (stored hashed, 30 days,
 * rotated on every use by usecases/refreshSession.ts). A sign-in is a token family.
 */
import { randomToken, sha256Hex } from '../lib/crypto.ts';
import type { AppContext } from '../lib/context.ts';
import type { Queryable } from '../lib/db.ts';
import { recordAudit } from '../sql/audit.ts';
import * as families from '../sql/tokenFamilies.ts';
import { ACCESS_TOKEN_TTL_SECONDS, signAccessToken } from '../lib/accessTokens.ts';
import { roleScopes, type Role } from '../domain/memberRoles.ts';
import { REFRESH_TOKEN_TTL_MS, type SignInMethod } from '../domain/signInPolicy.ts';

const REFRESH_PREFIX = 'svc_rt_';

export interface TokenPair {
  access_token: string;
  refresh_token: string;
  token_type: 'bearer';
  expires_in: number;
  scope: string;
  workspace_id: string;
}

/** A fresh token pair of an existing sign-in (its first, or a rotation). */
export async function pairFor(
  app: AppContext,
  db: Queryable,
  familyId: string,
  userId: string,
  workspaceId: string,
  scopes: readonly string[],
): Promise<TokenPair> {
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
  method: SignInMethod = 'exchange',
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
