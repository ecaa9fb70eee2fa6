/**
 * Sessions end when they should (issue 18): accepting an invitation, which replaces an existing
 * user's password, revokes that user's other sessions; an impersonation session ends with the staff
 * session that minted it (logout), with a password reset of the employee, and with deactivation.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sha256Hex } from '../../../lib/crypto.ts';
import { insertPasswordReset } from '../../../sql/passwordResets.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { liveTenant, productClient, staffLogin, tenantLogin, type ProductClient } from '../../helpers/product.ts';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp.ts';

let t: TestApp;
let smtp: SmtpSink;
test.before(async () => {
  smtp = await startSmtpSink();
  t = await startTestApp({ worker: true, env: { SMTP_URL: smtp.url } });
});
test.after(async () => {
  await t.close();
  await smtp.close();
});

async function impersonating(): Promise<{ staff: ProductClient & { staff: { id: string; email: string } }; tenantId: string }> {
  const staff = await staffLogin(t);
  const { tenant } = await liveTenant(t, staff);
  assert.is((await staff.post(`/admin/tenants/${tenant.id}/impersonate`)).status, 200);
  assert.is((await staff.get('/me')).status, 200);
  return { staff, tenantId: tenant.id };
}

test('accepting an invitation as an existing user revokes their other sessions', async () => {
  const staff = await staffLogin(t);
  const { tenant, user } = await liveTenant(t, staff);
  const signedIn = await tenantLogin(t, tenant.slug, user.email, user.password);
  assert.is((await signedIn.get('/me')).status, 200);
  assert.is((await staff.post(`/admin/tenants/${tenant.id}/invite`, { email: user.email, role_profile: 'viewer' })).status, 201);
  const mail = await smtp.waitFor((m) => m.to.includes(user.email));
  const token = /token=([A-Za-z0-9_-]+)/.exec(mail.text)![1];
  const accepted = await productClient(t).post('/accept-invite', { workspace: tenant.slug, token, password: 'a password set by invitation' });
  assert.is(accepted.status, 200, accepted.text);
  assert.is((await signedIn.get('/me')).status, 401, 'the session from before the password change is revoked');
});

test('an impersonation session ends when the staff session that minted it logs out', async () => {
  const { staff } = await impersonating();
  const tenantCookie = staff.cookies.get('svc_tenant_session')!;
  assert.is((await staff.post('/admin/logout')).status, 204);
  const other = productClient(t);
  other.cookies.set('svc_tenant_session', tenantCookie);
  assert.is((await other.get('/me')).status, 401);
});

test("an impersonation session ends with the employee's password reset and with deactivation", async () => {
  const reset = await impersonating();
  const token = 'reset-token-for-impersonation-test';
  await insertPasswordReset(t.app.pool, { kind: 'employee', employeeId: reset.staff.staff.id }, sha256Hex(token), new Date(Date.now() + 3_600_000));
  assert.is((await productClient(t).post('/admin/password-reset/confirm', { token, password: 'a brand new passphrase' })).status, 204);
  assert.is((await reset.staff.get('/me')).status, 401);

  const deactivated = await impersonating();
  await t.app.pool.query('update employees set active = false where id = $1', [deactivated.staff.staff.id]);
  assert.is((await deactivated.staff.get('/me')).status, 401);
});

test.run();
