import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sha256Hex } from '../../../lib/crypto.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { TestClock } from '../../helpers/clock.ts';
import { productClient, seedStaff, setCookies, staffLogin } from '../../helpers/product.ts';
import { recordScryptCalls } from '../../helpers/scryptCalls.ts';

const clock = new TestClock('2026-03-02T09:00:00Z');
let t: TestApp;
test.before(async () => {
  t = await startTestApp({ clock });
});
test.after(async () => t.close());

test('POST /admin/login sets the staff cookie (httpOnly, Lax, path /, 12 h) and a readable CSRF cookie, and answers the identity', async () => {
  const staff = await seedStaff(t, { email: 'Ada@Svc.Test', name: 'Ada Lovelace' });
  const client = productClient(t);
  const res = await client.post('/admin/login', { email: 'ada@svc.test', password: staff.password }, { headers: { 'user-agent': 'uvu-browser/1.0' } });
  assert.is(res.status, 200, res.text);
  assert.equal(res.body, { id: staff.id, email: 'ada@svc.test', full_name: 'Ada Lovelace', control_role: 'onboarding_admin' });

  const cookies = setCookies(res);
  assert.equal(cookies.map((c) => c.name).sort(), ['svc_admin_session', 'svc_csrf']);
  const session = cookies.find((c) => c.name === 'svc_admin_session')!;
  assert.is(session.attributes.httponly, true);
  assert.is(session.attributes.samesite, 'Lax');
  assert.is(session.attributes.path, '/');
  assert.is(session.attributes['max-age'], String(12 * 3600));
  assert.not.ok('secure' in session.attributes, 'plain http outside production: no Secure');
  const csrf = cookies.find((c) => c.name === 'svc_csrf')!;
  assert.not.ok('httponly' in csrf.attributes);
  assert.is(csrf.attributes.samesite, 'Lax');
  assert.is(csrf.attributes.path, '/');
  assert.ok(csrf.value.length >= 32);

  // Only the hash is stored, with the caller's IP and user agent, expiring in 12 hours.
  const { rows } = await t.app.pool.query('select token_hash, ip, user_agent, expires_at, revoked_at from employee_sessions where employee_id = $1', [
    staff.id,
  ]);
  assert.is(rows.length, 1);
  assert.is(rows[0].token_hash, sha256Hex(session.value));
  assert.not.ok(JSON.stringify(rows).includes(session.value));
  assert.match(rows[0].ip, /127\.0\.0\.1/);
  assert.is(rows[0].user_agent, 'uvu-browser/1.0');
  assert.is(rows[0].expires_at.getTime(), clock.now().getTime() + 12 * 3600 * 1000);

  const audit = await t.app.pool.query(`select action, actor_type, actor_id from control_audit_events where actor_id = $1`, [staff.id]);
  assert.equal(audit.rows, [{ action: 'employee_login', actor_type: 'employee', actor_id: staff.id }]);

  const me = await client.get('/admin/me');
  assert.is(me.status, 200);
  assert.equal(me.body, res.body);
});

test('unknown e-mail, wrong password and inactive employee give the same 401 after the same work: one scrypt each', async () => {
  const staff = await seedStaff(t);
  const inactive = await seedStaff(t);
  await t.app.pool.query('update employees set active = false where id = $1', [inactive.id]);
  const attempts = [
    { email: 'nobody@svc.test', password: 'an unknown user password' },
    { email: staff.email, password: 'wrong password' },
    { email: inactive.email, password: inactive.password },
  ];
  // The first unknown account of a process also builds the dummy hash it verifies against (once).
  await productClient(t).post('/admin/login', { email: 'warm-up@svc.test', password: 'warm up' });
  for (const body of attempts) {
    // No timing assertion (timings are noise on a shared machine): the three paths do the same work,
    // one scrypt over the password sent, so none answers sooner than the others.
    const scrypt = recordScryptCalls();
    try {
      const res = await productClient(t).post('/admin/login', body);
      assert.is(res.status, 401, body.email);
      assert.is(res.text, '{"detail":"Invalid email or password."}');
      assert.equal(setCookies(res), []);
      assert.is(scrypt.passwords.length, 1, `${body.email}: scrypt calls`);
      assert.is(scrypt.callsOn(body.password), 1, `${body.email}: scrypt over the password sent`);
    } finally {
      scrypt.restore();
    }
  }
});

test('GET /admin/me: 401 without a cookie, with an unknown, a revoked or an expired session; no header fallback', async () => {
  const none = await productClient(t).get('/admin/me', { headers: { authorization: 'Bearer whatever', 'x-employee-id': 'someone' } });
  assert.is(none.status, 401);
  assert.is(none.text, '{"detail":"No employee session."}');

  const bogus = await productClient(t).get('/admin/me', { headers: { cookie: 'svc_admin_session=not-a-session' } });
  assert.is(bogus.status, 401);
  assert.is(bogus.text, '{"detail":"Employee session expired or revoked."}');

  const client = await staffLogin(t);
  clock.advance(12 * 3600 * 1000 - 1000);
  assert.is((await client.get('/admin/me')).status, 200, 'alive just before 12 h');
  clock.advance(2000);
  const expired = await client.get('/admin/me');
  assert.is(expired.status, 401);
  assert.is(expired.body.detail, 'Employee session expired or revoked.');
});

test('POST /admin/logout needs CSRF, revokes the session row and clears the cookie; the old cookie is then refused', async () => {
  const client = await staffLogin(t);
  const token = client.cookies.get('svc_admin_session')!;

  const noCsrf = await client.post('/admin/logout', undefined, { noCsrf: true });
  assert.is(noCsrf.status, 403);
  assert.is(noCsrf.text, '{"detail":"CSRF token missing or mismatched."}');
  const wrong = await client.post('/admin/logout', undefined, { headers: { 'x-csrf-token': 'x'.repeat(43) } });
  assert.is(wrong.status, 403);
  assert.is(wrong.body.detail, 'CSRF token missing or mismatched.');

  const out = await client.post('/admin/logout');
  assert.is(out.status, 204, out.text);
  const cleared = setCookies(out).find((c) => c.name === 'svc_admin_session');
  assert.ok(cleared, 'the session cookie is expired');
  const { rows } = await t.app.pool.query('select revoked_at from employee_sessions where token_hash = $1', [sha256Hex(token)]);
  assert.ok(rows[0].revoked_at instanceof Date);

  const replay = await productClient(t).get('/admin/me', { headers: { cookie: `svc_admin_session=${token}` } });
  assert.is(replay.status, 401);
  assert.is(replay.body.detail, 'Employee session expired or revoked.');
});

test('support_readonly reads the registry but every write is 403 with the exact role text; logout is allowed', async () => {
  const reader = await staffLogin(t, await seedStaff(t, { role: 'support_readonly' }));
  const me = await reader.get('/admin/me');
  assert.is(me.body.control_role, 'support_readonly');
  assert.is((await reader.get('/admin/tenants')).status, 200);
  const write = await reader.post('/admin/tenants', { slug: 'read-only-co', company: 'RO' });
  assert.is(write.status, 403);
  assert.is(write.text, `{"detail":"Requires one of ('onboarding_admin',), has 'support_readonly'."}`);
  assert.is((await reader.post('/admin/logout')).status, 204);
});

test('the tenant cookie means nothing to staff routes and the staff cookie nothing to tenant routes', async () => {
  const client = await staffLogin(t);
  const token = client.cookies.get('svc_admin_session')!;
  const asTenant = await productClient(t).get('/me', { headers: { cookie: `svc_tenant_session=${token}` } });
  assert.is(asTenant.status, 401);
  const staffOnTenant = await client.get('/me');
  assert.is(staffOnTenant.status, 401);
  assert.is(staffOnTenant.body.detail, 'No tenant session.');
  const tenantOnStaff = await productClient(t).get('/admin/me', { headers: { cookie: `svc_tenant_session=acme:${token}` } });
  assert.is(tenantOnStaff.body.detail, 'No employee session.');
});

test('Secure is set behind a trusted https proxy and forced in production', async () => {
  const staff = await seedStaff(t);
  const plain = await productClient(t).post('/admin/login', { email: staff.email, password: staff.password }, { headers: { 'x-forwarded-proto': 'https' } });
  assert.not.ok(
    setCookies(plain).some((c) => 'secure' in c.attributes),
    'X-Forwarded-Proto is not trusted without TRUST_PROXY',
  );

  const proxied = await startTestApp({ env: { TRUST_PROXY: '1' } });
  const prod = await startTestApp({
    env: {
      NODE_ENV: 'production',
      AUTH_PROVIDER: 'oidc',
      OIDC_ISSUER: 'https://idp.test',
      OIDC_AUDIENCE: 'svc',
      JWT_SECRET: 'x'.repeat(40),
      SECRETS_KEY: 'k'.repeat(40),
      PASSWORD_SCRYPT_LOG_N: '17',
    },
  });
  try {
    for (const [app, headers, expectSecure] of [
      [proxied, { 'x-forwarded-proto': 'https' }, true],
      [proxied, { 'x-forwarded-proto': 'http' }, false],
      [prod, {}, true],
    ] as const) {
      const creds = await seedStaff(app);
      const res = await productClient(app).post('/admin/login', { email: creds.email, password: creds.password }, { headers });
      assert.is(res.status, 200, res.text);
      const cookies = setCookies(res);
      assert.is(cookies.length, 2);
      for (const cookie of cookies) assert.is('secure' in cookie.attributes, expectSecure, `${cookie.name} ${JSON.stringify(headers)}`);
    }
  } finally {
    await proxied.close();
    await prod.close();
  }
});

test('login bodies are validated before anything else: 422 in FastAPI shape, no attempt counted', async () => {
  const res = await productClient(t).post('/admin/login', { email: 'someone@svc.test' });
  assert.is(res.status, 422);
  assert.equal(res.body.detail, [{ loc: ['body', 'password'], msg: 'Field required', type: 'missing', input: null }]);
  const { rowCount } = await t.app.pool.query(`select 1 from login_attempts where key = 'employee:someone@svc.test'`);
  assert.is(rowCount, 0);
});

test('/openapi.json declares the cookie security of each session route and the staff roles', async () => {
  const spec = (await productClient(t).get('/openapi.json')).body;
  assert.equal(Object.keys(spec.components.securitySchemes).sort(), ['staffSession', 'tenantSession']);
  assert.equal(spec.paths['/admin/me'].get.security, [{ staffSession: [] }]);
  assert.equal(spec.paths['/me'].get.security, [{ tenantSession: [] }]);
  assert.equal(spec.paths['/admin/login'].post.security, []);
  assert.equal(spec.paths['/admin/tenants'].get['x-staff-roles'], ['onboarding_admin', 'support_readonly']);
  assert.equal(spec.paths['/admin/tenants'].post['x-staff-roles'], ['onboarding_admin']);
  assert.equal(spec.paths['/admin/logout'].post['x-staff-roles'], ['onboarding_admin', 'support_readonly']);
});

test('GET /metrics on the product surface needs a staff cookie', async () => {
  const anonymous = await productClient(t).get('/metrics');
  assert.is(anonymous.status, 401);
  assert.is(anonymous.body.detail, 'No employee session.');
  const client = await staffLogin(t, await seedStaff(t, { role: 'support_readonly' }));
  const res = await client.get('/metrics');
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', 'text/plain');
  assert.match(res.text, 'svc_http_request_duration_seconds');
});

test.run();
