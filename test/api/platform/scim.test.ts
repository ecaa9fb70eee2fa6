/**
 * SCIM 2.0 against the real HTTP surface. The Okta and Microsoft Entra sequences replay the requests
 * those provisioning clients send, as published in their SCIM documentation:
 * - Okta: developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20 (user lookup by userName,
 *   create with password and groups, PUT profile updates, PATCH `{"op":"replace","value":{"active":false}}`,
 *   group rename through a path-less replace carrying `id`, `members[value eq "…"]` removal);
 * - Entra: learn.microsoft.com/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups
 *   (capitalised `Replace`/`Add`/`Remove`, `emails[type eq "work"].value`, `"False"` for active,
 *   the enterprise extension's manager, `excludedAttributes=members`, member removal by `value` list).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import type { HttpResponse } from '../../helpers/http.ts';
import { startOidcProvider, type OidcProvider } from '../../helpers/oidc.ts';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

let idp: OidcProvider;
let t: TestApp;
let owner: string;
let scimToken: string;

test.before(async () => {
  idp = await startOidcProvider();
  t = await startTestApp({ env: idp.env() });
  owner = (await signIn('demo-owner-sub', 'demo@svc.local')).body.access_token;
  const created = await t.platform.post('/v1/scim/tokens', { name: 'okta' }, { token: owner });
  assert.is(created.status, 201, created.text);
  scimToken = created.body.token;
});
test.after(async () => {
  await t?.close();
  await idp?.close();
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

test('Okta: lookup, create, read, profile PUT, deactivate (tokens revoked, still listed), reactivate', async () => {
  const lookup = await scim('GET', `/Users${q('userName eq "test.user@okta.local"', '&startIndex=1&count=100')}`);
  assertScim(lookup, 200);
  assert.equal(lookup.body, {
    schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
    totalResults: 0,
    startIndex: 1,
    itemsPerPage: 0,
    Resources: [],
  });

  const create = await scim('POST', '/Users', {
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
  });
  assertScim(create, 201);
  const id = create.body.id;
  assert.is(create.headers.get('location'), create.body.meta.location);
  assert.ok(create.body.meta.location.endsWith(`/scim/v2/demo/Users/${id}`));
  assert.is(create.body.userName, 'test.user@okta.local');
  assert.is(create.body.externalId, '00ujl29u0le5T6Aj10h7');
  assert.is(create.body.locale, 'en-US');
  assert.is(create.body.active, true);
  assert.not.ok('password' in create.body, 'the password is never stored or echoed');
  assert.not.ok(JSON.stringify((await t.app.pool.query('select extra from scim_users')).rows).includes('1mz050nq'));
  assert.is(await roleOf('test.user@okta.local'), 'member');

  assertScim(await scim('GET', `/Users/${id}`), 200);
  const found = await scim('GET', `/Users${q('userName eq "TEST.USER@okta.local"')}`);
  assert.is(found.body.totalResults, 1);
  assert.is(found.body.Resources[0].id, id);

  // The provisioned person signs in through the identity provider (matched by verified e-mail).
  const session = await signIn('okta-sub-1', 'test.user@okta.local');
  assert.is(session.status, 200, session.text);
  const access = session.body.access_token;
  assert.is((await t.platform.get('/v1/issues', { token: access })).status, 200);

  const put = await scim('PUT', `/Users/${id}`, {
    schemas: [USER],
    id,
    userName: 'test.user@okta.local',
    name: { givenName: 'Another', familyName: 'User' },
    emails: [{ primary: true, value: 'test.user@okta.local', type: 'work' }],
    displayName: 'Another User',
    externalId: '00ujl29u0le5T6Aj10h7',
    active: true,
  });
  assertScim(put, 200);
  assert.is(put.body.name.givenName, 'Another');
  assert.not.ok('locale' in put.body, 'PUT replaces the whole resource');

  const deactivate = await scim('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'replace', value: { active: false } }] });
  assertScim(deactivate, 200);
  assert.is(deactivate.body.active, false);
  assert.is((await t.platform.get('/v1/issues', { token: access })).status, 401, 'the access token is revoked');
  assert.is((await t.platform.post('/v1/auth/refresh', { refresh_token: session.body.refresh_token })).status, 401, 'so is the refresh token');
  assert.is((await signIn('okta-sub-1', 'test.user@okta.local')).status, 403, 'no membership, no sign-in');
  const listed = await scim('GET', `/Users${q('userName eq "test.user@okta.local"')}`);
  assert.is(listed.body.totalResults, 1);
  assert.is(listed.body.Resources[0].active, false);
  assert.is(await roleOf('test.user@okta.local'), null);

  const reactivate = await scim('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'replace', value: { active: true } }] });
  assert.is(reactivate.body.active, true);
  assert.is((await signIn('okta-sub-1', 'test.user@okta.local')).status, 200);
  const audit = (await t.app.pool.query(`select action from audit_events where action like 'scim.user.%' order by occurred_at`)).rows.map((r) => r.action);
  assert.ok(audit.includes('scim.user.provisioned') && audit.includes('scim.user.deactivated') && audit.includes('scim.user.reactivated'), audit.join());
});

test('Okta groups: create, rename by path-less replace, add members, remove by members[value eq], delete', async () => {
  const user = (await scim('GET', `/Users${q('userName eq "test.user@okta.local"')}`)).body.Resources[0];
  const group = await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'Test SCIMv2', members: [] });
  assertScim(group, 201);
  assert.equal(group.body.members, []);
  assert.equal(group.body['urn:svc:params:scim:schemas:extension:2.0:Group'], { role: 'member' });
  const id = group.body.id;

  const rename = await scim('PATCH', `/Groups/${id}`, { schemas: [PATCH], Operations: [{ op: 'replace', value: { id, displayName: 'Okta Viewers' } }] });
  assertScim(rename, 200);
  assert.is(rename.body.displayName, 'Okta Viewers');
  assert.is(rename.body['urn:svc:params:scim:schemas:extension:2.0:Group'].role, 'member', 'a rename keeps the role');

  const setRole = await scim('PATCH', `/Groups/${id}`, {
    schemas: [PATCH],
    Operations: [{ op: 'replace', path: 'urn:svc:params:scim:schemas:extension:2.0:Group:role', value: 'viewer' }],
  });
  assert.is(setRole.body['urn:svc:params:scim:schemas:extension:2.0:Group'].role, 'viewer');

  const add = await scim('PATCH', `/Groups/${id}`, {
    schemas: [PATCH],
    Operations: [{ op: 'add', path: 'members', value: [{ value: user.id, display: user.userName }] }],
  });
  assertScim(add, 200);
  assert.equal(
    add.body.members.map((m: { value: string }) => m.value),
    [user.id],
  );
  assert.is(await roleOf('test.user@okta.local'), 'viewer', 'the group maps to the viewer role');
  const withGroup = await scim('GET', `/Users/${user.id}`);
  assert.equal(
    withGroup.body.groups.map((g: { value: string }) => g.value),
    [id],
  );

  const remove = await scim('PATCH', `/Groups/${id}`, { schemas: [PATCH], Operations: [{ op: 'remove', path: `members[value eq "${user.id}"]` }] });
  assertScim(remove, 200);
  assert.equal(remove.body.members, []);

  assertScimError(
    await scim('PATCH', `/Groups/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'add', path: 'members', value: [{ value: '00000000-0000-0000-0000-000000000000' }] }],
    }),
    400,
    'invalidValue',
  );
  assertScimError(await scim('POST', '/Groups', { schemas: [GROUP], displayName: 'okta viewers' }), 409, 'uniqueness');
  assertScim(await scim('DELETE', `/Groups/${id}`), 204);
  assertScimError(await scim('GET', `/Groups/${id}`), 404);
});

test('Microsoft Entra: create with the enterprise extension, Replace with filtered email path, "False" deactivation, delete', async () => {
  const userName = 'Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1';
  assert.is((await scim('GET', `/Users${q(`userName eq "${userName}"`)}`)).body.totalResults, 0);
  const create = await scim('POST', '/Users', {
    schemas: [USER, ENTERPRISE],
    externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
    userName,
    active: true,
    emails: [{ primary: true, type: 'work', value: 'Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com' }],
    meta: { resourceType: 'User' },
    name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
    roles: [],
    [ENTERPRISE]: { department: 'Engineering' },
  });
  assertScim(create, 201);
  const id = create.body.id;
  assert.ok(create.body.schemas.includes(ENTERPRISE));
  assert.is(create.body[ENTERPRISE].department, 'Engineering');
  assert.is(create.body.meta.resourceType, 'User');

  const byExternal = await scim('GET', `/Users${q('externalId eq "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef"')}`);
  assert.is(byExternal.body.totalResults, 1);

  const update = await scim('PATCH', `/Users/${id}`, {
    schemas: [PATCH],
    Operations: [
      { op: 'Replace', path: 'emails[type eq "work"].value', value: 'updatedEmail@microsoft.com' },
      { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
      { op: 'Add', path: `${ENTERPRISE}:manager`, value: '2819c223-7f76-453a-919d-413861904646' },
    ],
  });
  assertScim(update, 200);
  assert.equal(update.body.emails, [{ value: 'updatedEmail@microsoft.com', type: 'work', primary: true }]);
  assert.is(update.body.name.familyName, 'updatedFamilyName');
  assert.is(update.body.name.givenName, 'givenName');
  assert.is(update.body[ENTERPRISE].manager, '2819c223-7f76-453a-919d-413861904646');
  assert.is(update.body[ENTERPRISE].department, 'Engineering');
  assert.is((await scim('GET', `/Users${q('emails.value eq "updatedemail@microsoft.com"')}`)).body.totalResults, 1);
  assert.is(await roleOf('updatedEmail@microsoft.com'), 'member', 'the user row follows the new address');

  const session = await signIn('entra-sub', 'updatedEmail@microsoft.com');
  assert.is(session.status, 200, session.text);
  const disable = await scim('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'Replace', path: 'active', value: 'False' }] });
  assertScim(disable, 200);
  assert.is(disable.body.active, false);
  assert.is((await t.platform.get('/v1/issues', { token: session.body.access_token })).status, 401);
  const filtered = await scim('GET', `/Users${q(`userName eq "${userName}"`)}`);
  assert.is(filtered.body.Resources[0].active, false);
  assertScimError(
    await scim('PATCH', `/Users/${id}`, { schemas: [PATCH], Operations: [{ op: 'Replace', path: 'active', value: 'maybe' }] }),
    400,
    'invalidValue',
  );

  assertScim(await scim('DELETE', `/Users/${id}`), 204);
  assertScimError(await scim('GET', `/Users/${id}`), 404);
  assertScimError(await scim('DELETE', `/Users/${id}`), 404);
  assert.is((await signIn('entra-sub', 'updatedEmail@microsoft.com')).status, 403);
});

test('Microsoft Entra groups: create, filter with excludedAttributes=members, Add and Remove members by value list', async () => {
  const user = await scim('POST', '/Users', {
    schemas: [USER],
    userName: 'entra.member@contoso.com',
    active: true,
    emails: [{ primary: true, type: 'work', value: 'entra.member@contoso.com' }],
  });
  assertScim(user, 201);
  const group = await scim('POST', '/Groups', {
    schemas: [GROUP],
    externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159',
    displayName: 'Contoso Admins',
    meta: { resourceType: 'Group' },
  });
  assertScim(group, 201);
  assert.is(group.body['urn:svc:params:scim:schemas:extension:2.0:Group'].role, 'admin');
  const found = await scim('GET', `/Groups${q('displayName eq "Contoso Admins"', '&excludedAttributes=members')}`);
  assertScim(found, 200);
  assert.is(found.body.totalResults, 1);
  assert.not.ok('members' in found.body.Resources[0]);

  const add = await scim('PATCH', `/Groups/${group.body.id}`, {
    schemas: [PATCH],
    Operations: [{ op: 'Add', path: 'members', value: [{ $ref: null, value: user.body.id }] }],
  });
  assertScim(add, 200);
  assert.is(await roleOf('entra.member@contoso.com'), 'admin');
  const token = (await signIn('entra-member', 'entra.member@contoso.com')).body.access_token;
  assert.ok((await t.platform.get('/v1/workspaces/current', { token })).status === 200);
  assert.is((await t.platform.get('/v1/scim/tokens', { token })).status, 200, 'admins hold workspace:admin');

  const remove = await scim('PATCH', `/Groups/${group.body.id}`, {
    schemas: [PATCH],
    Operations: [{ op: 'Remove', path: 'members', value: [{ $ref: null, value: user.body.id }] }],
  });
  assertScim(remove, 200);
  assert.equal(remove.body.members, []);
  assertScim(await scim('DELETE', `/Groups/${group.body.id}`), 204);
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
  // A plain application/json body is accepted too.
  const json = await t.platform.post('/scim/v2/demo/Users', { schemas: [USER], userName: 'json@paging.example' }, { token: scimToken });
  assertScim(json, 201);
});

test.run();
