/**
 * /v1 access tokens: HS256 JWTs valid 72 hours, bound to a user, a workspace and a token family
 * (the sign-in), carrying the granted scopes. Verification uses the injected clock so that expiry
 * is testable.
 */
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import type { AppContext } from './context.ts';

export const ACCESS_TOKEN_TTL_SECONDS = 72 * 60 * 60;
const ISSUER = 'svc';
const AUDIENCE = 'svc-platform';

export interface AccessClaims {
  userId: string;
  workspaceId: string;
  familyId: string;
  scopes: string[];
}

export interface VerifiedAccessToken extends AccessClaims {
  /** Epoch milliseconds of the `exp` claim. */
  expiresAtMs: number;
}

export async function signAccessToken(app: AppContext, claims: AccessClaims): Promise<string> {
  const now = Math.floor(app.clock.now().getTime() / 1000);
  return new SignJWT({ ws: claims.workspaceId, fam: claims.familyId, scope: claims.scopes.join(' ') })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject(claims.userId)
    .setIssuedAt(now)
    .setExpirationTime(now + ACCESS_TOKEN_TTL_SECONDS)
    .setJti(crypto.randomUUID())
    .sign(app.secrets.jwtKey);
}

/** The claims of a valid, unexpired access token; null for anything else. */
export async function verifyAccessToken(app: AppContext, token: string): Promise<VerifiedAccessToken | null> {
  try {
    const { payload } = await jwtVerify(token, app.secrets.jwtKey, {
      algorithms: ['HS256'],
      issuer: ISSUER,
      audience: AUDIENCE,
      currentDate: app.clock.now(),
      requiredClaims: ['sub', 'exp', 'iat'],
    });
    if (typeof payload.ws !== 'string' || typeof payload.fam !== 'string' || typeof payload.scope !== 'string') return null;
    return {
      userId: payload.sub!,
      workspaceId: payload.ws,
      familyId: payload.fam,
      scopes: payload.scope.split(' ').filter(Boolean),
      expiresAtMs: payload.exp! * 1000,
    };
  } catch (err) {
    if (err instanceof joseErrors.JOSEError) return null;
    throw err;
  }
}

/**
 * Signature checks are pure (the key never changes while a process runs), so a process remembers
 * the tokens it has verified until they expire: WebCrypto's HMAC through jose costs ~100 µs per
 * request, a Map lookup nothing. Expiry is still checked on every use against the injected clock;
 * revocation is not this cache's business (the sign-in check runs on every request).
 */
export function createVerifiedTokenCache(app: AppContext, maxEntries = 10_000) {
  const verified = new Map<string, VerifiedAccessToken>();
  return async (token: string): Promise<AccessClaims | null> => {
    const nowMs = app.clock.now().getTime();
    const known = verified.get(token);
    if (known) {
      if (nowMs < known.expiresAtMs) return known;
      verified.delete(token);
    }
    const claims = await verifyAccessToken(app, token);
    if (!claims) return null;
    if (verified.size >= maxEntries) verified.delete(verified.keys().next().value!); // the oldest entry
    verified.set(token, claims);
    return claims;
  };
}
