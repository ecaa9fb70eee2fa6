/**
 * A real OpenID provider for tests, started in-process on an ephemeral port: an RS256 key pair
 * generated with jose, `/.well-known/openid-configuration` (issuer, jwks_uri) and the JWKS served over
 * HTTP, and ID tokens signed with the private key. `sign(..., { key: 'unpublished' })` signs with a
 * second key pair whose public half is never published, to test rejection.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { systemClock, type Clock } from '../../lib/context.ts';

export interface IdTokenClaims {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
  /** Default: the provider's audience. */
  aud?: string | string[];
  /** Default: the provider's issuer. */
  iss?: string;
  /** Seconds since the epoch; default one hour after `now`. */
  exp?: number;
  /** Seconds since the epoch; default `now`. */
  iat?: number;
}

export interface SignOptions {
  /** `published` (default) or a key pair whose public key is not in the JWKS. */
  key?: 'published' | 'unpublished';
  /** Default: the published key's kid (so an unpublished key also impersonates the real kid). */
  kid?: string;
}

export interface OidcProvider {
  issuer: string;
  audience: string;
  /** Requests served, by path (to tell discovery from a configured JWKS URL). */
  hits: Map<string, number>;
  sign(claims: IdTokenClaims, options?: SignOptions): Promise<string>;
  /** Settings for startTestApp: with `discovery: true` OIDC_JWKS_URL is left out. */
  env(options?: { discovery?: boolean }): Record<string, string>;
  close(): Promise<void>;
}

const KID = 'test-key-1';

export async function startOidcProvider(options: { audience?: string; clock?: Clock } = {}): Promise<OidcProvider> {
  const audience = options.audience ?? 'svc-test-audience';
  const clock = options.clock ?? systemClock;
  const published = await generateKeyPair('RS256', { extractable: true });
  const unpublished = await generateKeyPair('RS256', { extractable: true });
  const jwk: JWK = { ...(await exportJWK(published.publicKey)), kid: KID, alg: 'RS256', use: 'sig' };
  const hits = new Map<string, number>();

  let issuer = '';
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'GET') return json(405, { error: 'method_not_allowed' });
    if (path === '/.well-known/openid-configuration') {
      return json(200, {
        issuer,
        jwks_uri: `${issuer}/jwks`,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
      });
    }
    if (path === '/jwks') return json(200, { keys: [jwk] });
    json(404, { error: 'not_found' });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const sign = async (claims: IdTokenClaims, signOptions: SignOptions = {}): Promise<string> => {
    const now = Math.floor(clock.now().getTime() / 1000);
    const { sub, aud, iss, exp, iat, ...rest } = claims;
    const key: CryptoKey = signOptions.key === 'unpublished' ? unpublished.privateKey : published.privateKey;
    return new SignJWT({ ...rest })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: signOptions.kid ?? KID })
      .setIssuer(iss ?? issuer)
      .setAudience(aud ?? audience)
      .setSubject(sub)
      .setIssuedAt(iat ?? now)
      .setExpirationTime(exp ?? now + 3600)
      .sign(key);
  };

  return {
    issuer,
    audience,
    hits,
    sign,
    env: ({ discovery = false } = {}) => ({
      AUTH_PROVIDER: 'oidc',
      OIDC_ISSUER: issuer,
      OIDC_AUDIENCE: audience,
      ...(discovery ? {} : { OIDC_JWKS_URL: `${issuer}/jwks` }),
    }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
