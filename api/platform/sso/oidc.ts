/**
 * OpenID Connect sign-in through a workspace's connection: discovery (`/.well-known/openid-configuration`),
 * the authorization-code flow with PKCE (S256), `state` and `nonce`, the code exchange at the token
 * endpoint (client_secret_post) and ID-token validation with jose against the provider's published
 * keys: signature, issuer, audience (the client id), nonce and expiry.
 */
import { createHash } from 'node:crypto';
import { createLocalJWKSet, jwtVerify, errors as joseErrors, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import type { AppContext } from '../../../lib/context.ts';
import { AppError } from '../../../lib/errors.ts';
import { fetchJson, OutboundFetchError } from '../../../lib/outbound/index.ts';
import { openSecret } from '../../../lib/secretBox.ts';
import type { SsoConnectionRow } from '../../../sql/sso.ts';
import { policyOf } from '../../../lib/outbound/appPolicy.ts';

const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384', 'EdDSA'];
/** A key set is fetched again after this long (key rotation at the provider). */
const KEY_SET_TTL_MS = 5 * 60_000;

export interface OidcDiscovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
}

/**
 * The provider's discovery document. Every fetch of this module goes through lib/outbound (the
 * address policy, no redirects, timeouts, a size cap): the issuer is whatever URL an admin typed.
 * Errors name what failed and never quote what the remote answered.
 */
export async function discover(app: AppContext, issuer: string): Promise<OidcDiscovery> {
  const { body } = await fetchJson(policyOf(app), { url: `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`, what: 'discovery document' });
  const doc = body as Partial<OidcDiscovery>;
  for (const field of ['issuer', 'authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const) {
    if (typeof doc[field] !== 'string') throw new OutboundFetchError(`the discovery document has no ${field}`);
  }
  if (doc.issuer !== issuer) throw new OutboundFetchError('the discovery document names another issuer than the connection');
  return doc as OidcDiscovery;
}

const keySets = new Map<string, { keys: JWTVerifyGetKey; count: number; fetchedAt: number }>();

async function keySet(app: AppContext, jwksUri: string): Promise<{ keys: JWTVerifyGetKey; count: number }> {
  const cached = keySets.get(jwksUri);
  if (cached && Date.now() - cached.fetchedAt < KEY_SET_TTL_MS) return cached;
  const { body } = await fetchJson(policyOf(app), { url: jwksUri, what: 'key set' });
  const jwks = body as Partial<JSONWebKeySet>;
  if (!Array.isArray(jwks.keys) || !jwks.keys.length) throw new OutboundFetchError('the key set publishes no keys');
  const entry = { keys: createLocalJWKSet(jwks as JSONWebKeySet), count: jwks.keys.length, fetchedAt: Date.now() };
  if (keySets.size > 1000) keySets.clear();
  keySets.set(jwksUri, entry);
  return entry;
}

const reasonOf = (err: unknown) => (err instanceof OutboundFetchError ? err.message : 'the identity provider could not be used');

/** POST /v1/sso/connections/{id}/test for OIDC: discovery answers and its key set holds signing keys. */
export async function testOidcConnection(app: AppContext, connection: SsoConnectionRow): Promise<{ ok: boolean; detail: string }> {
  try {
    const doc = await discover(app, connection.oidc_issuer!);
    keySets.delete(doc.jwks_uri);
    const { count } = await keySet(app, doc.jwks_uri);
    return { ok: true, detail: `discovery ok; the key set publishes ${count} key(s)` };
  } catch (err) {
    if (!(err instanceof OutboundFetchError)) app.logger.warn('OIDC connection test failed', { err, connection_id: connection.id });
    return { ok: false, detail: reasonOf(err) };
  }
}

export const pkceChallenge = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

export async function oidcAuthorizeUrl(
  app: AppContext,
  connection: SsoConnectionRow,
  p: { redirectUri: string; state: string; nonce: string; codeVerifier: string },
): Promise<string> {
  let doc: OidcDiscovery;
  try {
    doc = await discover(app, connection.oidc_issuer!);
  } catch (err) {
    throw new AppError('service_unavailable', 'The identity provider could not be reached', { reason: reasonOf(err) });
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
    doc = await discover(app, connection.oidc_issuer!);
  } catch (err) {
    throw invalidGrant(`discovery failed: ${reasonOf(err)}`);
  }
  const clientSecret = openSecret(app.secrets.encryptionKey, connection.oidc_client_secret_ciphertext!);
  let tokens: { id_token?: unknown };
  try {
    const res = await fetchJson(policyOf(app), {
      url: doc.token_endpoint,
      what: 'token endpoint',
      method: 'POST',
      form: new URLSearchParams({
        grant_type: 'authorization_code',
        code: p.code,
        redirect_uri: p.redirectUri,
        client_id: connection.oidc_client_id!,
        client_secret: clientSecret,
        code_verifier: p.codeVerifier,
      }),
    });
    tokens = res.body as typeof tokens;
    if (res.status !== 200) throw invalidGrant(`the token endpoint refused the code (HTTP ${res.status})`);
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw invalidGrant(reasonOf(err));
  }
  if (typeof tokens.id_token !== 'string') throw invalidGrant('the token response has no id_token');
  let keys: JWTVerifyGetKey;
  try {
    keys = (await keySet(app, doc.jwks_uri)).keys;
  } catch (err) {
    throw invalidGrant(reasonOf(err));
  }
  try {
    const { payload } = await jwtVerify(tokens.id_token, keys, {
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
