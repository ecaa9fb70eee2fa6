/**
 * Resolves /v1 bearer credentials to a principal. Three kinds of bearer exist:
 * - `svc_sat_…` service-account tokens and `svc_key_…` workspace API keys: opaque, looked up by
 *   SHA-256 hash, carrying exactly their stored scopes;
 * - anything else is an access JWT: verified, then its sign-in (token family) must be live and the
 *   membership must still exist; the scopes are the token's, narrowed to the current role's.
 * `last_used_at` is written at most once a minute per credential and process.
 */
import type { AppContext } from '../../../lib/context.ts';
import { constantTimeEqual, sha256Hex } from '../../../lib/crypto.ts';
import { findLiveApiKey, touchApiKey } from '../../../sql/apiKeys.ts';
import { findLiveServiceAccountToken, touchServiceAccountToken } from '../../../sql/serviceAccounts.ts';
import { liveSignIn } from '../../../sql/tokenFamilies.ts';
import type { PlatformAuthenticator, Principal, ProvisioningKeyCheck } from '../principal.ts';
import { isScope, type Scope } from '../../../domain/scopes.ts';
import { createVerifiedTokenCache } from '../../../lib/accessTokens.ts';
import { API_KEY_PREFIX, SERVICE_ACCOUNT_TOKEN_PREFIX } from '../../../domain/credentials.ts';
import { ssoRequired } from '../../../domain/signInPolicy.ts';
import { assertMfaEnrolment } from './mfaEnforcement.ts';
import { roleScopes, type Role } from '../../../domain/memberRoles.ts';

const TOUCH_INTERVAL_MS = 60_000;

const toScopes = (values: readonly string[]): Set<Scope> => new Set(values.filter(isScope));

export function createPlatformAuthenticator(app: AppContext): PlatformAuthenticator {
  const verifyAccessToken = createVerifiedTokenCache(app);
  const lastTouched = new Map<string, number>();
  const touch = (id: string, write: () => Promise<void>) => {
    const now = Date.now();
    if (now - (lastTouched.get(id) ?? 0) < TOUCH_INTERVAL_MS) return;
    lastTouched.set(id, now);
    if (lastTouched.size > 10_000) lastTouched.clear();
    write().catch((err) => app.logger.warn('could not record last_used_at', { err }));
  };

  return {
    async bearer(token, req): Promise<Principal | null> {
      if (token.startsWith(SERVICE_ACCOUNT_TOKEN_PREFIX)) {
        const found = await findLiveServiceAccountToken(app.pool, sha256Hex(token), app.clock.now());
        if (!found) return null;
        touch(found.id, () => touchServiceAccountToken(app.pool, found.id));
        return { kind: 'service_account', workspaceId: found.workspace_id, userId: null, subjectId: found.service_account_id, scopes: toScopes(found.scopes) };
      }
      if (token.startsWith(API_KEY_PREFIX)) {
        const found = await findLiveApiKey(app.pool, sha256Hex(token));
        if (!found) return null;
        touch(found.id, () => touchApiKey(app.pool, found.id));
        return { kind: 'api_key', workspaceId: found.workspace_id, userId: null, subjectId: found.id, scopes: toScopes(found.scopes) };
      }
      const claims = await verifyAccessToken(token);
      if (!claims) return null;
      const live = await liveSignIn(app.pool, claims.familyId, claims.userId, claims.workspaceId);
      if (!live) return null;
      // Authentication rule 8: in a workspace that enforces SSO, a sign-in made otherwise is refused.
      if (live.ssoRequired) throw ssoRequired();
      assertMfaEnrolment(live.mfaMissing, req);
      const allowed = new Set<string>(roleScopes[live.role as Role]);
      return {
        kind: 'user',
        workspaceId: claims.workspaceId,
        userId: claims.userId,
        subjectId: claims.userId,
        scopes: toScopes(claims.scopes.filter((s) => allowed.has(s))),
      };
    },

    provisioningKey(token): ProvisioningKeyCheck {
      const hashes = app.config.SVC_PROVISION_KEY_HASHES;
      if (!hashes.length) return 'unconfigured';
      const presented = sha256Hex(token);
      let match = false;
      for (const hash of hashes) match = constantTimeEqual(presented, hash) || match; // no early exit
      return match ? 'valid' : 'invalid';
    },
  };
}
