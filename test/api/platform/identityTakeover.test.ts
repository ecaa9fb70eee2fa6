/**
 * Issue 26, findings 1 and 2, from the attacker's side: the admin of organization `atk` tries to take
 * over `victim@vic.example`, owner of organization `vic`, exactly as the security review did.
 * - SCIM: create a user with the victim's e-mail, then PATCH its e-mail to one the attacker controls,
 *   then sign up at the shared identity provider with that address and exchange.
 * - SAML: a connection naming the platform's OIDC_ISSUER as its entity id, and a self-signed
 *   assertion with NameID = the attacker's identity-provider subject and the victim's e-mail.
 * Afterwards the victim's row, identities and memberships are unchanged and no token for `vic` was
 * issued to the attacker.
 */
import http from 'node:http';
import { decodeJwt } from 'jose';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { startDnsServer, type DnsServer } from '../../helpers/dns.ts';
import { verifyDomains } from '../../helpers/domains.ts';
import { addMember, addWorkspace, type TestMember } from '../../helpers/members.ts';
import { startOidcProvider, type OidcProvider } from '../../helpers/oidc.ts';
import { authnRequestId, idpCertificate, samlResponse } from '../../helpers/saml.ts';

const VICTIM = 'victim@vic.example';
let idp: OidcProvider;
let dns: DnsServer;
let t: TestApp;
let victimWorkspace: string;
let attackerWorkspace: string;
let attacker: TestMember;
let victimUserId: string;

test.before(async () => {
  idp = await startOidcProvider();
  dns = await startDnsServer();
  t = await startTestApp({ env: { ...idp.env(), DNS_RESOLVER: dns.address } });
  victimWorkspace = await addWorkspace(t.app, 'vic');
  attackerWorkspace = await addWorkspace(t.app, 'atk');
  victimUserId = (await addMember(t.app, victimWorkspace, VICTIM, 'owner')).userId;
  attacker = await addMember(t.app, attackerWorkspace, 'admin@atk.example', 'owner');
  // The victim has signed in once through the platform's identity provider (their identity is linked).
  const victim = await exchange('victim-sub', VICTIM);
  assert.is(victim.status, 200, victim.text);
  await verifyDomains(t.platform.as(attacker.token), dns, ['atk.example']);
});
test.after(async () => {
  await t?.close();
  await idp?.close();
  await dns?.close();
});

async function exchange(sub: string, email: string) {
  return t.platform.post('/v1/auth/exchange', { subject_token: await idp.sign({ sub, email, email_verified: true }) });
}

/** Everything of the victim an attacker could change, as one comparable value. */
async function victimState() {
  const q = async (sql: string) => (await t.app.pool.query(sql, [victimUserId])).rows;
  return {
    user: await q('select id, email, name, managed_by_organization_id from users where id = $1'),
    identities: await q('select issuer, subject, connection_id from user_identities where user_id = $1 order by issuer, subject'),
    memberships: await q('select workspace_id, role from memberships where user_id = $1 order by workspace_id'),
    factors: await q('select id, status from mfa_factors where user_id = $1 order by id'),
  };
}

/** No sign-in of the victim's workspace was started after `since` by anyone but the victim's own identity. */
async function tokensForVictimWorkspaceSince(since: Date): Promise<number> {
  const { rows } = await t.app.pool.query('select count(*) as n from token_families where workspace_id = $1 and created_at > $2', [victimWorkspace, since]);
  return Number(rows[0].n);
}

const assertNoTokenFor = (res: { status: number; body: any; text: string }, workspaceId: string) => {
  if (res.status !== 200) return;
  assert.is.not(res.body.workspace_id, workspaceId, res.text);
  assert.is.not(decodeJwt(res.body.access_token).ws, workspaceId, res.text);
};

test('finding 1: SCIM of another organization neither adopts nor rewrites the victim, and the exchange does not link the attacker to them', async () => {
  const before = await victimState();
  const since = new Date();
  const scimToken = (await t.platform.post('/v1/scim/tokens', { name: 'okta' }, { token: attacker.token })).body.token as string;
  const scim = (method: string, path: string, body: unknown) =>
    t.platform.request(method, `/scim/v2/atk${path}`, { token: scimToken, headers: { 'content-type': 'application/scim+json' }, raw: JSON.stringify(body) });

  const created = await scim('POST', '/Users', {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
    userName: VICTIM,
    emails: [{ value: VICTIM, primary: true }],
    active: true,
  });
  // A separate account the attacker's organization manages (no 409: the answer reveals nothing about the victim).
  assert.is(created.status, 201, created.text);
  const managed = (await t.app.pool.query('select user_id from scim_users where id = $1', [created.body.id])).rows[0].user_id;
  assert.is.not(managed, victimUserId, 'SCIM adopted the victim');

  for (const [method, body] of [
    [
      'PATCH',
      {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'replace', path: 'emails', value: [{ value: 'attacker@evil.example', primary: true }] }],
      },
    ],
    [
      'PUT',
      { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: VICTIM, emails: [{ value: 'attacker@evil.example', primary: true }], active: true },
    ],
  ] as const) {
    const res = await scim(method, `/Users/${created.body.id}`, body);
    assert.is(res.status, 200, `${method}: ${res.text}`);
  }
  // Deactivating and deleting "their" user touches only the managed account.
  const deleted = await scim('DELETE', `/Users/${created.body.id}`, undefined);
  assert.is(deleted.status, 204, deleted.text);
  assert.equal(await victimState(), before, 'the victim was changed by another organization');

  // The attacker signs up with the address they gave "the victim" and exchanges.
  const taken = await exchange('attacker-sub', 'attacker@evil.example');
  assert.is(taken.status, 403, taken.text);
  assertNoTokenFor(taken, victimWorkspace);
  // Even asking for the victim's workspace by id.
  const aimed = await t.platform.post('/v1/auth/exchange', {
    subject_token: await idp.sign({ sub: 'attacker-sub', email: 'attacker@evil.example', email_verified: true }),
    workspace_id: victimWorkspace,
  });
  assertNoTokenFor(aimed, victimWorkspace);
  assert.is(await tokensForVictimWorkspaceSince(since), 0, 'a token for the victim workspace was issued');
  assert.equal(await victimState(), before);
});

test('finding 2: a SAML connection cannot name the platform issuer, and a refused assertion for the victim links nothing', async () => {
  const before = await victimState();
  const since = new Date();
  const create = (entityId: string, name: string) =>
    t.platform.post(
      '/v1/sso/connections',
      { type: 'saml', name, saml: { idp_entity_id: entityId, idp_sso_url: 'https://idp.atk.example/sso', idp_certificate: idpCertificate } },
      { token: attacker.token },
    );
  const platformIssuer = await create(idp.issuer, 'impersonating');
  assert.is(platformIssuer.status, 400, platformIssuer.text);
  assert.is(platformIssuer.body.error.code, 'validation_error');
  assert.match(platformIssuer.body.error.details['saml.idp_entity_id'], /platform/);

  const connection = await create('https://idp.atk.example/entity', 'attacker-idp');
  assert.is(connection.status, 201, connection.text);
  const start = await t.platform.get(`/v1/auth/sso/authorize?workspace=atk&connection_id=${connection.body.id}`);
  assert.is(start.status, 200, start.text);
  const acs = `${t.platform.base}/v1/auth/sso/saml/acs`;
  const assertion = samlResponse({
    issuer: 'https://idp.atk.example/entity',
    audience: `${t.platform.base}/v1/sso/connections/${connection.body.id}/metadata`,
    recipient: acs,
    destination: acs,
    nameId: 'attacker-sub',
    email: VICTIM,
    inResponseTo: authnRequestId(start.body.redirect_url),
  });
  const res = await t.platform.request('POST', '/v1/auth/sso/saml/acs', {
    raw: new URLSearchParams({ SAMLResponse: assertion, RelayState: start.body.state }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  assert.is(res.status, 403, res.text);
  assert.equal(await victimState(), before, 'the refused sign-in linked an identity to the victim');

  // The attacker's ordinary exchange with that subject is nobody in the victim's workspace.
  const exchanged = await exchange('attacker-sub', 'attacker@evil.example');
  assertNoTokenFor(exchanged, victimWorkspace);
  assert.is(await tokensForVictimWorkspaceSince(since), 0);
  // The victim still signs in as themselves.
  const victim = await exchange('victim-sub', VICTIM);
  assert.is(victim.status, 200, victim.text);
  assert.is(victim.body.workspace_id, victimWorkspace);
});

test("finding 2: an SSO connection's e-mails count as verified only in its organization's verified domains", async () => {
  const since = new Date();
  const connection = await t.platform.post(
    '/v1/sso/connections',
    {
      type: 'saml',
      name: 'domains',
      saml: { idp_entity_id: 'https://idp2.atk.example', idp_sso_url: 'https://idp2.atk.example/sso', idp_certificate: idpCertificate },
    },
    { token: attacker.token },
  );
  const signIn = async (nameId: string, email: string) => {
    const start = await t.platform.get(`/v1/auth/sso/authorize?workspace=atk&connection_id=${connection.body.id}`);
    const acs = `${t.platform.base}/v1/auth/sso/saml/acs`;
    return t.platform.request('POST', '/v1/auth/sso/saml/acs', {
      raw: new URLSearchParams({
        SAMLResponse: samlResponse({
          issuer: 'https://idp2.atk.example',
          audience: `${t.platform.base}/v1/sso/connections/${connection.body.id}/metadata`,
          recipient: acs,
          destination: acs,
          nameId,
          email,
          inResponseTo: authnRequestId(start.body.redirect_url),
        }),
        RelayState: start.body.state,
      }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
  };
  // The attacker's own admin, by an address in the verified domain: signed in (to atk only).
  const own = await signIn('admin-at-idp', 'admin@atk.example');
  assert.is(own.status, 200, own.text);
  assert.is(own.body.workspace_id, attackerWorkspace);
  // The victim's address is not in a domain atk verified: denied, nothing linked.
  const before = await victimState();
  assert.is((await signIn('victim-at-atk-idp', VICTIM)).status, 403);
  assert.equal(await victimState(), before);
  assert.is(await tokensForVictimWorkspaceSince(since), 0);
});

test('without PLATFORM_URL, the SAML SP entity id and ACS URL come from the listening address, not the Host header', async () => {
  const connection = (await t.platform.get('/v1/sso/connections', { token: attacker.token })).body.data.find((c: any) => c.type === 'saml');
  // fetch keeps its own Host header: node:http sends the spoofed one.
  const spoofed = await new Promise<{ status: number; body: any; text: string }>((resolve, reject) => {
    const req = http.get(
      `${t.platform.base}/v1/sso/connections/${connection.id}`,
      { headers: { host: 'evil.example', authorization: `Bearer ${attacker.token}` } },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), text }));
      },
    );
    req.on('error', reject);
  });
  assert.is(spoofed.status, 200, spoofed.text);
  assert.is(spoofed.body.saml.acs_url, `${t.platform.base}/v1/auth/sso/saml/acs`);
  assert.ok(spoofed.body.saml.sp_entity_id.startsWith(`${t.platform.base}/`), spoofed.body.saml.sp_entity_id);
});

test('mfa_code is refused in the OIDC callback query string (it belongs in the POST body)', async () => {
  const res = await t.platform.get('/v1/auth/sso/callback?state=s&code=c&mfa_code=123456');
  assert.is(res.status, 400, res.text);
  assert.is(res.body.error.code, 'validation_error');
  assert.match(res.body.error.details.mfa_code, /POST \/v1\/auth\/sso\/callback/);
  const posted = await t.platform.post('/v1/auth/sso/callback', { state: 'unknown', code: 'c', mfa_code: '123456' });
  assert.is(posted.status, 401, posted.text);
  assert.is(posted.body.error.code, 'invalid_grant');
});

test.run();
