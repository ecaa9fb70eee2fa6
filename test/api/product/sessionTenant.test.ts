import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { sha256Hex } from '../../../lib/crypto.ts';
import { productRoute } from '../../../api/product/route.ts';
import { reply } from '../../../api/http/routes.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { TestClock } from '../../helpers/clock.ts';
import {
  createTenant,
  createTenantUser,
  liveTenant,
  productClient,
  provisionTenant,
  seedStaff,
  setCookies,
  setTenantState,
  staffLogin,
  tenantLogin,
} from '../../helpers/product.ts';

// Probes of the guard's permission check and CSRF on a tenant write (the real permission routes
// belong to the onboarding and sources groups).
const probes = [
  productRoute({
    method: 'post',
    path: '/probe/exports',
    operationId: 'probe_exports',
    summary: 'Needs exports.create',
    tags: ['probe'],
    auth: 'tenant',
    permission: 'exports.create',
    body: z.object({ name: z.string() }),
    responses: { 200: { description: 'ok' } },
    handler: ({ tenant, body }) => reply.ok({ user_id: tenant.userId, name: body.name }),
  }),
];

const clock = new TestClock('2026-03-02T09:00:00Z');
let t: TestApp;
let admin: Awaited<ReturnType<typeof staffLogin>>;
test.before(async () => {
  t = await startTestApp({
    worker: true,
    clock,
    env: { TRUST_PROXY: '1' },
    extraProductRoutes: probes,
    extraAllowlist: [{ method: 'post', path: '/probe/exports', group: 'observability' }],
  });
  admin = await staffLogin(t);
});
test.after(async () => t.close());

test('POST /login into a live workspace sets the tenant cookie <slug>:<token> (httpOnly, Lax, /, 24 h) and a CSRF cookie', async () => {
  const { tenant, user } = await liveTenant(t, admin);
  const client = productClient(t);
  const res = await client.post(
    '/login',
    { workspace: tenant.slug, email: user.email.toUpperCase(), password: user.password },
    { headers: { 'user-agent': 'console/2' } },
  );
  assert.is(res.status, 200, res.text);
  assert.equal(Object.keys(res.body).sort(), ['email', 'full_name', 'impersonated_by', 'permissions', 'user_id', 'workspace']);
  assert.is(res.body.impersonated_by, null, 'the user’s own sign-in');
  assert.is(res.body.user_id, user.id);
  assert.is(res.body.workspace, tenant.slug);
  assert.is(res.body.email, user.email);
  assert.equal(res.body.permissions, [...res.body.permissions].sort());
  assert.ok(res.body.permissions.includes('exports.create'));

  const cookies = setCookies(res);
  assert.equal(cookies.map((c) => c.name).sort(), ['svc_csrf', 'svc_tenant_session']);
  const session = cookies.find((c) => c.name === 'svc_tenant_session')!;
  assert.ok(session.value.startsWith(`${tenant.slug}:`), session.value);
  assert.is(session.attributes.httponly, true);
  assert.is(session.attributes.samesite, 'Lax');
  assert.is(session.attributes.path, '/');
  assert.is(session.attributes['max-age'], String(24 * 3600));
  assert.not.ok('httponly' in cookies.find((c) => c.name === 'svc_csrf')!.attributes);

  const token = session.value.slice(tenant.slug.length + 1);
  const schema = `tenant_${tenant.id.replaceAll('-', '')}`;
  const { rows } = await t.app.pool.query(`select token_hash, ip, user_agent, expires_at from "${schema}".sessions where user_id = $1`, [user.id]);
  assert.is(rows.length, 1);
  assert.is(rows[0].token_hash, sha256Hex(token));
  assert.is(rows[0].user_agent, 'console/2');
  assert.is(rows[0].expires_at.getTime(), clock.now().getTime() + 24 * 3600 * 1000);
  const audit = await t.app.pool.query(`select action, actor_type, actor_id from "${schema}".audit_log`);
  assert.equal(audit.rows, [{ action: 'user_login', actor_type: 'user', actor_id: user.id }]);

  const me = await client.get('/me');
  assert.is(me.status, 200);
  assert.equal(me.body, res.body);
});

test('unknown workspace, non-live workspace, unknown user, inactive user and wrong password are the same 401', async () => {
  const { tenant, user } = await liveTenant(t, admin);
  const inactive = await createTenantUser(t, tenant.id);
  const schema = `tenant_${tenant.id.replaceAll('-', '')}`;
  await t.app.pool.query(`update "${schema}".users set active = false where id = $1`, [inactive.id]);
  const onboarding = await createTenant(admin);
  await provisionTenant(t, admin, onboarding.id);
  const notLiveUser = await createTenantUser(t, onboarding.id);

  const cases = [
    { workspace: 'no-such-workspace', email: user.email, password: user.password },
    { workspace: onboarding.slug, email: notLiveUser.email, password: notLiveUser.password },
    { workspace: tenant.slug, email: 'ghost@client.test', password: user.password },
    { workspace: tenant.slug, email: inactive.email, password: inactive.password },
    { workspace: tenant.slug, email: user.email, password: 'not the password' },
  ];
  for (const body of cases) {
    const res = await productClient(t).post('/login', body);
    assert.is(res.status, 401, JSON.stringify(body));
    assert.is(res.text, '{"detail":"Invalid workspace, email, or password."}');
    assert.equal(setCookies(res), []);
  }
});

test('GET /me: 401 texts without a cookie, with a malformed, unknown, expired or wrong-workspace cookie', async () => {
  const none = await productClient(t).get('/me');
  assert.is(none.status, 401);
  assert.is(none.text, '{"detail":"No tenant session."}');
  for (const cookie of ['no-colon-at-all', ':token-only', 'slug-only:', 'no-such-workspace:abc']) {
    const res = await productClient(t).get('/me', { headers: { cookie: `svc_tenant_session=${cookie}` } });
    assert.is(res.status, 401, cookie);
    assert.is(res.text, '{"detail":"Tenant session expired or revoked."}', cookie);
  }
  const { tenant, user } = await liveTenant(t, admin);
  const client = await tenantLogin(t, tenant.slug, user.email, user.password);
  clock.advance(24 * 3600 * 1000 - 1000);
  assert.is((await client.get('/me')).status, 200, 'alive just before 24 h');
  clock.advance(2000);
  const expired = await client.get('/me');
  assert.is(expired.status, 401);
  assert.is(expired.body.detail, 'Tenant session expired or revoked.');
  admin = await staffLogin(t, admin.staff); // the 12 h staff session expired on the way
});

test('the cookie value splits on the first colon only: a token containing colons is refused, not re-split', async () => {
  const { tenant, user } = await liveTenant(t, admin);
  const client = await tenantLogin(t, tenant.slug, user.email, user.password);
  const value = client.cookies.get('svc_tenant_session')!;
  const ok = await productClient(t).get('/me', { headers: { cookie: `svc_tenant_session=${value}` } });
  assert.is(ok.status, 200);
  const extra = await productClient(t).get('/me', { headers: { cookie: `svc_tenant_session=${value}:extra` } });
  assert.is(extra.status, 401);
  const encoded = await productClient(t).get('/me', { headers: { cookie: `svc_tenant_session=${value.replace(':', '%3A')}` } });
  assert.is(encoded.status, 200, 'a percent-encoded colon is the same cookie');
});

test('isolation: a session of tenant A is 401 under tenant B’s slug, and the same e-mail in two workspaces is two users', async () => {
  const a = await liveTenant(t, admin);
  const b = await liveTenant(t, admin);
  const twin = await createTenantUser(t, b.tenant.id, { email: a.user.email, password: 'another password' });
  assert.is.not(twin.id, a.user.id);

  const clientA = await tenantLogin(t, a.tenant.slug, a.user.email, a.user.password);
  const tokenA = clientA.cookies.get('svc_tenant_session')!.split(':')[1];
  const crossed = await productClient(t).get('/me', { headers: { cookie: `svc_tenant_session=${b.tenant.slug}:${tokenA}` } });
  assert.is(crossed.status, 401);
  assert.is(crossed.body.detail, 'Tenant session expired or revoked.');

  assert.is((await productClient(t).post('/login', { workspace: b.tenant.slug, email: a.user.email, password: a.user.password })).status, 401);
  const clientB = await tenantLogin(t, b.tenant.slug, a.user.email, 'another password');
  assert.is((await clientB.get('/me')).body.user_id, twin.id);
});

test('a tenant that leaves live invalidates its sessions', async () => {
  const { tenant, user } = await liveTenant(t, admin);
  const client = await tenantLogin(t, tenant.slug, user.email, user.password);
  await setTenantState(t, tenant.id, 'offboarded');
  assert.is((await client.get('/me')).status, 401);
});

test('POST /logout needs CSRF, revokes the session row and clears the cookie', async () => {
  const { tenant, user } = await liveTenant(t, admin);
  const client = await tenantLogin(t, tenant.slug, user.email, user.password);
  const value = client.cookies.get('svc_tenant_session')!;
  const noCsrf = await client.post('/logout', undefined, { noCsrf: true });
  assert.is(noCsrf.status, 403);
  assert.is(noCsrf.text, '{"detail":"CSRF token missing or mismatched."}');
  const out = await client.post('/logout');
  assert.is(out.status, 204);
  assert.ok(setCookies(out).some((c) => c.name === 'svc_tenant_session'));
  const schema = `tenant_${tenant.id.replaceAll('-', '')}`;
  const { rows } = await t.app.pool.query(`select revoked_at from "${schema}".sessions where token_hash = $1`, [sha256Hex(value.split(':')[1])]);
  assert.ok(rows[0].revoked_at instanceof Date);
  const replay = await productClient(t).get('/me', { headers: { cookie: `svc_tenant_session=${value}` } });
  assert.is(replay.status, 401);
  assert.is(replay.body.detail, 'Tenant session expired or revoked.');
});

test('permissions: 403 with the exact text when the role profile lacks it; CSRF before the handler', async () => {
  const { tenant } = await liveTenant(t, admin);
  const viewer = await createTenantUser(t, tenant.id, { roleProfile: 'viewer' });
  const analyst = await createTenantUser(t, tenant.id, { roleProfile: 'analyst' });
  const asViewer = await tenantLogin(t, tenant.slug, viewer.email, viewer.password);
  const denied = await asViewer.post('/probe/exports', { name: 'q1' });
  assert.is(denied.status, 403);
  assert.is(denied.text, `{"detail":"Missing required permission 'exports.create'."}`);
  assert.ok(!(await asViewer.get('/me')).body.permissions.includes('exports.create'));

  const asAnalyst = await tenantLogin(t, tenant.slug, analyst.email, analyst.password);
  const allowed = await asAnalyst.post('/probe/exports', { name: 'q1' });
  assert.is(allowed.status, 200, allowed.text);
  assert.is(allowed.body.user_id, analyst.id);
  const forged = await asAnalyst.post('/probe/exports', { name: 'q1' }, { headers: { 'x-csrf-token': 'forged' } });
  assert.is(forged.status, 403);
  assert.is(forged.body.detail, 'CSRF token missing or mismatched.');
});

test('GET /workspaces lists live tenants only, without a credential', async () => {
  const live = await liveTenant(t, admin);
  const draft = await createTenant(admin, { industry: 'Logistics' });
  const res = await productClient(t).get('/workspaces');
  assert.is(res.status, 200);
  assert.ok(res.body.every((w: { status: string }) => w.status === 'live'));
  assert.equal(
    res.body.find((w: { client_id: string }) => w.client_id === live.tenant.slug),
    { client_id: live.tenant.slug, company: live.tenant.company, industry: null, status: 'live' },
  );
  assert.not.ok(res.body.some((w: { client_id: string }) => w.client_id === draft.slug));
});

test('impersonation: earliest-created active user, fresh CSRF cookie, staff session untouched, audit rows', async () => {
  const { tenant, user } = await liveTenant(t, admin);
  await createTenantUser(t, tenant.id);
  const staffToken = admin.cookies.get('svc_admin_session')!;
  const csrfBefore = admin.cookies.get('svc_csrf')!;

  const res = await admin.post(`/admin/tenants/${tenant.id}/impersonate`);
  assert.is(res.status, 200, res.text);
  assert.is(res.body.user_id, user.id);
  assert.is(res.body.workspace, tenant.slug);
  const cookies = setCookies(res);
  assert.equal(cookies.map((c) => c.name).sort(), ['svc_csrf', 'svc_tenant_session']);
  assert.is.not(admin.cookies.get('svc_csrf'), csrfBefore, 'a fresh CSRF cookie');
  assert.is(admin.cookies.get('svc_admin_session'), staffToken, 'the staff cookie is untouched');

  // The caller holds both sessions: staff and tenant routes both answer, writes with the new CSRF.
  assert.is((await admin.get('/admin/me')).status, 200);
  assert.is((await admin.get('/me')).body.user_id, user.id);
  assert.is((await admin.get('/admin/tenants')).status, 200);
  // The tenant identity names the employee behind it (the console's impersonation banner).
  const employee = (await admin.get('/admin/me')).body;
  const impersonator = { employee_id: employee.id, email: employee.email, full_name: employee.full_name };
  assert.equal(res.body.impersonated_by, impersonator);
  assert.equal((await admin.get('/me')).body.impersonated_by, impersonator);

  const { rows } = await t.app.pool.query(
    `select action, actor_type, actor_id, resource_type, resource_id, tenant_id from control_audit_events where action = 'employee_impersonation'`,
  );
  assert.equal(rows, [
    {
      action: 'employee_impersonation',
      actor_type: 'employee',
      actor_id: admin.staff.id,
      resource_type: 'tenant_user',
      resource_id: user.id,
      tenant_id: tenant.id,
    },
  ]);
  const schema = `tenant_${tenant.id.replaceAll('-', '')}`;
  const session = await t.app.pool.query(`select impersonated_by from "${schema}".sessions where impersonated_by is not null`);
  assert.equal(session.rows, [{ impersonated_by: admin.staff.id }]);
});

test('impersonation refusals: not live, no active users, support_readonly, CSRF, unknown tenant', async () => {
  const draft = await createTenant(admin);
  const notLive = await admin.post(`/admin/tenants/${draft.id}/impersonate`);
  assert.is(notLive.status, 409);
  assert.is(notLive.text, '{"detail":"Tenant is not live yet."}');

  const empty = await createTenant(admin);
  await provisionTenant(t, admin, empty.id);
  await setTenantState(t, empty.id, 'live');
  const nobody = await admin.post(`/admin/tenants/${empty.id}/impersonate`);
  assert.is(nobody.status, 409);
  assert.is(nobody.text, '{"detail":"Tenant has no active users to impersonate."}');

  const reader = await staffLogin(t, await seedStaff(t, { role: 'support_readonly' }));
  const denied = await reader.post(`/admin/tenants/${empty.id}/impersonate`);
  assert.is(denied.status, 403);
  assert.is(denied.body.detail, "Requires one of ('onboarding_admin',), has 'support_readonly'.");
  assert.is((await admin.post(`/admin/tenants/${empty.id}/impersonate`, undefined, { noCsrf: true })).status, 403);
  assert.is((await admin.post('/admin/tenants/00000000-0000-4000-8000-000000000000/impersonate')).text, '{"detail":"Tenant not found."}');
});

test.run();
