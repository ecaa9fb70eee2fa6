/**
 * Verifies the upstream identity-provider token presented at POST /v1/auth/exchange.
 * `AUTH_PROVIDER=oidc`: a JWT checked with jose against the provider's published keys (OIDC_JWKS_URL,
 * or `jwks_uri` from the issuer's discovery document), with issuer and audience enforced.
 * `AUTH_PROVIDER=none` (refused in production): any non-empty token stands for the seeded demo owner.
 */
import { createRemoteJWKSet, jwtVerify, errors as joseErrors, type JWTVerifyGetKey } from 'jose';
import type { AppContext } from '../../../lib/context.ts';
import { AppError } from '../../../lib/errors.ts';
import { DEV_IDENTITY } from '../../../sql/seed.ts';
import type { VerifiedIdentity } from '../../../usecases/signIn.ts';

export type { VerifiedIdentity };

const keySets = new Map<string, Promise<JWTVerifyGetKey>>();

async function discoverJwksUrl(issuer: string): Promise<string> {
  const res = await fetch(`${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(5000) });
  if (!res.ok) throw new Error(`OIDC discovery at ${issuer} answered ${res.status}`);
  const doc = (await res.json()) as { jwks_uri?: string };
  if (!doc.jwks_uri) throw new Error(`OIDC discovery at ${issuer} has no jwks_uri`);
  return doc.jwks_uri;
}

function keySet(app: AppContext): Promise<JWTVerifyGetKey> {
  const issuer = app.config.OIDC_ISSUER!;
  const cacheKey = `${issuer}|${app.config.OIDC_JWKS_URL ?? ''}`;
  let keys = keySets.get(cacheKey);
  if (!keys) {
    keys = (async () => createRemoteJWKSet(new URL(app.config.OIDC_JWKS_URL ?? (await discoverJwksUrl(issuer)))))();
    // A failed discovery must be retried on the next exchange, not cached forever.
    keys.catch(() => keySets.delete(cacheKey));
    keySets.set(cacheKey, keys);
  }
  return keys;
}

const invalidGrant = (reason: string) => new AppError('invalid_grant', 'The subject token could not be verified', { reason });

export async function verifySubjectToken(app: AppContext, subjectToken: string): Promise<VerifiedIdentity> {
  if (app.config.AUTH_PROVIDER === 'none') {
    return { ...DEV_IDENTITY, connectionId: null, email: null, emailVerified: false, name: null };
  }
  let keys: JWTVerifyGetKey;
  try {
    keys = await keySet(app);
  } catch (err) {
    app.logger.warn('identity provider keys unavailable', { err });
    throw invalidGrant('identity provider keys unavailable');
  }
  try {
    const { payload } = await jwtVerify(subjectToken, keys, {
      issuer: app.config.OIDC_ISSUER,
      audience: app.config.OIDC_AUDIENCE,
      currentDate: app.clock.now(),
      algorithms: ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384', 'EdDSA'],
      requiredClaims: ['sub', 'exp'],
    });
    return {
      issuer: payload.iss!,
      connectionId: null,
      subject: payload.sub!,
      email: typeof payload.email === 'string' ? payload.email.toLowerCase() : null,
      emailVerified: payload.email_verified === true,
      name: typeof payload.name === 'string' ? payload.name : null,
    };
  } catch (err) {
    if (err instanceof joseErrors.JOSEError || err instanceof TypeError) throw invalidGrant((err as Error).message);
    throw err;
  }
}
