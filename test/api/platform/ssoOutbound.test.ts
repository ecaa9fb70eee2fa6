/**
 * Issue 26, finding 3: an SSO connection's OIDC issuer is a URL an admin types, so every fetch the
 * server makes for it (discovery, key set, token endpoint) goes through lib/outbound's policy. In
 * production mode, with the redirecting host allowlisted: the redirect to an internal server is not
 * followed (the internal server is never reached), an internal issuer is refused outright, an
 * oversized answer is cut at the cap, and neither the admin test nor the public authorize quote
 * anything the remote answered.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { startOidcProvider, type OidcProvider } from '../../helpers/oidc.ts';

const INTERNAL_SECRET = 'INTERNAL-ONLY-7f3a9c';

let idp: OidcProvider;
let t: TestApp;
let owner: string;
let internal: http.Server;
let internalHits = 0;
let redirector: http.Server;
let internalUrl = '';
let redirectorUrl = '';

const listen = async (server: http.Server, host: string) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return `http://${host}:${(server.address() as AddressInfo).port}`;
};

test.before(async () => {
  // The "internal" service: an address production must never reach on an admin's behalf.
  internal = http.createServer((_req, res) => {
    internalHits++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ issuer: INTERNAL_SECRET, authorization_endpoint: INTERNAL_SECRET, token_endpoint: INTERNAL_SECRET, jwks_uri: INTERNAL_SECRET }));
  });
  internalUrl = await listen(internal, '127.0.0.1');
  // An allowlisted host that redirects every request to the internal one, or answers without end.
  redirector = http.createServer((req, res) => {
    if (req.url === '/internal-endpoints/.well-known/openid-configuration') {
      // An allowlisted discovery document that names internal key-set and token endpoints.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          issuer: `${redirectorUrl}/internal-endpoints`,
          authorization_endpoint: `${redirectorUrl}/authorize`,
          token_endpoint: `${internalUrl}/token`,
          jwks_uri: `${internalUrl}/jwks`,
        }),
      );
      return;
    }
    if (req.url?.startsWith('/big/')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`{"pad":"${'x'.repeat(512 * 1024)}`);
      return; // never ends: the client must stop reading at the cap
    }
    res.writeHead(302, { location: `${internalUrl}${req.url}`, 'content-type': 'text/plain' });
    res.end(`go to ${internalUrl} ${INTERNAL_SECRET}`);
  });
  redirectorUrl = await listen(redirector, 'localhost');
  idp = await startOidcProvider();
  t = await startTestApp({
    env: {
      ...idp.env(),
      NODE_ENV: 'production',
      JWT_SECRET: 'production-jwt-secret-of-at-least-32-chars',
      SECRETS_KEY: 'production-secrets-key-of-at-least-32-chars',
      PASSWORD_SCRYPT_LOG_N: '17',
      OUTBOUND_ALLOWLIST: 'localhost',
    },
  });
  const exchanged = await t.platform.post('/v1/auth/exchange', {
    subject_token: await idp.sign({ sub: 'owner-sub', email: 'demo@svc.local', email_verified: true }),
  });
  assert.is(exchanged.status, 200, exchanged.text);
  owner = exchanged.body.access_token;
});
test.after(async () => {
  await t?.close();
  await idp?.close();
  redirector?.closeAllConnections();
  redirector?.close();
  internal?.close();
});

async function connection(name: string, issuer: string): Promise<string> {
  const res = await t.platform.post(
    '/v1/sso/connections',
    { type: 'oidc', name, redirect_uris: ['https://app.example/cb'], oidc: { issuer, client_id: 'c', client_secret: 's' } },
    { token: owner },
  );
  assert.is(res.status, 201, res.text);
  return res.body.id;
}

const leaks = (text: string) => text.includes(INTERNAL_SECRET) || text.includes(internalUrl);

test('a redirect to an internal address is not followed: the internal server is never reached and nothing it says is echoed', async () => {
  assert.is(t.config.NODE_ENV, 'production');
  const id = await connection('redirecting', redirectorUrl);
  const tested = await t.platform.post(`/v1/sso/connections/${id}/test`, undefined, { token: owner });
  assert.is(tested.status, 200, tested.text);
  assert.is(tested.body.ok, false);
  assert.match(tested.body.detail, /discovery document answered a redirect, which is not followed/);
  assert.not.ok(leaks(tested.text), tested.text);

  const authorize = await t.platform.get(
    `/v1/auth/sso/authorize?workspace=demo&connection_id=${id}&redirect_uri=${encodeURIComponent('https://app.example/cb')}`,
  );
  assert.is(authorize.status, 503, authorize.text);
  assert.is(authorize.body.error.code, 'service_unavailable');
  assert.not.ok(leaks(authorize.text), authorize.text);
  assert.is(internalHits, 0, 'the internal server was reached');
});

test('an internal issuer is refused by the address policy in production', async () => {
  const id = await connection('internal', internalUrl);
  const tested = await t.platform.post(`/v1/sso/connections/${id}/test`, undefined, { token: owner });
  assert.is(tested.body.ok, false);
  assert.is(tested.body.detail, 'the discovery document address is refused by the outbound policy');
  const authorize = await t.platform.get(
    `/v1/auth/sso/authorize?workspace=demo&connection_id=${id}&redirect_uri=${encodeURIComponent('https://app.example/cb')}`,
  );
  assert.is(authorize.status, 503, authorize.text);
  assert.not.ok(leaks(authorize.text), authorize.text);
  assert.is(internalHits, 0, 'the internal server was reached');
});

test('a discovery document naming internal key-set and token endpoints: neither is fetched', async () => {
  const id = await connection('internal-endpoints', `${redirectorUrl}/internal-endpoints`);
  const tested = await t.platform.post(`/v1/sso/connections/${id}/test`, undefined, { token: owner });
  assert.is(tested.body.ok, false, tested.text);
  assert.is(tested.body.detail, 'the key set address is refused by the outbound policy');
  // The callback's token request: the state of a real authorize, any code.
  const authorize = await t.platform.get(
    `/v1/auth/sso/authorize?workspace=demo&connection_id=${id}&redirect_uri=${encodeURIComponent('https://app.example/cb')}`,
  );
  assert.is(authorize.status, 200, authorize.text);
  const callback = await t.platform.get(`/v1/auth/sso/callback?state=${encodeURIComponent(authorize.body.state)}&code=stolen`);
  assert.is(callback.status, 401, callback.text);
  assert.is(callback.body.error.details.reason, 'the token endpoint address is refused by the outbound policy');
  assert.not.ok(leaks(callback.text), callback.text);
  assert.is(internalHits, 0, 'the internal server was reached');
});

test('an answer over the size cap is cut there (the endless body does not hang the request)', async () => {
  const id = await connection('endless', `${redirectorUrl}/big`);
  const tested = await t.platform.post(`/v1/sso/connections/${id}/test`, undefined, { token: owner });
  assert.is(tested.body.ok, false);
  // Reading to the end would have met the response timeout instead ("could not be reached in time").
  assert.is(tested.body.detail, 'the discovery document answered more than 256 KB');
});

test.run();
