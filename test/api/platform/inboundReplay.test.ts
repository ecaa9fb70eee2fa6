/**
 * Issue 26, finding 5: a captured signed inbound webhook cannot be replayed. Standard Webhooks
 * senders are held to a signed id and a timestamp within 5 minutes; a payload accepted in the last
 * 7 days (by its id, or without one by its bytes) answers 202 `duplicate: true` and changes nothing.
 * The attacker's side: the review's replay reverted an issue's title.
 */
import { createHmac } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { signatureHeaders } from '../../../lib/outbound/index.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { TestClock } from '../../helpers/clock.ts';
import type { Client } from '../../helpers/http.ts';

const clock = new TestClock();
let t: TestApp;
let admin: Client;
let connectorId: string;
let secret: string;

test.before(async () => {
  t = await startTestApp({ clock });
  admin = t.platform.as((await t.platform.post('/v1/auth/exchange', { subject_token: 'demo' })).body.access_token);
  const connector = await admin.post('/v1/connectors', { name: 'push', kind: 'webhook' });
  const hook = await admin.post('/v1/webhooks', { url: 'https://receiver.example/hook', connector_id: connector.body.id });
  assert.is(hook.status, 201, hook.text);
  connectorId = connector.body.id;
  secret = hook.body.signing_secret;
});
test.after(async () => t?.close());

const post = (raw: string, headers: Record<string, string>) =>
  t.platform.post(`/v1/webhooks/inbound/${connectorId}`, undefined, { raw, headers: { 'content-type': 'application/json', ...headers } });
const svcSigned = (raw: string) => ({ 'x-svc-signature': createHmac('sha256', secret).update(raw).digest('hex') });
const titleOf = async (externalId: string) =>
  (await t.app.pool.query('select title from issues where external_id = $1', [externalId])).rows[0]?.title as string | undefined;
const deliveries = async () => Number((await t.app.pool.query('select count(*) as n from inbound_deliveries')).rows[0].n);

test('a captured body-signed payload replayed later is answered 202 duplicate and does not revert the issue', async () => {
  const v1 = JSON.stringify({ external_id: 'replay-1', title: 'Original title' });
  const first = await post(v1, svcSigned(v1));
  assert.is(first.status, 202, first.text);
  assert.is(first.body.duplicate, false);
  const v2 = JSON.stringify({ external_id: 'replay-1', title: 'Corrected title' });
  assert.is((await post(v2, svcSigned(v2))).status, 202);
  assert.is(await titleOf('replay-1'), 'Corrected title');
  const before = await deliveries();

  clock.advance(3 * 24 * 3600_000);
  const replay = await post(v1, svcSigned(v1));
  assert.is(replay.status, 202, replay.text);
  assert.equal([replay.body.duplicate, replay.body.accepted, replay.body.issue_ids], [true, 0, []]);
  assert.is(replay.body.delivery_id, first.body.delivery_id, 'names the delivery that applied it');
  assert.is(await titleOf('replay-1'), 'Corrected title', 'the replay reverted the title');
  assert.is(await deliveries(), before, 'nothing recorded for the replay');

  // Past the 7-day window the same bytes are a new delivery (senders wanting more use webhook-id).
  clock.advance(5 * 24 * 3600_000);
  const later = await post(v1, svcSigned(v1));
  assert.is(later.body.duplicate, false);
});

test('Standard Webhooks: the id and timestamp are signed, the timestamp within 5 minutes, the id accepted once', async () => {
  const raw = JSON.stringify({ external_id: 'std-1', title: 'Standard' });
  const headers = signatureHeaders(secret, 'msg_1', raw, clock.now());
  delete (headers as Record<string, string>)['x-svc-signature'];
  const first = await post(raw, headers);
  assert.is(first.status, 202, first.text);
  assert.is(first.body.duplicate, false);
  const again = await post(raw, headers);
  assert.equal([again.status, again.body.duplicate], [202, true]);

  // The same body under another id is another message; a re-signed old message is still the same id.
  const other = signatureHeaders(secret, 'msg_2', raw, clock.now());
  assert.is((await post(raw, other)).body.duplicate, false);

  // A forged id or timestamp breaks the signature.
  assert.is((await post(raw, { ...headers, 'webhook-id': 'msg_forged' })).status, 401);
  assert.is((await post(raw, { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) + 1) })).status, 401);
  // An old capture is refused by its timestamp, even with a valid signature.
  const stale = signatureHeaders(secret, 'msg_3', raw, new Date(clock.now().getTime() - 6 * 60_000));
  const staleRes = await post(raw, stale);
  assert.is(staleRes.status, 401, staleRes.text);
  assert.is(staleRes.body.error.code, 'unauthorized');
  assert.match(staleRes.body.error.message, /5 minutes/);
  const future = signatureHeaders(secret, 'msg_4', raw, new Date(clock.now().getTime() + 6 * 60_000));
  assert.is((await post(raw, future)).status, 401);
  // Headers present but unsigned by webhook-signature (only the body signature): refused.
  const unsigned = { 'webhook-id': 'msg_5', 'webhook-timestamp': headers['webhook-timestamp'], ...svcSigned(raw) };
  assert.is((await post(raw, unsigned)).status, 401);
});

test('concurrent deliveries of one message apply it once', async () => {
  const raw = JSON.stringify({ external_id: 'race-1', title: 'Race' });
  const headers = signatureHeaders(secret, 'msg_race', raw, clock.now());
  const answers = await Promise.all([post(raw, headers), post(raw, headers), post(raw, headers)]);
  assert.equal(
    answers.map((a) => a.status),
    [202, 202, 202],
  );
  assert.is(answers.filter((a) => a.body.duplicate === false).length, 1, JSON.stringify(answers.map((a) => a.body)));
  const ids = new Set(answers.map((a) => a.body.delivery_id));
  assert.is(ids.size, 1, 'every answer names the one delivery');
});

test.run();
