/**
 * Issue 26, findings 1 and 2, one defence at a time. identityTakeover.test.ts replays the review's
 * attacks, which needed several defects at once; each test here needs only one of the defences to be
 * missing to succeed as an attack (docs/decisions.md, "How each test was shown to fail"):
 * - a SCIM link to a global account left from before the fix never rewrites that account;
 * - an organization's managed account outside its verified domains never receives a stranger's first sign-in;
 * - an SSO connection's e-mail outside its organization's verified domains is not verified, even for
 *   a member of the connection's own workspace;
 * - a connection's identity links are its own, even when another connection names the same entity id;
 * - a refused or blocked SSO sign-in writes no identity link.
 * Organization `atk` attacks; `vic` owns the victims.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { base32Decode, totp } from '../../../lib/totp.ts';
import { insertScimUser } from '../../../sql/scim.ts';
import { ensureMembership } from '../../../sql/users.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { startDnsServer, type DnsServer } from '../../helpers/dns.ts';
import { verifyDomains } from '../../helpers/domains.ts';
import { addMember, addWorkspace, type TestMember } from '../../helpers/members.ts';
import { startOidcProvider, type OidcProvider } from '../../helpers/oidc.ts';
import { authnRequestId, idpCertificate, samlResponse } from '../../helpers/saml.ts';

let idp: OidcProvider;
let dns: DnsServer;
let t: TestApp;
let vicWorkspace: string;
let atkWorkspace: string;
let vicOwner: TestMember;
let atkOwner: TestMember;

test.before(async () => {
  idp = await startOidcProvider();
  dns = await startDnsServer();
  t = await startTestApp({ env: { ...idp.env(), DNS_RESOLVER: dns.address } });
  vicWorkspace = await addWorkspace(t.app, 'vic');
  atkWorkspace = await addWorkspace(t.app, 'atk');
  vicOwner = await addMember(t.app, vicWorkspace, 'owner@vic.example', 'owner');
  atkOwner = await addMember(t.app, atkWorkspace, 'admin@atk.example', 'owner');
  await verifyDomains(t.platform.as(vicOwner.token), dns, ['vic.example']);
  await verifyDomains(t.platform.as(atkOwner.token), dns, ['atk.example']);
});
test.after(async () => {
  await t?.close();
  await idp?.close();
  await dns?.close();
});

async function exchange(sub: string, email: string) {
  return t.platform.post('/v1/auth/exchange', { subject_token: await idp.sign({ sub, email, email_verified: true }) });
}

async function scimClient(owner: TestMember, slug: string) {
  const token = (await t.platform.post('/v1/scim/tokens', { name: `idp-${Date.now()}` }, { token: owner.token })).body.token as string;
  return (method: string, path: string, body?: unknown) =>
    t.platform.request(method, `/scim/v2/${slug}${path}`, {
      token,
      headers: { 'content-type': 'application/scim+json' },
      ...(body === undefined ? {} : { raw: JSON.stringify(body) }),
    });
}

async function userState(userId: string) {
  const q = async (sql: string) => (await t.app.pool.query(sql, [userId])).rows;
  return {
    user: await q('select id, email, name, managed_by_organization_id from users where id = $1'),
    identities: await q('select issuer, subject, connection_id from user_identities where user_id = $1 order by issuer, subject'),
    memberships: await q('select workspace_id, role from memberships where user_id = $1 order by workspace_id'),
  };
}

/** Sign-ins (token families) of `userId` started after `since`. */
async function signInsOf(userId: string, since: Date): Promise<number> {
  const { rows } = await t.app.pool.query('select count(*) as n from token_families where user_id = $1 and created_at > $2', [userId, since]);
  return Number(rows[0].n);
}

async function samlConnection(owner: TestMember, name: string, entityId: string): Promise<string> {
  const res = await t.platform.post(
    '/v1/sso/connections',
    { type: 'saml', name, saml: { idp_entity_id: entityId, idp_sso_url: `${entityId}/sso`, idp_certificate: idpCertificate } },
    { token: owner.token },
  );
  assert.is(res.status, 201, res.text);
  return res.body.id;
}

/** A full SP-initiated SAML sign-in through the connection: authorize, then the signed assertion at the ACS. */
async function samlSignIn(slug: string, connectionId: string, entityId: string, nameId: string, email: string | undefined, mfaCode?: string) {
  const start = await t.platform.get(`/v1/auth/sso/authorize?workspace=${slug}&connection_id=${connectionId}`);
  assert.is(start.status, 200, start.text);
  const acs = `${t.platform.base}/v1/auth/sso/saml/acs`;
  const form: Record<string, string> = {
    SAMLResponse: samlResponse({
      issuer: entityId,
      audience: `${t.platform.base}/v1/sso/connections/${connectionId}/metadata`,
      recipient: acs,
      destination: acs,
      nameId,
      email,
      inResponseTo: authnRequestId(start.body.redirect_url),
    }),
    RelayState: start.body.state,
  };
  if (mfaCode) form.mfa_code = mfaCode;
  return t.platform.request('POST', '/v1/auth/sso/saml/acs', {
    raw: new URLSearchParams(form).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
}

test('finding 1: a SCIM link to a global account left from before the fix never rewrites that account', async () => {
  const victim = await addMember(t.app, vicWorkspace, 'legacy@vic.example', 'member');
  assert.is((await exchange('legacy-sub', victim.email)).status, 200);
  // What the old createUser left behind: atk's SCIM "provisioned" the victim's global account into atk.
  const legacy = await insertScimUser(t.app.pool, atkWorkspace, victim.userId, {
    userName: victim.email,
    externalId: null,
    active: true,
    displayName: null,
    givenName: null,
    familyName: null,
    emails: [{ value: victim.email, primary: true }],
    document: {},
  });
  await ensureMembership(t.app.pool, atkWorkspace, victim.userId, 'member');
  const before = await userState(victim.userId);
  const scim = await scimClient(atkOwner, 'atk');
  const patched = await scim('PATCH', `/Users/${legacy!.id}`, {
    schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
    Operations: [{ op: 'replace', path: 'emails', value: [{ value: 'attacker@evil.example', primary: true }] }],
  });
  assert.is(patched.status, 200, patched.text);
  const replaced = await scim('PUT', `/Users/${legacy!.id}`, {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
    userName: victim.email,
    emails: [{ value: 'attacker@evil.example', primary: true }],
    active: true,
  });
  assert.is(replaced.status, 200, replaced.text);
  assert.equal(await userState(victim.userId), before, "the global account's e-mail followed another organization's SCIM");
  // So the attacker's identity with that address is nobody.
  const since = new Date();
  const taken = await exchange('attacker-sub', 'attacker@evil.example');
  assert.is(taken.status, 403, taken.text);
  assert.is(await signInsOf(victim.userId, since), 0);
});

test("finding 1: an organization's account outside its verified domains does not receive that person's first sign-in", async () => {
  // atk provisions addresses in domains it does not own (one verified by vic, one by nobody) before their owners ever sign in.
  const atkScim = await scimClient(atkOwner, 'atk');
  for (const [sub, email] of [
    ['newhire-sub', 'newhire@vic.example'],
    ['drifter-sub', 'drifter@unclaimed.example'],
  ]) {
    const preClaimed = await atkScim('POST', '/Users', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: email, active: true });
    assert.is(preClaimed.status, 201, preClaimed.text);
    const managed = (await t.app.pool.query('select user_id from scim_users where id = $1', [preClaimed.body.id])).rows[0].user_id as string;
    const firstSignIn = await exchange(sub, email);
    assert.is(firstSignIn.status, 403, `${email}: the first sign-in landed in the attacker's workspace: ${firstSignIn.text}`);
    assert.equal((await userState(managed)).identities, [], email);
  }
  // The organization that verified the domain does receive its own provisioned people.
  const vicScim = await scimClient(vicOwner, 'vic');
  assert.is(
    (await vicScim('POST', '/Users', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'staff@vic.example', active: true })).status,
    201,
  );
  const own = await exchange('staff-sub', 'staff@vic.example');
  assert.is(own.status, 200, own.text);
  assert.is(own.body.workspace_id, vicWorkspace);
});

test("finding 2: an SSO connection's e-mail outside its organization's verified domains is not verified, even for a member of its workspace", async () => {
  // A contractor: a global account, member of vic and invited into atk as a viewer.
  const contractor = await addMember(t.app, vicWorkspace, 'contractor@vic.example', 'member');
  await addMember(t.app, atkWorkspace, contractor.email, 'viewer');
  const connection = await samlConnection(atkOwner, 'atk-idp', 'https://idp.atk.example/domains');
  const since = new Date();
  const before = await userState(contractor.userId);
  const res = await samlSignIn('atk', connection, 'https://idp.atk.example/domains', 'atk-says-contractor', contractor.email);
  assert.is(res.status, 403, `atk's identity provider signed in vic's contractor: ${res.text}`);
  assert.is(await signInsOf(contractor.userId, since), 0);
  assert.equal(await userState(contractor.userId), before);
});

test("finding 2: a connection's identity links are its own, even when another connection names the same entity id", async () => {
  const entityId = 'https://shared-idp.example/saml';
  const person = await addMember(t.app, vicWorkspace, 'shared@vic.example', 'member');
  await addMember(t.app, atkWorkspace, person.email, 'viewer');
  const vicConnection = await samlConnection(vicOwner, 'vic-shared', entityId);
  const genuine = await samlSignIn('vic', vicConnection, entityId, 'shared-person', person.email);
  assert.is(genuine.status, 200, genuine.text);
  assert.is(genuine.body.workspace_id, vicWorkspace);
  // atk types the same entity id and asserts the same NameID (its own key signs it), with no e-mail.
  const atkConnection = await samlConnection(atkOwner, 'atk-shared', entityId);
  const since = new Date();
  const res = await samlSignIn('atk', atkConnection, entityId, 'shared-person', undefined);
  assert.is(res.status, 403, `vic's link signed the person in through atk's connection: ${res.text}`);
  assert.is(await signInsOf(person.userId, since), 0);
});

test('finding 2: a refused SSO sign-in writes no identity link', async () => {
  // An address in atk's verified domain, but the account is vic's member only: denied, and not linked.
  const carol = await addMember(t.app, vicWorkspace, 'carol@atk.example', 'member');
  const connection = await samlConnection(atkOwner, 'atk-refused', 'https://idp.atk.example/refused');
  const res = await samlSignIn('atk', connection, 'https://idp.atk.example/refused', 'atk-carol', carol.email);
  assert.is(res.status, 403, res.text);
  assert.equal((await userState(carol.userId)).identities, [], 'the refused sign-in linked an identity');
});

test('finding 2: a sign-in blocked by the second factor writes no identity link; the completed one does', async () => {
  const member = await addMember(t.app, atkWorkspace, 'mfa@atk.example', 'member');
  const enrolled = await t.platform.post('/v1/mfa/factors', { type: 'totp' }, { token: member.token });
  assert.is(enrolled.status, 201, enrolled.text);
  const secret = base32Decode(new URL(enrolled.body.otpauth_uri).searchParams.get('secret')!);
  const verified = await t.platform.post(`/v1/mfa/factors/${enrolled.body.id}/verify`, { code: totp(secret, Date.now()) }, { token: member.token });
  assert.is(verified.status, 200, verified.text);
  const entityId = 'https://idp.atk.example/mfa';
  const connection = await samlConnection(atkOwner, 'atk-mfa', entityId);
  const blocked = await samlSignIn('atk', connection, entityId, 'atk-mfa-person', member.email);
  assert.is(blocked.status, 403, blocked.text);
  assert.is(blocked.body.error.code, 'mfa_required');
  assert.equal((await userState(member.userId)).identities, [], 'the blocked sign-in linked an identity');
  // The next 30-second step: a code is accepted once.
  const completed = await samlSignIn('atk', connection, entityId, 'atk-mfa-person', member.email, totp(secret, Date.now() + 30_000));
  assert.is(completed.status, 200, completed.text);
  assert.equal(
    (await userState(member.userId)).identities.map((i) => i.subject),
    ['atk-mfa-person'],
  );
});

test.run();
