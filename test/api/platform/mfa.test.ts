import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { TestClock } from '../../helpers/clock.ts';
import type { HttpResponse } from '../../helpers/http.ts';
import { base32Decode, totp } from '../../../lib/totp.ts';

const clock = new TestClock('2030-01-01T00:00:00Z');
let t: TestApp;
let owner: string; // the demo owner's token from before any factor existed

test.before(async () => {
  t = await startTestApp({ clock });
  owner = (await t.platform.post('/v1/auth/exchange', { subject_token: 'demo' })).body.access_token;
});
test.after(async () => t?.close());

function assertError(res: HttpResponse, status: number, code: string) {
  assert.is(res.status, status, res.text);
  assert.is(res.body.error.code, code, res.text);
  if (status !== 429) assert.is(res.body.error.trace_id, res.headers.get('x-request-id'));
}

/** A new member of the demo workspace, signed in through an accepted invitation. */
async function member(email: string): Promise<string> {
  const invite = await t.platform.post('/v1/invitations', { email, role: 'member' }, { token: owner });
  assert.is(invite.status, 201, invite.text);
  const accepted = await t.platform.post('/v1/invitations/accept', {
    invitation_token: new URL(invite.body.url).searchParams.get('token'),
    subject_token: 'x',
  });
  assert.is(accepted.status, 200, accepted.text);
  return accepted.body.access_token;
}

async function enrolTotp(token: string) {
  const res = await t.platform.post('/v1/mfa/factors', { type: 'totp' }, { token });
  assert.is(res.status, 201, res.text);
  assert.equal(Object.keys(res.body).sort(), ['id', 'otpauth_uri', 'status', 'type']);
  assert.is(res.body.status, 'pending');
  const secret = base32Decode(new URL(res.body.otpauth_uri).searchParams.get('secret')!);
  return { id: res.body.id as string, secret, code: (offsetMs = 0) => totp(secret, clock.now().getTime() + offsetMs) };
}

const lastSms = async (to: string) => {
  const { rows } = await t.app.pool.query(`select body from outbox_sms where to_number = $1 order by created_at desc, id desc limit 1`, [to]);
  return /(\d{6})/.exec(rows[0]?.body ?? '')?.[1];
};

test('TOTP enrolment: the URI is shown once, the secret is stored encrypted, a wrong code does not verify', async () => {
  const token = await member('totp.user@example.com');
  const factor = await enrolTotp(token);
  const stored = (await t.app.pool.query('select secret_ciphertext from mfa_factors where id = $1', [factor.id])).rows[0].secret_ciphertext as string;
  assert.ok(stored.startsWith('v1.'));
  assert.not.ok(stored.includes(Buffer.from(factor.secret).toString('base64')), 'not the raw secret');
  const list = await t.platform.get('/v1/mfa/factors', { token });
  assert.is(list.status, 200, list.text);
  assert.is(list.body.data.length, 1);
  assert.is(list.body.data[0].status, 'pending');
  assert.not.ok('otpauth_uri' in list.body.data[0]);

  const wrong = String((Number(factor.code()) + 1) % 1_000_000).padStart(6, '0');
  assertError(await t.platform.post(`/v1/mfa/factors/${factor.id}/verify`, { code: wrong }, { token }), 400, 'validation_error');
  assertError(await t.platform.post(`/v1/mfa/factors/${factor.id}/verify`, { code: 'abc' }, { token }), 400, 'validation_error');
  const ok = await t.platform.post(`/v1/mfa/factors/${factor.id}/verify`, { code: factor.code() }, { token });
  assert.is(ok.status, 200, ok.text);
  assert.equal(ok.body, { id: factor.id, status: 'verified' });
  assert.is((await t.platform.get('/v1/mfa/factors', { token })).body.data[0].status, 'verified');
});

test('exchange for a user with a factor needs mfa_code; a used TOTP step is never accepted twice; recovery codes work once', async () => {
  const factor = await enrolTotp(owner);
  clock.advance(60_000);
  const verified = await t.platform.post(`/v1/mfa/factors/${factor.id}/verify`, { code: factor.code() }, { token: owner });
  assert.is(verified.status, 200, verified.text);

  const missing = await t.platform.post('/v1/auth/exchange', { subject_token: 'demo' });
  assertError(missing, 403, 'mfa_required');
  assert.equal(missing.body.error.details.factors, [{ id: factor.id, type: 'totp' }]);
  // The code that verified the factor belongs to a step already used.
  assertError(await t.platform.post('/v1/auth/exchange', { subject_token: 'demo', mfa_code: factor.code() }), 401, 'invalid_grant');
  clock.advance(30_000);
  const code = factor.code();
  const signedIn = await t.platform.post('/v1/auth/exchange', { subject_token: 'demo', mfa_code: code });
  assert.is(signedIn.status, 200, signedIn.text);
  assertError(await t.platform.post('/v1/auth/exchange', { subject_token: 'demo', mfa_code: code }), 401, 'invalid_grant');
  // One step of drift is tolerated: the next step's code already works, the one after does not.
  assertError(await t.platform.post('/v1/auth/exchange', { subject_token: 'demo', mfa_code: factor.code(60_000) }), 401, 'invalid_grant');
  assert.is((await t.platform.post('/v1/auth/exchange', { subject_token: 'demo', mfa_code: factor.code(30_000) })).status, 200);

  const recovery = await t.platform.post('/v1/mfa/recovery-codes', undefined, { token: owner });
  assert.is(recovery.status, 201, recovery.text);
  assert.is(recovery.body.codes.length, 10);
  assert.is(new Set(recovery.body.codes).size, 10);
  const stored = (await t.app.pool.query('select code_hash from mfa_recovery_codes')).rows.map((r) => r.code_hash as string);
  assert.is(stored.length, 10);
  for (const c of recovery.body.codes) assert.not.ok(stored.includes(c), 'codes are stored hashed');
  const useCode = recovery.body.codes[0];
  assert.is((await t.platform.post('/v1/auth/exchange', { subject_token: 'demo', mfa_code: useCode.toUpperCase() })).status, 200);
  assertError(await t.platform.post('/v1/auth/exchange', { subject_token: 'demo', mfa_code: useCode }), 401, 'invalid_grant');
  const audit = await t.app.pool.query(`select action, metadata from audit_events where action in ('auth.login.blocked', 'auth.mfa.recovery_code_used')`);
  assert.ok(audit.rows.some((r) => r.action === 'auth.mfa.recovery_code_used'));
  assert.ok(audit.rows.some((r) => r.metadata.reason === 'mfa_code_missing'));

  // Removing the last verified factor ends the requirement (and its recovery codes).
  assert.is((await t.platform.delete(`/v1/mfa/factors/${factor.id}`, { token: owner })).status, 204);
  assertError(await t.platform.delete(`/v1/mfa/factors/${factor.id}`, { token: owner }), 404, 'not_found');
  assert.is(Number((await t.app.pool.query('select count(*) as n from mfa_recovery_codes')).rows[0].n), 0);
  assert.is((await t.platform.post('/v1/auth/exchange', { subject_token: 'demo' })).status, 200);
});

test('wrong codes are rate limited per factor: the sixth attempt is 429 with Retry-After, even with the right code', async () => {
  const token = await member('locked.user@example.com');
  const factor = await enrolTotp(token);
  const other = await enrolTotp(token);
  const wrong = String((Number(factor.code()) + 500_000) % 1_000_000).padStart(6, '0');
  for (let i = 0; i < 5; i++) assertError(await t.platform.post(`/v1/mfa/factors/${factor.id}/verify`, { code: wrong }, { token }), 400, 'validation_error');
  const locked = await t.platform.post(`/v1/mfa/factors/${factor.id}/verify`, { code: factor.code() }, { token });
  assertError(locked, 429, 'rate_limited');
  assert.is(locked.headers.get('retry-after'), '900');
  // The lock is per factor.
  assert.is((await t.platform.post(`/v1/mfa/factors/${other.id}/verify`, { code: other.code() }, { token })).status, 200);
  clock.advance(15 * 60_000);
  assert.is((await t.platform.post(`/v1/mfa/factors/${factor.id}/verify`, { code: factor.code() }, { token })).status, 200);
});

test('SMS factors: the code goes through the outbox sender; verify; sign-in sends a fresh code', async () => {
  const token = await member('sms.user@example.com');
  assertError(await t.platform.post('/v1/mfa/factors', { type: 'sms', phone_number: '555-1234' }, { token }), 400, 'validation_error');
  assertError(await t.platform.post('/v1/mfa/factors', { type: 'email' }, { token }), 400, 'validation_error');
  const enrolled = await t.platform.post('/v1/mfa/factors', { type: 'sms', phone_number: '+15551230001' }, { token });
  assert.is(enrolled.status, 201, enrolled.text);
  assert.equal(Object.keys(enrolled.body).sort(), ['id', 'status', 'type']);
  const code = await lastSms('+15551230001');
  assert.ok(code, 'the code was sent');
  const stored = (await t.app.pool.query('select challenge_hash from mfa_factors where id = $1', [enrolled.body.id])).rows[0].challenge_hash as string;
  assert.is.not(stored, code);
  assert.is((await t.platform.post(`/v1/mfa/factors/${enrolled.body.id}/verify`, { code }, { token })).status, 200);
  // Spent: the same code does not verify again.
  assertError(await t.platform.post(`/v1/mfa/factors/${enrolled.body.id}/verify`, { code }, { token }), 400, 'validation_error');
  const listed = (await t.platform.get('/v1/mfa/factors', { token })).body.data[0];
  assert.is(listed.phone_number, '+*******0001');
});

test('SMS at sign-in: exchange without a code texts one; the code then signs in', async () => {
  const factors = (await t.platform.get('/v1/mfa/factors', { token: owner })).body.data;
  assert.is(factors.length, 0);
  const enrolled = await t.platform.post('/v1/mfa/factors', { type: 'sms', phone_number: '+15551230002' }, { token: owner });
  assert.is((await t.platform.post(`/v1/mfa/factors/${enrolled.body.id}/verify`, { code: await lastSms('+15551230002') }, { token: owner })).status, 200);
  const first = await t.platform.post('/v1/auth/exchange', { subject_token: 'demo' });
  assertError(first, 403, 'mfa_required');
  const code = await lastSms('+15551230002');
  assert.is((await t.platform.post('/v1/auth/exchange', { subject_token: 'demo', mfa_code: code })).status, 200);
  clock.advance(10 * 60_000);
  assertError(await t.platform.post('/v1/auth/exchange', { subject_token: 'demo', mfa_code: code }), 401, 'invalid_grant');
  assert.is((await t.platform.delete(`/v1/mfa/factors/${enrolled.body.id}`, { token: owner })).status, 204);
});

test('workspace enforcement: a member without a verified factor gets 403 mfa_required everywhere except the MFA routes', async () => {
  const token = await member('enforced.user@example.com');
  const on = await t.platform.patch('/v1/workspaces/current', { mfa_required: true }, { token: owner });
  assert.is(on.status, 200, on.text);
  assert.is(on.body.mfa_required, true);
  // The owner has no factor left either.
  assertError(await t.platform.get('/v1/issues', { token }), 403, 'mfa_required');
  assertError(await t.platform.get('/v1/workspaces/current', { token: owner }), 403, 'mfa_required');
  assert.is((await t.platform.get('/v1/mfa/factors', { token })).status, 200);
  const factor = await enrolTotp(token);
  assertError(await t.platform.get('/v1/issues', { token }), 403, 'mfa_required');
  assert.is((await t.platform.post(`/v1/mfa/factors/${factor.id}/verify`, { code: factor.code() }, { token })).status, 200);
  assert.is((await t.platform.get('/v1/issues', { token })).status, 200);
  // Service-account tokens are not people: no factors, and the MFA routes refuse them.
  await t.app.pool.query('update workspaces set mfa_required = false');
  const account = await t.platform.post('/v1/service-accounts', { name: 'robot', scopes: ['mfa:manage', 'issues:read'] }, { token: owner });
  const sa = (await t.platform.post(`/v1/service-accounts/${account.body.id}/tokens`, { name: 't', expires_at: '2031-01-01T00:00:00Z' }, { token: owner })).body
    .token;
  await t.app.pool.query('update workspaces set mfa_required = true');
  assert.is((await t.platform.get('/v1/issues', { token: sa })).status, 200);
  assertError(await t.platform.get('/v1/mfa/factors', { token: sa }), 403, 'forbidden');
  await t.app.pool.query('update workspaces set mfa_required = false');
});

test('SMS_WEBHOOK_URL: codes go to the gateway as JSON {to, body} and are recorded as sent', async () => {
  const received: Array<{ to: string; body: string }> = [];
  const gateway = http.createServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    received.push(JSON.parse(raw));
    res.writeHead(202).end();
  });
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  const other = await startTestApp({ env: { SMS_WEBHOOK_URL: `http://127.0.0.1:${(gateway.address() as AddressInfo).port}/sms` } });
  try {
    const token = (await other.platform.post('/v1/auth/exchange', { subject_token: 'demo' })).body.access_token;
    const enrolled = await other.platform.post('/v1/mfa/factors', { type: 'sms', phone_number: '+4915112345678' }, { token });
    assert.is(enrolled.status, 201, enrolled.text);
    assert.is(received.length, 1);
    assert.is(received[0].to, '+4915112345678');
    const code = /(\d{6})/.exec(received[0].body)![1];
    assert.is((await other.platform.post(`/v1/mfa/factors/${enrolled.body.id}/verify`, { code }, { token })).status, 200);
    // Issue 26: a message the gateway took keeps no body: the code is not at rest.
    assert.equal((await other.app.pool.query(`select status, body from outbox_sms`)).rows[0], { status: 'sent', body: '[erased after delivery]' });
  } finally {
    await other.close();
    gateway.close();
  }
});

test.run();
