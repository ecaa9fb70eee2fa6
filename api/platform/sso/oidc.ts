/**
 * OpenID Connect sign-in through a workspace's connection: discovery (`/.well-known/openid-configuration`),
 * the authorization-code flow with PKCE (S256), `state` and `nonce`, the code exchange at the token
 * endpoint (client_secret_post) and ID-token validation with jose against the provider's published
 * keys: signature, issuer, audience (the client id), nonce and expiry.
 */
import { createHash } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify, errors as joseErrors, type JWTVerifyGetKey } from 'jose';
import type { AppContext } from '../../../lib/context.ts';
import { AppError } from '../../../lib/errors.ts';
import { openSecret } from '../../../lib/secretBox.ts';
import type { SsoConnectionRow } from '../../../sql/sso.ts';

const TIMEOUT_MS = 5000;
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384', 'EdDSA'];

export interface OidcDiscovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
}

export async function discover(issuer: string): Promise<OidcDiscovery> {
  const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (!res.ok) throw new Error(`discovery at ${url} answered ${res.status}`);
  const doc = (await res.json()) as Partial<OidcDiscovery>;
  for (const field of ['issuer', 'authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const) {
    if (typeof doc[field] !== 'string') throw new Error(`discovery document has no ${field}`);
  }
  if (doc.issuer !== issuer) throw new Error(`discovery names the issuer ${doc.issuer}, not ${issuer}`);
  return doc as OidcDiscovery;
}

const keySets = new Map<string, JWTVerifyGetKey>();
const keysFor = (jwksUri: string) => {
  let keys = keySets.get(jwksUri);
  if (!keys) keySets.set(jwksUri, (keys = createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: TIMEOUT_MS })));
  return keys;
};

/** POST /v1/sso/connections/{id}/test for OIDC: discovery answers and its key set holds signing keys. */
export async function testOidcConnection(connection: SsoConnectionRow): Promise<{ ok: boolean; detail: string }> {
  try {
    const doc = await discover(connection.oidc_issuer!);
    const res = await fetch(doc.jwks_uri, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    if (!res.ok) return { ok: false, detail: `jwks_uri ${doc.jwks_uri} answered ${res.status}` };
    const keys = ((await res.json()) as { keys?: unknown[] }).keys;
    if (!Array.isArray(keys) || !keys.length) return { ok: false, detail: `jwks_uri ${doc.jwks_uri} publishes no keys` };
    return { ok: true, detail: `discovery ok; ${keys.length} signing key(s) at ${doc.jwks_uri}; token endpoint ${doc.token_endpoint}` };
  } catch (err) {
    return { ok: false, detail: (err as Error).message };
  }
}

export const pkceChallenge = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

export async function oidcAuthorizeUrl(
  connection: SsoConnectionRow,
  p: { redirectUri: string; state: string; nonce: string; codeVerifier: string },
): Promise<string> {
  let doc: OidcDiscovery;
  try {
    doc = await discover(connection.oidc_issuer!);
  } catch (err) {
    throw new AppError('service_unavailable', 'The identity provider could not be reached', { reason: (err as Error).message });
  }
  const url = new URL(doc.authorization_endpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: connection.oidc_client_id!,
    redirect_uri: p.redirectUri,
    scope: 'openid email profile',
    state: p.state,
    nonce: p.nonce,
    code_challenge: pkceChallenge(p.codeVerifier),
    code_challenge_method: 'S256',
  }).toString();
  return url.toString();
}

const invalidGrant = (reason: string) => new AppError('invalid_grant', 'The SSO sign-in could not be verified', { reason });

export interface SsoIdentityClaims {
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
}

/** Exchanges the authorization code and validates the ID token it yields. */
export async function completeOidcSignIn(
  app: AppContext,
  connection: SsoConnectionRow,
  p: { code: string; redirectUri: string; codeVerifier: string; nonce: string },
): Promise<SsoIdentityClaims> {
  let doc: OidcDiscovery;
  try {
    doc = await discover(connection.oidc_issuer!);
  } catch (err) {
    throw invalidGrant(`discovery failed: ${(err as Error).message}`);
  }
  const clientSecret = openSecret(app.secrets.encryptionKey, connection.oidc_client_secret_ciphertext!);
  let tokens: { id_token?: unknown; error?: unknown };
  try {
    const res = await fetch(doc.token_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: p.code,
        redirect_uri: p.redirectUri,
        client_id: connection.oidc_client_id!,
        client_secret: clientSecret,
        code_verifier: p.codeVerifier,
      }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    tokens = (await res.json().catch(() => ({}))) as typeof tokens;
    if (!res.ok) throw invalidGrant(`token endpoint answered ${res.status}${typeof tokens.error === 'string' ? ` (${tokens.error})` : ''}`);
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw invalidGrant(`token endpoint unreachable: ${(err as Error).message}`);
  }
  if (typeof tokens.id_token !== 'string') throw invalidGrant('the token response has no id_token');
  try {
    const { payload } = await jwtVerify(tokens.id_token, keysFor(doc.jwks_uri), {
      issuer: connection.oidc_issuer!,
      audience: connection.oidc_client_id!,
      algorithms: ALGORITHMS,
      currentDate: app.clock.now(),
      requiredClaims: ['sub', 'exp', 'iat', 'nonce'],
    });
    if (payload.nonce !== p.nonce) throw invalidGrant('the ID token nonce does not match this sign-in');
    return {
      subject: payload.sub!,
      email: typeof payload.email === 'string' ? payload.email.toLowerCase() : null,
      emailVerified: payload.email_verified === true,
      name: typeof payload.name === 'string' ? payload.name : null,
    };
  } catch (err) {
    if (err instanceof joseErrors.JOSEError) throw invalidGrant(`ID token rejected: ${err.message}`);
    throw err;
  }
}
