import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import type { HttpResponse } from '../../helpers/http.ts';
import { startDnsServer, type DnsServer } from '../../helpers/dns.ts';
import { verifyDomains } from '../../helpers/domains.ts';
import { startOidcProvider, type OidcProvider } from '../../helpers/oidc.ts';
import { authnRequestId, idpCertificate, otherCertificate, samlResponse, type AssertionOptions } from '../../helpers/saml.ts';

const REDIRECT = 'https://app.example/sso/callback';
const CLIENT = { id: 'svc-client', secret: 's3cret-client-secret' };
const IDP_ENTITY = 'https://idp.example/saml/metadata';

let idp: OidcProvider; // the exchange provider and, as a second role, the workspace's OIDC SSO provider
let t: TestApp;
let owner: string;
let oidcConnection: string;
let samlConnection: string;

let dns: DnsServer;

test.before(async () => {
  idp = await startOidcProvider();
  idp.registerClient(CLIENT.id, CLIENT.secret);
  dns = await startDnsServer();
  t = await startTestApp({ env: { ...idp.env(), DNS_RESOLVER: dns.address } });
  owner = (await exchange('owner-sub', 'demo@svc.local')).body.access_token;
  // A connection's e-mails count as verified only inside its organization's verified domains.
  await verifyDomains(t.platform.as(owner), dns, ['example.com', 'svc.local']);
  // Alice is a member (invited, accepted with her exchange identity).
  const invite = await t.platform.post('/v1/invitations', { email: 'alice@example.com', role: 'member' }, { token: owner });
  const accepted = await t.platform.post('/v1/invitations/accept', {
    invitation_token: new URL(invite.body.url).searchParams.get('token'),
    subject_token: await idp.sign({ sub: 'alice-exchange', email: 'alice@example.com', email_verified: true }),
  });
  assert.is(accepted.status, 200, accepted.text);
});
test.after(async () => {
  await t?.close();
  await idp?.close();
  await dns?.close();
});

async function exchange(sub: string, email: string, extra: Record<string, unknown> = {}) {
  return t.platform.post('/v1/auth/exchange', { subject_token: await idp.sign({ sub, email, email_verified: true }), ...extra });
}
function assertError(res: HttpResponse, status: number, code: string) {
  assert.is(res.status, status, res.text);
  assert.is(res.body.error.code, code, res.text);
  assert.is(res.body.error.trace_id, res.headers.get('x-request-id'));
}
const authorize = (query: Record<string, string>) => t.platform.get(`/v1/auth/sso/authorize?${new URLSearchParams(query)}`);

/** Follows the redirect to the provider's /authorize like a browser and returns the code and state it sends back. */
async function atProvider(redirectUrl: string): Promise<URL> {
  const res = await fetch(redirectUrl, { redirect: 'manual' });
  assert.is(res.status, 302);
  const back = new URL(res.headers.get('location')!);
  assert.is(`${back.origin}${back.pathname}`, REDIRECT);
  return back;
}

async function oidcSignIn(
  claims: { sub: string; email: string; email_verified?: boolean },
  idToken?: Parameters<OidcProvider['login']>[0] extends infer L ? (L extends { idToken?: infer I } ? I : never) : never,
  extra: Record<string, string> = {},
) {
  const start = await authorize({ workspace: 'demo', redirect_uri: REDIRECT, connection_id: oidcConnection });
  assert.is(start.status, 200, start.text);
  idp.login({ claims: { email_verified: true, ...claims }, idToken });
  const back = await atProvider(start.body.redirect_url);
  assert.is(back.searchParams.get('state'), start.body.state);
  const query = new URLSearchParams({ state: back.searchParams.get('state')!, code: back.searchParams.get('code') ?? '', ...extra });
  return { res: await t.platform.get(`/v1/auth/sso/callback?${query}`), query };
}

test('sso_required cannot be turned on before a connection exists; connections are admin-only', async () => {
  assertError(await t.platform.patch('/v1/workspaces/current', { sso_required: true }, { token: owner }), 409, 'conflict');
  const alice = (await exchange('alice-exchange', 'alice@example.com')).body.access_token;
  assertError(await t.platform.get('/v1/sso/connections', { token: alice }), 403, 'forbidden');
  assertError(await t.platform.post('/v1/sso/connections', { type: 'ldap', name: 'x' }, { token: owner }), 400, 'validation_error');
  const badCert = await t.platform.post(
    '/v1/sso/connections',
    { type: 'saml', name: 'bad', saml: { idp_entity_id: IDP_ENTITY, idp_sso_url: 'https://idp.example/sso', idp_certificate: 'not a certificate' } },
    { token: owner },
  );
  assertError(badCert, 400, 'validation_error');
  assert.type(badCert.body.error.details['saml.idp_certificate'], 'string');
});

test('OIDC connection CRUD: the client secret is stored encrypted and never returned; test reaches the provider', async () => {
  const created = await t.platform.post(
    '/v1/sso/connections',
    {
      type: 'oidc',
      name: 'Corporate IdP',
      domains: ['example.com'],
      redirect_uris: [REDIRECT],
      oidc: { issuer: idp.issuer, client_id: CLIENT.id, client_secret: CLIENT.secret },
    },
    { token: owner },
  );
  assert.is(created.status, 201, created.text);
  oidcConnection = created.body.id;
  assert.equal(created.body.oidc, { issuer: idp.issuer, client_id: CLIENT.id, client_secret_set: true });
  assert.not.ok(created.text.includes(CLIENT.secret));
  const stored = (await t.app.pool.query('select oidc_client_secret_ciphertext as c from sso_connections')).rows[0].c as string;
  assert.not.ok(stored.includes(CLIENT.secret));
  assertError(
    await t.platform.post(
      '/v1/sso/connections',
      { type: 'oidc', name: 'Corporate IdP', oidc: { issuer: idp.issuer, client_id: 'x', client_secret: 'y' } },
      { token: owner },
    ),
    409,
    'conflict',
  );

  const list = await t.platform.get('/v1/sso/connections', { token: owner });
  assert.is(list.body.data.length, 1);
  const renamed = await t.platform.patch(`/v1/sso/connections/${oidcConnection}`, { name: 'Corporate OIDC' }, { token: owner });
  assert.is(renamed.status, 200, renamed.text);
  assert.is(renamed.body.name, 'Corporate OIDC');
  assertError(await t.platform.patch(`/v1/sso/connections/${oidcConnection}`, { saml: { idp_entity_id: 'x' } }, { token: owner }), 400, 'validation_error');

  const tested = await t.platform.post(`/v1/sso/connections/${oidcConnection}/test`, undefined, { token: owner });
  assert.is(tested.status, 200, tested.text);
  assert.is(tested.body.ok, true, tested.body.detail);
  assert.ok((idp.hits.get('/.well-known/openid-configuration') ?? 0) >= 1);
  assertError(await t.platform.get(`/v1/sso/connections/${oidcConnection}/metadata`, { token: owner }), 404, 'not_found');

  const unreachable = await t.platform.post(
    '/v1/sso/connections',
    { type: 'oidc', name: 'Gone', oidc: { issuer: 'http://127.0.0.1:1', client_id: 'x', client_secret: 'y' } },
    { token: owner },
  );
  const failed = await t.platform.post(`/v1/sso/connections/${unreachable.body.id}/test`, undefined, { token: owner });
  assert.is(failed.body.ok, false);
  assert.is((await t.platform.delete(`/v1/sso/connections/${unreachable.body.id}`, { token: owner })).status, 204);
  assertError(await t.platform.get(`/v1/sso/connections/${unreachable.body.id}`, { token: owner }), 404, 'not_found');

  const providers = await t.platform.get('/v1/auth/sso/providers?workspace=demo');
  assert.is(providers.status, 200, providers.text);
  assert.equal(providers.body, { data: [{ id: oidcConnection, type: 'oidc', name: 'Corporate OIDC', domains: ['example.com'] }], sso_required: false });
  assertError(await t.platform.get('/v1/auth/sso/providers?workspace=nope'), 404, 'not_found');
});

test('authorize: state, nonce and PKCE S256; redirect_uri must be on the allowlist', async () => {
  assertError(await authorize({ workspace: 'demo', redirect_uri: 'https://evil.example/cb' }), 400, 'validation_error');
  assertError(await authorize({ workspace: 'demo' }), 400, 'validation_error');
  assertError(await authorize({ workspace: 'demo', redirect_uri: 'javascript:alert(1)' }), 400, 'validation_error');
  assertError(await authorize({ workspace: 'nope', redirect_uri: REDIRECT }), 404, 'not_found');
  const res = await authorize({ workspace: 'demo', redirect_uri: REDIRECT });
  assert.is(res.status, 200, res.text);
  const url = new URL(res.body.redirect_url);
  assert.is(`${url.origin}${url.pathname}`, `${idp.issuer}/authorize`);
  assert.is(url.searchParams.get('state'), res.body.state);
  assert.is(url.searchParams.get('client_id'), CLIENT.id);
  assert.is(url.searchParams.get('redirect_uri'), REDIRECT);
  assert.is(url.searchParams.get('code_challenge_method'), 'S256');
  assert.match(url.searchParams.get('code_challenge')!, /^[A-Za-z0-9_-]{43}$/);
  assert.ok(url.searchParams.get('nonce'));
  assert.ok(url.searchParams.get('scope')!.split(' ').includes('openid'));
  const stored = (await t.app.pool.query('select state_hash from sso_login_states')).rows.map((r) => r.state_hash);
  assert.not.ok(stored.includes(res.body.state), 'the state is stored hashed');
});

test('OIDC end to end: code exchange and ID-token validation yield a token pair; the state works once', async () => {
  const { res, query } = await oidcSignIn({ sub: 'alice-sso', email: 'alice@example.com' });
  assert.is(res.status, 200, res.text);
  assert.equal(Object.keys(res.body).sort(), ['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type', 'workspace_id']);
  assert.is(res.body.workspace_id, t.demo.workspaceId);
  assert.is((await t.platform.get('/v1/issues', { token: res.body.access_token })).status, 200);
  assertError(await t.platform.get(`/v1/auth/sso/callback?${query}`), 401, 'invalid_grant');
  // The identity is now linked: the next SSO sign-in resolves by issuer and subject.
  assert.is(Number((await t.app.pool.query(`select count(*) as n from user_identities where subject = 'alice-sso'`)).rows[0].n), 1);
});

test('OIDC refusals: deny by default, and ID tokens with a wrong nonce, audience, issuer, signature or expiry', async () => {
  const stranger = await oidcSignIn({ sub: 'stranger', email: 'stranger@example.com' });
  assertError(stranger.res, 403, 'forbidden');
  assert.is(Number((await t.app.pool.query(`select count(*) as n from users where email = 'stranger@example.com'`)).rows[0].n), 0);
  assert.ok((await t.app.pool.query(`select 1 from audit_events where action = 'auth.login.denied' and actor_id like '%#stranger'`)).rows.length);
  // An e-mail outside the connection's domains is not trusted for linking.
  const outside = await oidcSignIn({ sub: 'owner-via-sso', email: 'demo@svc.local' });
  assertError(outside.res, 403, 'forbidden');

  const cases: Array<[string, NonNullable<Parameters<OidcProvider['login']>[0]>['idToken']]> = [
    ['nonce', { nonce: 'someone-elses-nonce' }],
    ['audience', { aud: 'another-client' }],
    ['issuer', { iss: 'https://impostor.example' }],
    ['signature', { key: 'unpublished' }],
    ['expiry', { exp: Math.floor(Date.now() / 1000) - 600 }],
  ];
  for (const [what, idToken] of cases) {
    const { res } = await oidcSignIn({ sub: 'alice-sso', email: 'alice@example.com' }, idToken);
    assertError(res, 401, 'invalid_grant');
    assert.type(res.body.error.details.reason, 'string', what);
  }
  // The provider reports a failed login.
  const start = await authorize({ workspace: 'demo', redirect_uri: REDIRECT });
  idp.login(null);
  const back = await atProvider(start.body.redirect_url);
  assertError(await t.platform.get(`/v1/auth/sso/callback?${back.searchParams}`), 401, 'invalid_grant');
  assertError(await t.platform.get('/v1/auth/sso/callback?state=made-up&code=x'), 401, 'invalid_grant');
});

/**
 * Authentication rule 8, "other sign-in gets 403 sso_required", read as every way a person signs in
 * other than the workspace's SSO (docs/decisions.md): exchange, accepting an invitation, and the
 * sign-ins already made otherwise, whose access tokens and refresh tokens are refused while SSO is
 * enforced. Machine credentials (service-account tokens, API keys) are no sign-in and keep working.
 */
test('sso_required: every sign-in not made through SSO gets 403 sso_required (exchange, live sessions, refresh); SSO still signs in', async () => {
  const alice = await exchange('alice-exchange', 'alice@example.com');
  assert.is(alice.status, 200, alice.text);
  const robot = await t.platform.post('/v1/service-accounts', { name: 'break-glass', scopes: ['workspace:admin', 'members:read'] }, { token: owner });
  const robotToken = (
    await t.platform.post(
      `/v1/service-accounts/${robot.body.id}/tokens`,
      { name: 'k', expires_at: new Date(Date.now() + 86400_000).toISOString() },
      { token: owner },
    )
  ).body.token;

  const on = await t.platform.patch('/v1/workspaces/current', { sso_required: true }, { token: owner });
  assert.is(on.status, 200, on.text);
  assert.is(on.body.sso_required, true);
  assertError(await exchange('alice-exchange', 'alice@example.com'), 403, 'sso_required');
  assertError(await t.platform.get('/v1/issues', { token: alice.body.access_token }), 403, 'sso_required');
  assertError(await t.platform.post('/v1/auth/refresh', { refresh_token: alice.body.refresh_token }), 403, 'sso_required');
  assertError(await t.platform.get('/v1/workspaces/current', { token: owner }), 403, 'sso_required');
  assert.is((await t.platform.get('/v1/workspaces/current', { token: robotToken })).status, 200, 'a service account is no sign-in');

  const { res } = await oidcSignIn({ sub: 'alice-sso', email: 'alice@example.com' });
  assert.is(res.status, 200, res.text);
  assert.is((await t.platform.get('/v1/issues', { token: res.body.access_token })).status, 200);
  const refreshed = await t.platform.post('/v1/auth/refresh', { refresh_token: res.body.refresh_token });
  assert.is(refreshed.status, 200, refreshed.text);
  const methods = (await t.app.pool.query(`select method from token_families where revoked_at is null order by created_at`)).rows.map((r) => r.method);
  assert.ok(methods.includes('sso') && methods.includes('exchange'), methods.join());

  // The connection's identities are its own namespace (the owner's platform link does not count): the
  // owner signs in through SSO like anyone, by an e-mail in a domain the organization verified (and the connection lists).
  const widened = await t.platform.patch(`/v1/sso/connections/${oidcConnection}`, { domains: ['example.com', 'svc.local'] }, { token: robotToken });
  assert.is(widened.status, 200, widened.text);
  const ownerSso = (await oidcSignIn({ sub: 'owner-sub', email: 'demo@svc.local' })).res;
  assert.is(ownerSso.status, 200, ownerSso.text);
  const admin = ownerSso.body.access_token;
  // Accepting an invitation makes the member but is no sign-in: that goes through SSO.
  const invite = await t.platform.post('/v1/invitations', { email: 'carol@example.com', role: 'viewer' }, { token: admin });
  const accepted = await t.platform.post('/v1/invitations/accept', {
    invitation_token: new URL(invite.body.url).searchParams.get('token'),
    subject_token: await idp.sign({ sub: 'carol-exchange', email: 'carol@example.com', email_verified: true }),
  });
  assertError(accepted, 403, 'sso_required');
  const carol = await oidcSignIn({ sub: 'carol-sso', email: 'carol@example.com' });
  assert.is(carol.res.status, 200, carol.res.text);
  assert.ok(carol.res.body.scope.split(' ').includes('issues:read'));
  assert.not.ok(carol.res.body.scope.split(' ').includes('issues:write'), 'the invited viewer role');
  assertError(await t.platform.delete(`/v1/sso/connections/${oidcConnection}`, { token: admin }), 409, 'conflict');

  // Turned off (here by the service account, the break-glass credential), other sign-ins work again.
  assert.is((await t.platform.patch('/v1/workspaces/current', { sso_required: false }, { token: robotToken })).status, 200);
  assert.is((await exchange('alice-exchange', 'alice@example.com')).status, 200);
  assert.is((await t.platform.get('/v1/workspaces/current', { token: owner })).status, 200);
});

// ---------------------------------------------------------------------------------------------
// SAML
// ---------------------------------------------------------------------------------------------

const acsUrl = () => `${t.platform.base}/v1/auth/sso/saml/acs`;
const spEntityId = () => `${t.platform.base}/v1/sso/connections/${samlConnection}/metadata`;
const postAcs = (fields: Record<string, string>) =>
  t.platform.request('POST', '/v1/auth/sso/saml/acs', {
    raw: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });

async function samlStart(): Promise<{ state: string; requestId: string }> {
  const res = await authorize({ workspace: 'demo', connection_id: samlConnection });
  assert.is(res.status, 200, res.text);
  const url = new URL(res.body.redirect_url);
  assert.is(`${url.origin}${url.pathname}`, 'https://idp.example/sso');
  assert.is(url.searchParams.get('RelayState'), res.body.state);
  return { state: res.body.state, requestId: authnRequestId(res.body.redirect_url) };
}
const aliceAssertion = (overrides: Partial<AssertionOptions> = {}): AssertionOptions => ({
  issuer: IDP_ENTITY,
  audience: spEntityId(),
  recipient: acsUrl(),
  destination: acsUrl(),
  nameId: 'alice@example.com',
  email: 'alice@example.com',
  ...overrides,
});

test('SAML connection: certificate parsed by test, SP metadata with EntityDescriptor, SPSSODescriptor and AssertionConsumerService', async () => {
  const created = await t.platform.post(
    '/v1/sso/connections',
    {
      type: 'saml',
      name: 'Corporate SAML',
      domains: ['example.com'],
      saml: { idp_entity_id: IDP_ENTITY, idp_sso_url: 'https://idp.example/sso', idp_certificate: idpCertificate },
    },
    { token: owner },
  );
  assert.is(created.status, 201, created.text);
  samlConnection = created.body.id;
  assert.is(created.body.saml.acs_url, acsUrl());
  assert.is(created.body.saml.sp_entity_id, spEntityId());
  assert.match(created.body.saml.idp_certificate_fingerprint256, /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
  const tested = await t.platform.post(`/v1/sso/connections/${samlConnection}/test`, undefined, { token: owner });
  assert.is(tested.body.ok, true, tested.body.detail);
  assert.match(tested.body.detail, /svc test identity provider/);

  const metadata = await t.platform.get(`/v1/sso/connections/${samlConnection}/metadata`, { token: owner });
  assert.is(metadata.status, 200, metadata.text);
  assert.match(metadata.headers.get('content-type') ?? '', /^application\/samlmetadata\+xml/);
  assert.match(metadata.text, /<EntityDescriptor[^>]*entityID="[^"]*\/v1\/sso\/connections\/[^"]+\/metadata"/);
  assert.match(metadata.text, /<SPSSODescriptor/);
  const acs = /<AssertionConsumerService [^>]*>/.exec(metadata.text)?.[0] ?? '';
  assert.ok(acs.includes('Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"') && acs.includes(`Location="${acsUrl()}"`), metadata.text);
});

test('SAML end to end: a signed assertion at the ACS yields a token pair', async () => {
  const { state, requestId } = await samlStart();
  const res = await postAcs({ SAMLResponse: samlResponse(aliceAssertion({ inResponseTo: requestId })), RelayState: state });
  assert.is(res.status, 200, res.text);
  assert.is(res.body.workspace_id, t.demo.workspaceId);
  assert.is((await t.platform.get('/v1/issues', { token: res.body.access_token })).status, 200);
  assert.is(Number((await t.app.pool.query(`select count(*) as n from user_identities where issuer = $1`, [IDP_ENTITY])).rows[0].n), 1);
});

test('SAML refusals: tampered, expired, not yet valid, wrong audience, wrong recipient, untrusted signer, wrong issuer, replayed', async () => {
  const cases: Array<[string, Partial<AssertionOptions>, RegExp]> = [
    ['tampered', { afterSigning: (xml) => xml.replace('>alice@example.com</saml:NameID>', '>demo@svc.local</saml:NameID>') }, /signature/i],
    ['expired', { notBefore: new Date(Date.now() - 3600_000), notOnOrAfter: new Date(Date.now() - 600_000) }, /expired/],
    ['not yet valid', { notBefore: new Date(Date.now() + 600_000), notOnOrAfter: new Date(Date.now() + 1200_000) }, /not yet valid/],
    ['wrong audience', { audience: 'https://another-sp.example/metadata' }, /audience/],
    ['wrong recipient', { recipient: 'https://another-sp.example/acs', destination: undefined }, /not addressed to/],
    ['wrong destination', { destination: 'https://another-sp.example/acs' }, /addressed to https:\/\/another-sp/],
    ['untrusted signer', { key: 'other' }, /signature/i],
    ['wrong issuer', { issuer: 'https://impostor.example/saml' }, /issued by/],
  ];
  for (const [what, overrides, reason] of cases) {
    const { state } = await samlStart();
    const res = await postAcs({ SAMLResponse: samlResponse(aliceAssertion(overrides)), RelayState: state });
    assert.is(res.status, 401, `${what}: ${res.text}`);
    assert.is(res.body.error.code, 'invalid_grant', what);
    assert.match(res.body.error.details.reason, reason, what);
  }
  // InResponseTo must be this sign-in's request.
  const mismatch = await samlStart();
  assertError(
    await postAcs({ SAMLResponse: samlResponse(aliceAssertion({ inResponseTo: '_another-request' })), RelayState: mismatch.state }),
    401,
    'invalid_grant',
  );

  // Replay: the same assertion under a fresh state is refused.
  const first = await samlStart();
  const assertion = samlResponse(aliceAssertion({ assertionId: '_replayed-assertion', inResponseTo: first.requestId }));
  assert.is((await postAcs({ SAMLResponse: assertion, RelayState: first.state })).status, 200);
  const second = await samlStart();
  const replay = await postAcs({ SAMLResponse: assertion, RelayState: second.state });
  assertError(replay, 401, 'invalid_grant');
  assert.match(replay.body.error.details.reason, /replay/);
  // Unsolicited (IdP-initiated) responses, without InResponseTo, are refused even with a valid state.
  const unsolicited = await samlStart();
  const noRequest = await postAcs({ SAMLResponse: samlResponse(aliceAssertion()), RelayState: unsolicited.state });
  assertError(noRequest, 401, 'invalid_grant');
  assert.match(noRequest.body.error.details.reason, /unsolicited/);
  // The state itself is single-use, and the ACS needs one.
  assertError(await postAcs({ SAMLResponse: samlResponse(aliceAssertion()), RelayState: first.state }), 401, 'invalid_grant');
  assertError(await postAcs({ SAMLResponse: samlResponse(aliceAssertion()) }), 401, 'invalid_grant');
  assertError(await postAcs({ RelayState: first.state }), 400, 'validation_error');
  // Deny by default: a valid assertion for someone without a membership.
  const stranger = await samlStart();
  assertError(
    await postAcs({
      SAMLResponse: samlResponse(aliceAssertion({ nameId: 'bob@example.com', email: 'bob@example.com', inResponseTo: stranger.requestId })),
      RelayState: stranger.state,
    }),
    403,
    'forbidden',
  );
  // A connection whose certificate is someone else's refuses the real IdP's signature.
  assert.is((await t.platform.patch(`/v1/sso/connections/${samlConnection}`, { saml: { idp_certificate: otherCertificate } }, { token: owner })).status, 200);
  const rotated = await samlStart();
  assertError(await postAcs({ SAMLResponse: samlResponse(aliceAssertion()), RelayState: rotated.state }), 401, 'invalid_grant');
});

test.run();
