/**
 * The CSRF token is bound to the session (issue 18): header and cookie must agree (double submit) and
 * the value must carry the server's HMAC for the session cookie the route uses. A value planted by a
 * sibling subdomain, or another session's token, is 403 even when header and cookie agree.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { liveTenant, staffLogin, tenantLogin } from '../../helpers/product.ts';

const MISMATCH = { detail: 'CSRF token missing or mismatched.' };
let t: TestApp;
test.before(async () => {
  t = await startTestApp({ worker: true });
});
test.after(async () => t.close());

test('a planted CSRF value (cookie and header agree) is refused; the issued one works', async () => {
  const staff = await staffLogin(t);
  const issued = staff.cookies.get('svc_csrf')!;
  staff.cookies.set('svc_csrf', 'planted-by-a-sibling-subdomain');
  const planted = await staff.post('/admin/tenants', { slug: 'planted', company: 'Planted' });
  assert.is(planted.status, 403);
  assert.equal(planted.body, MISMATCH);
  staff.cookies.set('svc_csrf', issued);
  assert.is((await staff.post('/admin/tenants', { slug: 'issued', company: 'Issued' })).status, 201);
});

test("another session's CSRF value does not work with this session's cookie", async () => {
  const a = await staffLogin(t);
  const b = await staffLogin(t);
  a.cookies.set('svc_csrf', b.cookies.get('svc_csrf')!);
  const res = await a.post('/admin/tenants', { slug: 'crossed', company: 'Crossed' });
  assert.is(res.status, 403);
  assert.equal(res.body, MISMATCH);
});

test('after impersonation the fresh CSRF value serves both the staff and the tenant session', async () => {
  const staff = await staffLogin(t);
  const { tenant, user } = await liveTenant(t, staff);
  assert.is((await staff.post(`/admin/tenants/${tenant.id}/impersonate`)).status, 200);
  assert.is((await staff.post('/admin/tenants', { slug: 'after-impersonation', company: 'After' })).status, 201);
  assert.is((await staff.post('/logout')).status, 204);
  const tenantUser = await tenantLogin(t, tenant.slug, user.email, user.password);
  tenantUser.cookies.set('svc_csrf', staff.cookies.get('svc_csrf')!);
  assert.is((await tenantUser.post('/logout')).status, 403, 'a token bound to other sessions does not serve this one');
});

test.run();
