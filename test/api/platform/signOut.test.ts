/**
 * /v1 sign-out and the absolute lifetime of a sign-in (issue 18): POST /v1/auth/sign-out revokes the
 * token family, so its access and refresh tokens stop working at once; refreshing cannot keep a
 * sign-in alive beyond TOKEN_FAMILY_MAX_AGE_MS.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TOKEN_FAMILY_MAX_AGE_MS } from '../../../domain/signInPolicy.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { TestClock } from '../../helpers/clock.ts';
import { assertError } from '../../helpers/errors.ts';

const DAY = 24 * 60 * 60 * 1000;
const clock = new TestClock();
let t: TestApp;
test.before(async () => {
  t = await startTestApp({ clock });
});
test.after(async () => t.close());

const exchange = async () => {
  const res = await t.platform.post('/v1/auth/exchange', { subject_token: 'demo' });
  assert.is(res.status, 200, res.text);
  return res.body as { access_token: string; refresh_token: string };
};

test('sign-out revokes the sign-in: its access token and refresh token stop working at once', async () => {
  const pair = await exchange();
  const other = await exchange();
  assert.is((await t.platform.get('/v1/jobs', { token: pair.access_token })).status, 200);
  const res = await t.platform.post('/v1/auth/sign-out', { refresh_token: pair.refresh_token });
  assert.is(res.status, 204, res.text);
  assertError(await t.platform.get('/v1/jobs', { token: pair.access_token }), 401, 'unauthorized');
  assertError(await t.platform.post('/v1/auth/refresh', { refresh_token: pair.refresh_token }), 401, 'invalid_grant');
  assert.is((await t.platform.get('/v1/jobs', { token: other.access_token })).status, 200, 'another sign-in is untouched');
  const { rows } = await t.app.pool.query(`select count(*)::int as n from audit_events where action = 'auth.signed_out'`);
  assert.is(rows[0].n, 1);
  assert.is((await t.platform.post('/v1/auth/sign-out', { refresh_token: pair.refresh_token })).status, 204, 'again: still 204');
  assert.is((await t.platform.post('/v1/auth/sign-out', { refresh_token: 'svc_rt_unknown' })).status, 204);
  assertError(await t.platform.post('/v1/auth/sign-out', {}), 400, 'validation_error');
});

test('refreshing cannot extend a sign-in beyond its absolute lifetime', async () => {
  const pair = await exchange();
  clock.advance(TOKEN_FAMILY_MAX_AGE_MS - 5 * DAY);
  const refreshed = await t.platform.post('/v1/auth/refresh', { refresh_token: pair.refresh_token });
  assert.is(refreshed.status, 200, 'still within the lifetime');
  clock.advance(10 * DAY);
  assertError(await t.platform.post('/v1/auth/refresh', { refresh_token: refreshed.body.refresh_token }), 401, 'invalid_grant');
  const { rows } = await t.app.pool.query(`select count(*)::int as n from token_families where revoked_reason = 'absolute_lifetime'`);
  assert.is(rows[0].n, 1);
});

test.run();
