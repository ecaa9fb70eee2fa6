import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { TestClock } from '../../helpers/clock.ts';
import { liveTenant, productClient, seedStaff, staffLogin, tenantLogin } from '../../helpers/product.ts';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp.ts';

const REQUESTED = 'If the account exists, a password reset link has been sent to its e-mail address.';
const clock = new TestClock();
let t: TestApp;
let smtp: SmtpSink;
test.before(async () => {
  smtp = await startSmtpSink();
  t = await startTestApp({ worker: true, clock, env: { SMTP_URL: smtp.url, APP_URL: 'https://console.svc.test', TRUST_PROXY: '1' } });
});
test.after(async () => {
  await t.close();
  await smtp.close();
});

const linkIn = (text: string, path: string) => {
  const match = new RegExp(`https://console\\.svc\\.test${path.replace('?', '\\?')}[^\\s]+`).exec(text);
  if (!match) throw new Error(`no ${path} link in: ${text}`);
  return new URL(match[0]);
};

test('staff reset: the request mails a one-time link; confirm sets the password and revokes every session', async () => {
  const staff = await seedStaff(t);
  const signedIn = await staffLogin(t, staff);
  const request = await productClient(t).post('/admin/password-reset/request', { email: staff.email.toUpperCase() });
  assert.is(request.status, 202);
  assert.equal(request.body, { detail: REQUESTED });

  const mail = await smtp.waitFor((m) => m.to.includes(staff.email));
  const link = linkIn(mail.text, '/admin/reset-password?token=');
  const token = link.searchParams.get('token')!;
  const { rows } = await t.app.pool.query('select token_hash from password_reset_tokens where employee_id = $1', [staff.id]);
  assert.is(rows.length, 1);
  assert.not.ok(rows[0].token_hash.includes(token), 'only the hash is stored');

  const short = await productClient(t).post('/admin/password-reset/confirm', { token, password: 'short' });
  assert.is(short.status, 422);
  assert.equal(short.body.detail[0].loc, ['body', 'password']);

  const confirm = await productClient(t).post('/admin/password-reset/confirm', { token, password: 'a brand new passphrase' });
  assert.is(confirm.status, 204, confirm.text);
  assert.is((await signedIn.get('/admin/me')).status, 401, 'existing sessions are revoked');
  assert.is((await productClient(t).post('/admin/login', { email: staff.email, password: staff.password })).status, 401);
  assert.is((await productClient(t).post('/admin/login', { email: staff.email, password: 'a brand new passphrase' })).status, 200);

  const reused = await productClient(t).post('/admin/password-reset/confirm', { token, password: 'yet another passphrase' });
  assert.is(reused.status, 400);
  assert.is(reused.text, '{"detail":"Invalid or expired password reset token."}');
});

test('a reset request for an unknown or inactive account answers the same and sends nothing', async () => {
  const inactive = await seedStaff(t);
  await t.app.pool.query('update employees set active = false where id = $1', [inactive.id]);
  for (const email of ['nobody@svc.test', inactive.email]) {
    const res = await productClient(t).post('/admin/password-reset/request', { email });
    assert.is(res.status, 202);
    assert.equal(res.body, { detail: REQUESTED });
  }
  const tenantUnknown = await productClient(t).post('/password-reset/request', { workspace: 'no-such-workspace', email: 'x@y.test' });
  assert.is(tenantUnknown.status, 202);
  assert.equal(tenantUnknown.body, { detail: REQUESTED });
  const { rows } = await t.app.pool.query(`select count(*)::int as n from outbox_emails where to_address in ('nobody@svc.test', $1, 'x@y.test')`, [
    inactive.email,
  ]);
  assert.is(rows[0].n, 0);
});

test('an expired reset token is refused', async () => {
  const staff = await seedStaff(t);
  await productClient(t).post('/admin/password-reset/request', { email: staff.email });
  const token = linkIn((await smtp.waitFor((m) => m.to.includes(staff.email))).text, '/admin/reset-password?token=').searchParams.get('token')!;
  clock.advance(60 * 60 * 1000 + 1);
  const res = await productClient(t).post('/admin/password-reset/confirm', { token, password: 'too late for this' });
  assert.is(res.status, 400);
  assert.is(res.body.detail, 'Invalid or expired password reset token.');
});

test('tenant reset: link with the workspace, new password works, old sessions revoked; a staff token is not a tenant token', async () => {
  const admin = await staffLogin(t);
  const { tenant, user } = await liveTenant(t, admin);
  const session = await tenantLogin(t, tenant.slug, user.email, user.password);
  const res = await productClient(t).post('/password-reset/request', { workspace: tenant.slug, email: user.email });
  assert.is(res.status, 202);
  const mail = await smtp.waitFor((m) => m.to.includes(user.email));
  const link = linkIn(mail.text, '/reset-password?workspace=');
  assert.is(link.searchParams.get('workspace'), tenant.slug);
  const token = link.searchParams.get('token')!;

  const wrongKind = await productClient(t).post('/admin/password-reset/confirm', { token, password: 'a brand new passphrase' });
  assert.is(wrongKind.status, 400);
  const ok = await productClient(t).post('/password-reset/confirm', { workspace: tenant.slug, token, password: 'a brand new passphrase' });
  assert.is(ok.status, 204, ok.text);
  assert.is((await session.get('/me')).status, 401);
  assert.is((await tenantLogin(t, tenant.slug, user.email, 'a brand new passphrase').then((c) => c.get('/me'))).body.user_id, user.id);
});

test('reset requests are budgeted: the sixth for one account within 15 minutes is 429 with Retry-After', async () => {
  const staff = await seedStaff(t);
  for (let i = 0; i < 5; i++) assert.is((await productClient(t).post('/admin/password-reset/request', { email: staff.email })).status, 202);
  const res = await productClient(t).post('/admin/password-reset/request', { email: staff.email });
  assert.is(res.status, 429);
  assert.is(res.body.detail, 'Too many password reset requests. Try again later.');
  assert.is(res.headers.get('retry-after'), String(15 * 60));
  // The reset budget has its own keys: the account's login budget is untouched.
  assert.is((await staffLogin(t, staff).then((c) => c.get('/admin/me'))).body.id, staff.id);
});

test('confirm is budgeted per client IP: the 21st guess within 5 minutes is 429, and a valid token from elsewhere still works', async () => {
  const guesser = productClient(t);
  for (let i = 0; i < 20; i++) {
    const res = await guesser.post(i % 2 ? '/admin/password-reset/confirm' : '/password-reset/confirm', {
      token: `guess-${i}`,
      password: 'a brand new passphrase',
    });
    assert.is(res.status, 400, res.text);
  }
  const limited = await guesser.post('/admin/password-reset/confirm', { token: 'guess-21', password: 'a brand new passphrase' });
  assert.is(limited.status, 429);
  assert.is(limited.body.detail, 'Too many password reset attempts. Try again later.');
  assert.ok(Number(limited.headers.get('retry-after')) > 0);

  const staff = await seedStaff(t);
  await productClient(t).post('/admin/password-reset/request', { email: staff.email });
  const token = linkIn((await smtp.waitFor((m) => m.to.includes(staff.email))).text, '/admin/reset-password?token=').searchParams.get('token')!;
  assert.is((await productClient(t).post('/admin/password-reset/confirm', { token, password: 'a brand new passphrase' })).status, 204);
});

test.run();
