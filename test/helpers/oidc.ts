/**
 * A real OpenID provider for tests, started in-process on an ephemeral port: an RS256 key pair
 * generated with jose, `/.well-known/openid-configuration` (issuer, jwks_uri) and the JWKS served over
 * HTTP, ID tokens signed with the private key, and the authorization-code flow with PKCE (`/authorize`,
 * `/token`) for registered clients. `sign(..., { key: 'unpublished' })` signs with a
 * second key pair whose public half is never published, to test rejection.
 */
import { createHash, randomUUID } from 'node:crypto';
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
  nonce?: string;
}

export interface SignOptions {
  /** `published` (default) or a key pair whose public key is not in the JWKS. */
  key?: 'published' | 'unpublished';
  /** Default: the published key's kid (so an unpublished key also impersonates the real kid). */
  kid?: string;
}

/** What the provider's /authorize endpoint does for the next browser that arrives. */
export interface LoginBehaviour {
  /** The user who "signs in" at the provider. */
  claims: Omit<IdTokenClaims, 'aud' | 'iss'>;
  /** Overrides in the ID token the token endpoint returns (to test rejection). */
  idToken?: { nonce?: string; aud?: string; iss?: string; exp?: number; key?: 'published' | 'unpublished' };
}

export interface OidcProvider {
  issuer: string;
  audience: string;
  /** Registers an OAuth client for the authorization-code flow (PKCE S256 required). */
  registerClient(clientId: string, clientSecret: string): void;
  /** Sets who signs in at /authorize next; without it /authorize answers `login_required`. */
  login(behaviour: LoginBehaviour | null): void;
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
  const clients = new Map<string, string>();
  let nextLogin: LoginBehaviour | null = null;
  const codes = new Map<string, { clientId: string; redirectUri: string; challenge: string; nonce: string | null; login: LoginBehaviour }>();

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'GET' && path === '/authorize') {
      // RFC 6749 4.1.1 with PKCE (RFC 7636): the "browser" is redirected back with code and state.
      const q = url.searchParams;
      const clientId = q.get('client_id') ?? '';
      const redirectUri = q.get('redirect_uri') ?? '';
      if (!clients.has(clientId) || !redirectUri) return json(400, { error: 'invalid_request' });
      const back = new URL(redirectUri);
      back.searchParams.set('state', q.get('state') ?? '');
      if (q.get('response_type') !== 'code' || q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge')) {
        back.searchParams.set('error', 'invalid_request');
      } else if (!nextLogin) {
        back.searchParams.set('error', 'login_required');
      } else {
        const code = randomUUID();
        codes.set(code, { clientId, redirectUri, challenge: q.get('code_challenge')!, nonce: q.get('nonce'), login: nextLogin });
        back.searchParams.set('code', code);
      }
      res.writeHead(302, { location: back.toString() });
      return res.end();
    }
    if (req.method === 'POST' && path === '/token') {
      let raw = '';
      for await (const chunk of req) raw += chunk;
      const form = new URLSearchParams(raw);
      const grant = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      if (!grant || form.get('grant_type') !== 'authorization_code') return json(400, { error: 'invalid_grant' });
      if (clients.get(form.get('client_id') ?? '') !== form.get('client_secret') || form.get('client_id') !== grant.clientId)
        return json(401, { error: 'invalid_client' });
      if (form.get('redirect_uri') !== grant.redirectUri) return json(400, { error: 'invalid_grant' });
      const verifier = form.get('code_verifier') ?? '';
      if (createHash('sha256').update(verifier).digest('base64url') !== grant.challenge) return json(400, { error: 'invalid_grant' });
      const overrides = grant.login.idToken ?? {};
      const idToken = await sign(
        {
          ...grant.login.claims,
          aud: overrides.aud ?? grant.clientId,
          iss: overrides.iss,
          exp: overrides.exp,
          nonce: overrides.nonce ?? grant.nonce ?? undefined,
        } as IdTokenClaims,
        { key: overrides.key },
      );
      return json(200, { access_token: randomUUID(), token_type: 'Bearer', expires_in: 3600, id_token: idToken });
    }
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
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_post'],
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
    registerClient: (clientId, clientSecret) => void clients.set(clientId, clientSecret),
    login: (behaviour) => {
      nextLogin = behaviour;
    },
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
