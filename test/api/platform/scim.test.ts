/**
 * SCIM 2.0 against the real HTTP surface. The Okta and Microsoft Entra tests replay, in order and with
 * the bodies as published, the requests those provisioning clients document:
 * - Okta, "SCIM 2.0 Protocol Reference" (developer.okta.com/docs/reference/scim/scim-20/; source
 *   github.com/okta/okta-developer-docs, packages/@okta/vuepress-site/docs/reference/scim/scim-20/index.md);
 * - Microsoft Entra, "Tutorial: Develop and plan provisioning for a SCIM endpoint", section "SCIM protocol
 *   requests and responses" (learn.microsoft.com/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups;
 *   source github.com/MicrosoftDocs/entra-docs, docs/identity/app-provisioning/use-scim-to-provision-users-and-groups.md),
 *   and "Known issues and resolutions with SCIM 2.0 protocol compliance" (…/application-provisioning-config-problem-scim-compatibility.md),
 *   which publishes both shapes Entra sends: the default (capitalised `Replace`, `"False"`, member
 *   removal by a `value` list) and the `aadOptscim062020` one (path-less replace of several attributes).
 * Only ids are ours: the vendors' examples carry their own servers' ids.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { listen } from '../../../api/http/server.ts';
import { buildHttpApps } from '../../../scripts/processes.ts';
import { RATE_LIMIT } from '../../../api/platform/app.ts';
import { request, type HttpResponse } from '../../helpers/http.ts';
import { startDnsServer, type DnsServer } from '../../helpers/dns.ts';
import { verifyDomains } from '../../helpers/domains.ts';
import { startOidcProvider, type OidcProvider } from '../../helpers/oidc.ts';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
const SVC_GROUP = 'urn:svc:params:scim:schemas:extension:2.0:Group';

let idp: OidcProvider;
let t: TestApp;
let owner: string;
let scimToken: string;

let dns: DnsServer;

test.before(async () => {
  idp = await startOidcProvider();
  dns = await startDnsServer();
  t = await startTestApp({ env: { ...idp.env(), DNS_RESOLVER: dns.address } });
  owner = (await signIn('demo-owner-sub', 'demo@svc.local')).body.access_token;
  // Provisioned users are accounts the organization manages: they sign in by e-mail only inside its verified domains.
  await verifyDomains(t.platform.as(owner), dns, ['okta.local', 'contoso.com', 'test.microsoft.com', 'microsoft.com', 'testuser.com', 'paging.example']);
  const created = await t.platform.post('/v1/scim/tokens', { name: 'okta' }, { token: owner });
  assert.is(created.status, 201, created.text);
  scimToken = created.body.token;
});
test.after(async () => {
  await t?.close();
  await idp?.close();
  await dns?.close();
});

const signIn = async (sub: string, email: string) =>
  t.platform.post('/v1/auth/exchange', { subject_token: await idp.sign({ sub, email, email_verified: true }) });

const scimJson = { 'content-type': 'application/scim+json' };
const scim = (method: string, path: string, body?: unknown, token = scimToken) =>
  t.platform.request(method, `/scim/v2/demo${path}`, {
    token,
    headers: body === undefined ? {} : scimJson,
    raw: body === undefined ? undefined : JSON.stringify(body),
  });

function assertScim(res: HttpResponse, status: number) {
  assert.is(res.status, status, res.text);
  if (status !== 204) assert.match(res.headers.get('content-type') ?? '', /^application\/scim\+json/);
}
function assertScimError(res: HttpResponse, status: number, scimType?: string) {
  assertScim(res, status);
  assert.equal(res.body.schemas, [ERROR]);
  assert.is(res.body.status, String(status));
  assert.type(res.body.detail, 'string');
  if (scimType) assert.is(res.body.scimType, scimType, res.text);
}
const q = (filter: string, extra = '') => `?filter=${encodeURIComponent(filter)}${extra}`;
const roleOf = async (email: string) =>
  (await t.app.pool.query(`select m.role from memberships m join users u on u.id = m.user_id where lower(u.email) = lower($1)`, [email])).rows[0]?.role ?? null;

test('SCIM tokens: created once, listed without the secret, hashed at rest; the SCIM surface refuses anything else', async () => {
  const list = await t.platform.get('/v1/scim/tokens', { token: owner });
  assert.is(list.status, 200, list.text);
  assert.is(list.body.data.length, 1);
  assert.not.ok('token' in list.body.data[0]);
  const stored = (await t.app.pool.query('select token_hash from scim_tokens')).rows[0].token_hash;
  assert.is.not(stored, scimToken);
  assertScimError(await scim('GET', '/Users', undefined, ''), 401);
  assertScimError(await scim('GET', '/Users', undefined, owner), 401);
  assertScimError(await t.platform.get('/scim/v2/another-org/Users', { token: scimToken }), 401);
  const member = await t.platform.post('/v1/scim/tokens', { name: 'x' }, { token: (await signIn('nobody', 'nobody@example.com')).body.access_token });
  assert.is(member.status, 401);
  assert.is((await t.platform.post('/v1/scim/tokens', { name: '' }, { token: owner })).status, 400);

  const spare = await t.platform.post('/v1/scim/tokens', { name: 'spare' }, { token: owner });
  assertScim(await scim('GET', '/ServiceProviderConfig', undefined, spare.body.token), 200);
  assert.is((await t.platform.delete(`/v1/scim/tokens/${spare.body.id}`, { token: owner })).status, 204);
  assertScimError(await scim('GET', '/ServiceProviderConfig', undefined, spare.body.token), 401);
  assert.is((await t.platform.delete(`/v1/scim/tokens/${spare.body.id}`, { token: owner })).status, 404);
});

test('discovery: ServiceProviderConfig, Schemas and ResourceTypes', async () => {
  const config = await scim('GET', '/ServiceProviderConfig');
  assertScim(config, 200);
  assert.is(config.body.patch.supported, true);
  assert.is(config.body.filter.supported, true);
  assert.is(config.body.bulk.supported, false);
  const schemas = await scim('GET', '/Schemas');
  assertScim(schemas, 200);
  assert.ok(schemas.body.Resources.some((s: { id: string }) => s.id === USER));
  assertScim(await scim('GET', `/Schemas/${GROUP}`), 200);
  const types = await scim('GET', '/ResourceTypes');
  assert.equal(
    types.body.Resources.map((r: { endpoint: string }) => r.endpoint),
    ['/Users', '/Groups'],
  );
  assertScim(await scim('GET', '/ResourceTypes/User'), 200);
  assertScimError(await scim('GET', '/ResourceTypes/Printer'), 404);
  assertScimError(await scim('GET', '/Printers'), 404);
});

test('Okta users: lookup, create (no Content-Type, as published), read, PUT profile update, 409 on a repeat, deactivate, list', async () => {
  // "Determine if the User already exists"
  const lookup = await scim('GET', '/Users?filter=userName%20eq%20%22test.user%40okta.local%22&startIndex=1&count=100');
  assertScim(lookup, 200);
  assert.equal(lookup.body, {
    schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
    totalResults: 0,
    startIndex: 1,
    itemsPerPage: 0,
    Resources: [],
  });

  // "Create the User": the published request names no Content-Type.
  const oktaUser = {
    schemas: [USER],
    userName: 'test.user@okta.local',
    name: { givenName: 'Test', familyName: 'User' },
    emails: [{ primary: true, value: 'test.user@okta.local', type: 'work' }],
    displayName: 'Test User',
    locale: 'en-US',
    externalId: '00ujl29u0le5T6Aj10h7',
    groups: [],
    password: '1mz050nq',
    active: true,
  };
  const create = await t.platform.request('POST', '/scim/v2/demo/Users', { token: scimToken, raw: Buffer.from(JSON.stringify(oktaUser)) });
  assertScim(create, 201);
  const id = create.body.id;
  assert.is(create.headers.get('location'), create.body.meta.location);
  assert.ok(create.body.meta.location.endsWith(`/scim/v2/demo/Users/${id}`));
  assert.is(create.body.meta.resourceType, 'User');
  assert.is(create.body.userName, 'test.user@okta.local');
  assert.is(create.body.externalId, '00ujl29u0le5T6Aj10h7');
  assert.is(create.body.locale, 'en-US');
  assert.is(create.body.active, true);
  assert.equal(create.body.groups, []);
  assert.not.ok('password' in create.body, 'the password is never stored or echoed');
  assert.not.ok(JSON.stringify((await t.app.pool.query('select extra from scim_users')).rows).includes('1mz050nq'));
  assert.is(await roleOf('test.user@okta.local'), 'member');

  // "Retrieve a specific User", and the lookup now finds them (userName is case-insensitive).
  assertScim(await scim('GET', `/Users/${id}`), 200);
  const found = await scim('GET', '/Users?filter=userName%20eq%20%22TEST.USER%40okta.local%22&startIndex=1&count=100');
  assert.is(found.body.totalResults, 1);
  assert.is(found.body.Resources[0].id, id);
  // "If the User object that Okta tries to create already exists … respond with an error schema": 409.
  assertScimError(await scim('POST', '/Users', oktaUser), 409, 'uniqueness');

  // The provisioned person signs in through the identity provider (matched by verified e-mail).
  const session = await signIn('okta-sub-1', 'test.user@okta.local');
  assert.is(session.status, 200, session.text);
  const access = session.body.access_token;
  assert.is((await t.platform.get('/v1/issues', { token: access })).status, 200);

  // "Update a specific User (PUT)"
  const put = await scim('PUT', `/Users/${id}`, {
    schemas: [USER],
    id,
    userName: 'test.user@okta.local',
    name: { givenName: 'Another', middleName: 'Excited', familyName: 'User' },
    emails: [{ primary: true, value: 'test.user@okta.local', type: 'work', display: 'test.user@okta.local' }],
    active: true,
    groups: [],
    meta: { resourceType: 'User' },
  });
  assertScim(put, 200);
  assert.equal(put.body.name, { givenName: 'Another', middleName: 'Excited', familyName: 'User' });
  assert.not.ok('locale' in put.body, 'PUT replaces the whole resource');
  assert.is(put.body.externalId, undefined);

  // "Update a specific User (PATCH)": deactivation.
  const deactivate = await scim('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'replace', value: { active: false } }] });
  assertScim(deactivate, 200);
  assert.is(deactivate.body.active, false);
  assert.is(deactivate.body.name.middleName, 'Excited');
  assert.is((await t.platform.get('/v1/issues', { token: access })).status, 401, 'the access token is revoked');
  assert.is((await t.platform.post('/v1/auth/refresh', { refresh_token: session.body.refresh_token })).status, 401, 'so is the refresh token');
  const families = (
    await t.app.pool.query(`select revoked_reason from token_families f join users u on u.id = f.user_id where u.email = $1`, ['test.user@okta.local'])
  ).rows;
  assert.equal(families, [{ revoked_reason: 'scim_deactivated' }]);
  assert.is((await signIn('okta-sub-1', 'test.user@okta.local')).status, 403, 'no membership, no sign-in');
  assert.is(await roleOf('test.user@okta.local'), null);

  // "Retrieve Users": the deactivated user is still listed, with active false.
  const all = await scim('GET', '/Users?startIndex=1&count=100');
  assertScim(all, 200);
  const listed = all.body.Resources.find((u: { id: string }) => u.id === id);
  assert.is(listed.active, false);

  const reactivate = await scim('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'replace', value: { active: true } }] });
  assert.is(reactivate.body.active, true);
  assert.is((await signIn('okta-sub-1', 'test.user@okta.local')).status, 200);
  const audit = (await t.app.pool.query(`select action from audit_events where action like 'scim.user.%' order by occurred_at`)).rows.map((r) => r.action);
  assert.ok(audit.includes('scim.user.provisioned') && audit.includes('scim.user.deactivated') && audit.includes('scim.user.reactivated'), audit.join());
});

test('Okta groups: push, list, read, rename, remove and add members in one PATCH, replace all members, delete; roles follow', async () => {
  const okta = (await scim('GET', '/Users?filter=userName%20eq%20%22test.user%40okta.local%22&startIndex=1&count=100')).body.Resources[0];
  const other = await scim('POST', '/Users', {
    schemas: [USER],
    userName: 'other.user@okta.local',
    emails: [{ primary: true, value: 'other.user@okta.local', type: 'work' }],
  });
  assertScim(other, 201);

  // "Create Groups"
  const group = await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'Test SCIMv2', members: [] });
  assertScim(group, 201);
  const id = group.body.id;
  assert.equal(group.body.members, []);
  assert.equal(group.body[SVC_GROUP], { role: 'member' });
  // "Retrieve Groups", "Retrieve specific Groups"
  const list = await scim('GET', '/Groups?startIndex=1&count=100');
  assertScim(list, 200);
  assert.equal(
    list.body.Resources.map((g: { id: string }) => g.id),
    [id],
  );
  assertScim(await scim('GET', `/Groups/${id}`), 200);

  // "Update a specific Group name": a path-less replace that carries the id.
  const same = await scim('PATCH', `/Groups/${id}`, { schemas: [PATCH], Operations: [{ op: 'replace', value: { id, displayName: 'Test SCIMv2' } }] });
  assertScim(same, 200);
  assert.is(same.body.displayName, 'Test SCIMv2');
  const rename = await scim('PATCH', `/Groups/${id}`, { schemas: [PATCH], Operations: [{ op: 'replace', value: { id, displayName: 'Okta Admins' } }] });
  assert.is(rename.body.displayName, 'Okta Admins');
  assert.is(rename.body[SVC_GROUP].role, 'member', 'a rename keeps the role');
  const setRole = await scim('PATCH', `/Groups/${id}`, { schemas: [PATCH], Operations: [{ op: 'replace', path: `${SVC_GROUP}:role`, value: 'admin' }] });
  assert.is(setRole.body[SVC_GROUP].role, 'admin');

  // "Update specific Group membership": one request removes a member and adds another.
  await scim('PATCH', `/Groups/${id}`, { schemas: [PATCH], Operations: [{ op: 'add', path: 'members', value: [{ value: other.body.id }] }] });
  assert.is(await roleOf('other.user@okta.local'), 'admin', 'the group maps to the admin role');
  const swap = await scim('PATCH', `/Groups/${id}`, {
    schemas: [PATCH],
    Operations: [
      { op: 'remove', path: `members[value eq "${other.body.id}"]` },
      { op: 'add', path: 'members', value: [{ value: okta.id, display: 'test.user@okta.local' }] },
    ],
  });
  assertScim(swap, 200);
  assert.equal(
    swap.body.members.map((m: { value: string }) => m.value),
    [okta.id],
  );
  assert.is(await roleOf('test.user@okta.local'), 'admin');
  assert.is(await roleOf('other.user@okta.local'), 'member', 'leaving the admins group takes admin away');
  const admin = (await signIn('okta-sub-1', 'test.user@okta.local')).body.access_token;
  assert.is((await t.platform.get('/v1/scim/tokens', { token: admin })).status, 200, 'admins hold workspace:admin');
  assert.equal(
    (await scim('GET', `/Users/${okta.id}`)).body.groups.map((g: { value: string }) => g.value),
    [id],
  );

  // "… a full push of the membership … using the replace operation"
  const replaced = await scim('PATCH', `/Groups/${id}`, {
    schemas: [PATCH],
    Operations: [
      {
        op: 'replace',
        path: 'members',
        value: [
          { value: okta.id, display: 'test.user@okta.local' },
          { value: other.body.id, display: 'test.user@okta.local' },
        ],
      },
    ],
  });
  assertScim(replaced, 200);
  assert.equal(replaced.body.members.map((m: { value: string }) => m.value).sort(), [okta.id, other.body.id].sort());
  assert.is(await roleOf('other.user@okta.local'), 'admin');

  assertScimError(
    await scim('PATCH', `/Groups/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'add', path: 'members', value: [{ value: '00000000-0000-0000-0000-000000000000' }] }],
    }),
    400,
    'invalidValue',
  );
  assertScimError(await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'okta admins' }), 409, 'uniqueness');
  // "Delete a specific Group": its members fall back to member.
  assertScim(await scim('DELETE', `/Groups/${id}`), 204);
  assertScimError(await scim('GET', `/Groups/${id}`), 404);
  assert.is(await roleOf('test.user@okta.local'), 'member');
  assert.is(await roleOf('other.user@okta.local'), 'member');
});

test('Microsoft Entra users: create, get, query (userName, work e-mail), update multi- and single-valued, both PATCH shapes, disable, delete', async () => {
  const userName = 'Test_User_00aa00aa-bb11-cc22-dd33-44ee44ee44ee';
  // "Create User"
  const create = await scim('POST', '/Users', {
    schemas: [USER, ENTERPRISE],
    externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
    userName,
    active: true,
    emails: [{ primary: true, type: 'work', value: 'Test_User_11bb11bb-cc22-dd33-ee44-55ff55ff55ff@testuser.com' }],
    meta: { resourceType: 'User' },
    name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
    roles: [],
  });
  assertScim(create, 201);
  const id = create.body.id;
  assert.is(create.body.meta.resourceType, 'User');
  assert.equal(create.body.name, { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' });
  // "Get User"; "Response (User not found…)": 404 with the error schema.
  assertScim(await scim('GET', `/Users/${id}`), 200);
  assertScimError(await scim('GET', '/Users/5171a35d82074e068ce2'), 404);
  // "Get User by query", "… - Zero results", and the work e-mail query Entra requires to be filterable.
  const byName = await scim('GET', `/Users${q(`userName eq "${userName}"`)}`);
  assert.is(byName.body.totalResults, 1);
  assert.is(byName.body.Resources[0].id, id);
  assert.is((await scim('GET', `/Users${q('userName eq "non-existent user"')}`)).body.totalResults, 0);
  const byEmail = await scim('GET', `/Users${q('emails[type eq "work"].value eq "Test_User_11bb11bb-cc22-dd33-ee44-55ff55ff55ff@testuser.com"')}`);
  assertScim(byEmail, 200);
  assert.is(byEmail.body.totalResults, 1);
  assert.is(
    (await scim('GET', `/Users${q('emails[type eq "home"].value eq "Test_User_11bb11bb-cc22-dd33-ee44-55ff55ff55ff@testuser.com"')}`)).body.totalResults,
    0,
  );
  assert.is((await scim('GET', `/Users${q('emails[type eq "work" and value eq "nobody@testuser.com"]')}`)).body.totalResults, 0);

  // "Update User [Multi-valued properties]"
  const multi = await scim('PATCH', `/Users/${id}`, {
    schemas: [PATCH],
    Operations: [
      { op: 'Replace', path: 'emails[type eq "work"].value', value: 'updatedEmail@microsoft.com' },
      { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
    ],
  });
  assertScim(multi, 200);
  assert.equal(multi.body.emails, [{ value: 'updatedEmail@microsoft.com', type: 'work', primary: true }]);
  assert.is(multi.body.name.familyName, 'updatedFamilyName');
  assert.is(multi.body.name.givenName, 'givenName');
  assert.is(await roleOf('updatedEmail@microsoft.com'), 'member', 'the user row follows the new address');
  // "Update User [Single-valued properties]"
  const single = await scim('PATCH', `/Users/${id}`, {
    schemas: [PATCH],
    Operations: [{ op: 'Replace', path: 'userName', value: '5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com' }],
  });
  assert.is(single.body.userName, '5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com');

  // Known issues page, "Requests to replace multiple attributes", without and with aadOptscim062020.
  const legacy = await scim('PATCH', `/Users/${id}`, {
    schemas: [PATCH],
    Operations: [
      { op: 'Replace', path: 'displayName', value: 'Pvlo' },
      { op: 'Replace', path: 'emails[type eq "work"].value', value: 'TestBcwqnm@test.microsoft.com' },
      { op: 'Replace', path: 'name.givenName', value: 'Gtfd' },
      { op: 'Replace', path: 'name.familyName', value: 'Pkqf' },
      { op: 'Replace', path: 'externalId', value: 'Eqpj' },
      { op: 'Replace', path: `${ENTERPRISE}:employeeNumber`, value: 'Eqpj' },
    ],
  });
  assertScim(legacy, 200);
  assert.is(legacy.body.displayName, 'Pvlo');
  assert.equal(legacy.body.name, { formatted: 'givenName familyName', familyName: 'Pkqf', givenName: 'Gtfd' });
  assert.is(legacy.body.externalId, 'Eqpj');
  assert.is(legacy.body[ENTERPRISE].employeeNumber, 'Eqpj');
  assert.ok(legacy.body.schemas.includes(ENTERPRISE));
  const compliant = await scim('PATCH', `/Users/${id}`, {
    schemas: [PATCH],
    Operations: [
      { op: 'replace', path: 'emails[type eq "work"].value', value: 'TestMhvaes@test.microsoft.com' },
      {
        op: 'replace',
        value: { displayName: 'Bjfe', 'name.givenName': 'Kkom', 'name.familyName': 'Unua', [`${ENTERPRISE}:employeeNumber`]: 'Aklq' },
      },
    ],
  });
  assertScim(compliant, 200);
  assert.is(compliant.body.displayName, 'Bjfe');
  assert.is(compliant.body.name.givenName, 'Kkom');
  assert.is(compliant.body.name.familyName, 'Unua');
  assert.is(compliant.body[ENTERPRISE].employeeNumber, 'Aklq');
  assert.equal(compliant.body.emails, [{ value: 'TestMhvaes@test.microsoft.com', type: 'work', primary: true }]);
  // "Requests made to add a single-value string attribute", both shapes.
  assert.is((await scim('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'Add', path: 'nickName', value: 'Babs' }] })).body.nickName, 'Babs');
  assert.is((await scim('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'add', path: 'nickName', value: 'Bibi' }] })).body.nickName, 'Bibi');

  // "Disable User" (the tutorial's boolean), then the default shape's string "False" on a re-enabled user.
  const first = await signIn('entra-sub', 'TestMhvaes@test.microsoft.com');
  assert.is(first.status, 200, first.text);
  const disable = await scim('PATCH', `/Users/${id}`, { Operations: [{ op: 'Replace', path: 'active', value: false }], schemas: [PATCH] });
  assertScim(disable, 200);
  assert.is(disable.body.active, false);
  assert.is((await t.platform.get('/v1/issues', { token: first.body.access_token })).status, 401);
  assert.is((await scim('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'Replace', path: 'active', value: 'True' }] })).body.active, true);
  const second = await signIn('entra-sub', 'TestMhvaes@test.microsoft.com');
  assert.is(second.status, 200, second.text);
  const legacyDisable = await scim('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'Replace', path: 'active', value: 'False' }] });
  assertScim(legacyDisable, 200);
  assert.is(legacyDisable.body.active, false);
  assert.is((await t.platform.get('/v1/issues', { token: second.body.access_token })).status, 401);
  assert.is((await scim('GET', `/Users${q(`userName eq "5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com"`)}`)).body.Resources[0].active, false);
  assertScimError(
    await scim('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'Replace', path: 'active', value: 'maybe' }] }),
    400,
    'invalidValue',
  );

  // "Delete User"
  assertScim(await scim('DELETE', `/Users/${id}`), 204);
  assertScimError(await scim('GET', `/Users/${id}`), 404);
  assertScimError(await scim('DELETE', `/Users/${id}`), 404);
  assert.is((await signIn('entra-sub', 'TestMhvaes@test.microsoft.com')).status, 403);
});

test('Microsoft Entra groups: create, get and query without members, rename, Add members, Remove by value list and by filter, delete', async () => {
  const user = await scim('POST', '/Users', {
    schemas: [USER],
    userName: 'entra.member@contoso.com',
    active: true,
    emails: [{ primary: true, type: 'work', value: 'entra.member@contoso.com' }],
  });
  assertScim(user, 201);
  // "Create Group", with the ADSCIM schema Entra names.
  const group = await scim('POST', '/Groups', {
    schemas: [GROUP, 'http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group'],
    externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159',
    displayName: 'displayName',
    meta: { resourceType: 'Group' },
  });
  assertScim(group, 201);
  const id = group.body.id;
  assert.equal(group.body.members, []);
  assert.is(group.body.externalId, '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159');
  // "Get Group", "Get Group by displayName": members excluded.
  const got = await scim('GET', `/Groups/${id}?excludedAttributes=members`);
  assertScim(got, 200);
  assert.not.ok('members' in got.body);
  const found = await scim('GET', `/Groups?excludedAttributes=members&filter=${encodeURIComponent('displayName eq "displayName"')}`);
  assertScim(found, 200);
  assert.is(found.body.totalResults, 1);
  assert.not.ok('members' in found.body.Resources[0]);
  // "Update Group [Non-member attributes]"; then our extension makes it a viewers group.
  const renamed = await scim('PATCH', `/Groups/${id}`, {
    schemas: [PATCH],
    Operations: [{ op: 'Replace', path: 'displayName', value: '1879db59-3bdf-4490-ad68-ab880a269474updatedDisplayName' }],
  });
  assertScim(renamed, 200);
  assert.is(renamed.body.displayName, '1879db59-3bdf-4490-ad68-ab880a269474updatedDisplayName');
  await scim('PATCH', `/Groups/${id}`, { schemas: [PATCH], Operations: [{ op: 'Replace', path: `${SVC_GROUP}:role`, value: 'viewer' }] });

  // "Update Group [Add Members]"
  const add = await scim('PATCH', `/Groups/${id}`, {
    schemas: [PATCH],
    Operations: [{ op: 'Add', path: 'members', value: [{ $ref: null, value: user.body.id }] }],
  });
  assertScim(add, 200);
  assert.is(await roleOf('entra.member@contoso.com'), 'viewer');
  const viewer = (await signIn('entra-member', 'entra.member@contoso.com')).body.access_token;
  assert.is((await t.platform.post('/v1/issues', { title: 'x', severity: 'low' }, { token: viewer })).status, 403, 'a viewer cannot write');
  // "Update Group [Remove Members]" (default shape: a value list) …
  const remove = await scim('PATCH', `/Groups/${id}`, {
    schemas: [PATCH],
    Operations: [{ op: 'Remove', path: 'members', value: [{ $ref: null, value: user.body.id }] }],
  });
  assertScim(remove, 200);
  assert.equal(remove.body.members, []);
  assert.is(await roleOf('entra.member@contoso.com'), 'member');
  // … and the aadOptscim062020 shape: a filter path.
  await scim('PATCH', `/Groups/${id}`, { schemas: [PATCH], Operations: [{ op: 'Add', path: 'members', value: [{ $ref: null, value: user.body.id }] }] });
  const removeByFilter = await scim('PATCH', `/Groups/${id}`, {
    schemas: [PATCH],
    Operations: [{ op: 'remove', path: `members[value eq "${user.body.id}"]` }],
  });
  assert.equal(removeByFilter.body.members, []);
  // "Delete Group"
  assertScim(await scim('DELETE', `/Groups/${id}`), 204);
  assertScimError(await scim('GET', `/Groups/${id}`), 404);
});

test('filters (eq, co, sw, and on userName, externalId, emails.value) and startIndex/count paging', async () => {
  for (let i = 1; i <= 5; i++) {
    const res = await scim('POST', '/Users', {
      schemas: [USER],
      userName: `pager${i}@paging.example`,
      externalId: `ext-${i}`,
      emails: [{ value: `pager${i}@paging.example`, primary: true }],
    });
    assertScim(res, 201);
  }
  const page = await scim('GET', `/Users${q('userName sw "pager"', '&startIndex=2&count=2')}`);
  assert.is(page.body.totalResults, 5);
  assert.is(page.body.startIndex, 2);
  assert.is(page.body.itemsPerPage, 2);
  assert.equal(
    page.body.Resources.map((u: { userName: string }) => u.userName),
    ['pager2@paging.example', 'pager3@paging.example'],
  );
  assert.is((await scim('GET', `/Users${q('userName co "ager4"')}`)).body.totalResults, 1);
  assert.is((await scim('GET', `/Users${q('userName sw "pager" and externalId eq "ext-3"')}`)).body.Resources[0].userName, 'pager3@paging.example');
  assert.is((await scim('GET', `/Users${q('emails.value co "paging.example" and userName sw "pager5"')}`)).body.totalResults, 1);
  assert.is((await scim('GET', `/Users${q('emails[value eq "pager1@paging.example"]')}`)).body.totalResults, 1);
  assert.is((await scim('GET', `/Users${q('externalId eq "EXT-3"')}`)).body.totalResults, 0, 'externalId is case-exact');
  const countOnly = await scim('GET', `/Users${q('userName sw "pager"', '&count=0')}`);
  assert.is(countOnly.body.totalResults, 5);
  assert.equal(countOnly.body.Resources, []);
  assertScimError(await scim('GET', `/Users${q('userName eq')}`), 400, 'invalidFilter');
  assertScimError(await scim('GET', `/Users${q('title eq "x"')}`), 400, 'invalidFilter');
  assertScimError(await scim('GET', `/Users${q('userName gt "a"')}`), 400, 'invalidFilter');
  assertScimError(await scim('GET', '/Users?startIndex=abc'), 400, 'invalidValue');
});

test('uniqueness, validation and SCIM error bodies for every failure', async () => {
  const dup = await scim('POST', '/Users', { schemas: [USER], userName: 'PAGER1@paging.example', emails: [{ value: 'other@paging.example' }] });
  assertScimError(dup, 409, 'uniqueness');
  assertScimError(await scim('POST', '/Users', { schemas: [USER], emails: [{ value: 'x@y.z' }] }), 400, 'invalidValue');
  assertScimError(await scim('POST', '/Users', { schemas: [USER], userName: 'no-email' }), 400, 'invalidValue');
  assertScimError(await scim('POST', '/Users', { schemas: [USER], userName: 'a@b.c', active: 'yes' }), 400, 'invalidValue');
  const malformed = await t.platform.request('POST', '/scim/v2/demo/Users', { token: scimToken, headers: scimJson, raw: '{"userName":' });
  assertScimError(malformed, 400, 'invalidSyntax');
  assertScimError(await scim('GET', '/Users/not-a-uuid'), 404);
  assertScimError(await scim('GET', '/Users/00000000-0000-0000-0000-000000000000'), 404);
  const user = (await scim('GET', `/Users${q('userName eq "pager2@paging.example"')}`)).body.Resources[0];
  assertScimError(
    await scim('PATCH', `/Users/${user.id}`, { schemas: [PATCH], Operations: [{ op: 'copy', path: 'userName', value: 'x' }] }),
    400,
    'invalidSyntax',
  );
  assertScimError(await scim('PATCH', `/Users/${user.id}`, { schemas: [PATCH], Operations: [] }), 400, 'invalidSyntax');
  assertScimError(await scim('PATCH', `/Users/${user.id}`, { schemas: [PATCH], Operations: [{ op: 'remove' }] }), 400, 'noTarget');
  assertScimError(
    await scim('PATCH', `/Users/${user.id}`, { schemas: [PATCH], Operations: [{ op: 'replace', path: 'emails[[', value: 'x' }] }),
    400,
    'invalidPath',
  );
  assertScimError(
    await scim('PATCH', `/Users/${user.id}`, { schemas: [PATCH], Operations: [{ op: 'replace', path: 'userName', value: 'pager3@paging.example' }] }),
    409,
    'uniqueness',
  );
  const renamed = await scim('PATCH', `/Users/${user.id}`, {
    schemas: [PATCH],
    Operations: [{ op: 'replace', path: 'userName', value: 'renamed@paging.example' }],
  });
  assert.is(renamed.body.userName, 'renamed@paging.example');
  // A plain application/json body is accepted too; another media type is 415, read after the token.
  const json = await t.platform.post('/scim/v2/demo/Users', { schemas: [USER], userName: 'json@paging.example' }, { token: scimToken });
  assertScim(json, 201);
  const body = JSON.stringify({ schemas: [USER], userName: 'text@paging.example' });
  assertScimError(await t.platform.request('POST', '/scim/v2/demo/Users', { token: scimToken, headers: { 'content-type': 'text/plain' }, raw: body }), 415);
  assertScimError(
    await t.platform.request('POST', '/scim/v2/demo/Users', { token: scimToken, headers: { 'content-type': 'application/xml' }, raw: '<User/>' }),
    415,
  );
  assertScimError(await t.platform.request('POST', '/scim/v2/demo/Users', { headers: { 'content-type': 'text/plain' }, raw: body }), 401);
  assertScimError(await t.platform.request('POST', '/scim/v2/demo/Users', { headers: scimJson, raw: '{"userName":' }), 401, undefined);
  // Unknown tenant, unknown endpoint, unsupported method.
  assertScimError(await scim('GET', '/Users', undefined, 'svc_scim_not-a-token'), 401);
  assertScimError(await t.platform.get('/scim/v2/no-such-org/Users'), 401);
  assertScimError(await t.platform.get('/scim/v2/demo/Bulk', { token: scimToken }), 404);
  assertScimError(await t.platform.get('/scim/v2', { token: scimToken }), 404);
  assertScimError(await scim('PATCH', '/ServiceProviderConfig', { schemas: [PATCH], Operations: [{ op: 'add', path: 'x', value: 1 }] }), 404);
  assertScimError(await scim('PATCH', `/Users/${user.id}`, { schemas: [PATCH], Operations: 'replace' }), 400, 'invalidSyntax');
  assertScimError(
    await scim('PATCH', `/Users/${user.id}`, { schemas: [PATCH], Operations: [{ op: 'replace', path: 'emails[type zz "work"].value', value: 'x' }] }),
    400,
    'invalidFilter',
  );
  assertScimError(await scim('PATCH', `/Users/${user.id}`, { schemas: [PATCH], Operations: [{ op: 'replace', value: 'not an object' }] }), 400, 'invalidValue');
  assertScimError(await scim('GET', `/Users${q('emails[type eq "work"].value gt "a"')}`), 400, 'invalidFilter');
  assertScimError(await scim('GET', `/Users${q('userName[value eq "a"]')}`), 400, 'invalidFilter');
});

test('the rate limit answers a SCIM client with a SCIM error body (429, Retry-After)', async () => {
  const { platform } = buildHttpApps({ ...t.app, config: { ...t.config, TRUST_PROXY: true } }, { validateResponses: true });
  const server = await listen(platform, 0, '127.0.0.1');
  try {
    const from = { 'x-forwarded-for': '203.0.113.77' };
    // The limiter's windows are aligned to the clock's minutes (api/http/rateLimit.ts): a burst that
    // straddles a boundary splits its count between two windows and the 601st may pass. Start the
    // burst in a fresh minute when less than 15 s of this one are left.
    const left = RATE_LIMIT.windowMs - (Date.now() % RATE_LIMIT.windowMs);
    if (left < 15_000) await new Promise((r) => setTimeout(r, left + 50));
    for (let i = 0; i < RATE_LIMIT.limit; i += 50) {
      await Promise.all(Array.from({ length: 50 }, () => request(server.url, 'GET', '/scim/v2/demo/ServiceProviderConfig', { headers: from })));
    }
    const limited = await request(server.url, 'GET', '/scim/v2/demo/ServiceProviderConfig', { headers: from, token: scimToken });
    assertScimError(limited, 429);
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    const v1 = await request(server.url, 'GET', '/v1/issues', { headers: from });
    assert.is(v1.status, 429);
    assert.is(v1.body.error.code, 'rate_limited', 'the /v1 surface keeps its envelope');
  } finally {
    await server.close(1000);
  }
});

test.run();
