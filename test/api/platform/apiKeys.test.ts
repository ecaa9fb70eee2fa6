/**
 * /v1/api-keys (issue 18): workspace API keys are listed without their secret, issued with an
 * optional expiry, expire and are revoked (each stops authenticating at once), and every change is
 * an audit event. The provisioned key is one of them.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { demoToken, startTestApp, type TestApp } from '../../helpers/app.ts';
import { assertError } from '../../helpers/errors.ts';
import type { Client } from '../../helpers/http.ts';

let t: TestApp;
let owner: Client;
test.before(async () => {
  t = await startTestApp();
  owner = t.platform.as(await demoToken(t));
});
test.after(async () => t.close());

const works = async (secret: string) => (await t.platform.get('/v1/jobs', { token: secret })).status;

test('issue, list without secrets, expire, clear the expiry, revoke; each change audited', async () => {
  const created = await owner.post('/v1/api-keys', { note: 'ci pipeline', scopes: ['jobs:read'] });
  assert.is(created.status, 201, created.text);
  const { id, secret } = created.body;
  assert.match(secret, /^svc_key_/);
  assert.equal([created.body.status, created.body.expires_at, created.body.scopes], ['active', null, ['jobs:read']]);
  assert.is(await works(secret), 200);

  const list = await owner.get('/v1/api-keys');
  assert.is(list.status, 200);
  const item = list.body.data.find((k: { id: string }) => k.id === id);
  assert.ok(item);
  assert.not.ok('secret' in item);
  assert.not.ok(list.text.includes(secret));

  const expired = await owner.patch(`/v1/api-keys/${id}`, { expires_at: new Date(Date.now() - 1000).toISOString() });
  assert.is(expired.body.status, 'expired');
  assertError(await t.platform.get('/v1/jobs', { token: secret }), 401, 'unauthorized');
  const cleared = await owner.patch(`/v1/api-keys/${id}`, { expires_at: null });
  assert.equal([cleared.body.status, cleared.body.expires_at], ['active', null]);
  assert.is(await works(secret), 200);

  assert.is((await owner.delete(`/v1/api-keys/${id}`)).status, 204);
  assertError(await t.platform.get('/v1/jobs', { token: secret }), 401, 'unauthorized');
  assert.is((await owner.get(`/v1/api-keys/${id}`)).body.status, 'revoked');
  assertError(await owner.patch(`/v1/api-keys/${id}`, { expires_at: null }), 404, 'not_found');

  const { rows } = await t.app.pool.query(`select action from audit_events where target_id = $1 order by occurred_at, action`, [id]);
  assert.equal(rows.map((r) => r.action).sort(), ['api_key.created', 'api_key.expiry_set', 'api_key.expiry_set', 'api_key.revoked']);
});

test('a key issued with an expiry stops at that time; validation and scope are enforced', async () => {
  const created = await owner.post('/v1/api-keys', { note: 'short lived', expires_at: new Date(Date.now() + 3_600_000).toISOString() });
  assert.is(created.status, 201);
  assert.ok(created.body.expires_at);
  assert.is(await works(created.body.secret), 200);
  await t.app.pool.query(`update api_keys set expires_at = now() - interval '1 second' where id = $1`, [created.body.id]);
  assertError(await t.platform.get('/v1/jobs', { token: created.body.secret }), 401, 'unauthorized');

  assertError(await owner.post('/v1/api-keys', { note: '', scopes: ['nope'], expires_at: 'tomorrow' }), 400, 'validation_error');
  const limited = await owner.post('/v1/api-keys', { note: 'no admin', scopes: ['jobs:read'] });
  assertError(await t.platform.get('/v1/api-keys', { token: limited.body.secret }), 403, 'forbidden');
});

test.run();
