/**
 * A worker killed mid-delivery: a real `svc worker` process is SIGKILLed while the receiver holds its
 * POST open. Its lock is released once its heartbeat is stale (issue 11), the delivery's lease has
 * expired, another worker sends it again, and it is recorded as succeeded on its second attempt with
 * the same webhook-id.
 */
import { createHmac } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { demoToken, eventually, startTestApp, type TestApp } from '../helpers/app.ts';
import { fresh } from '../helpers/errors.ts';
import type { Client } from '../helpers/http.ts';
import { startSvc, type SvcChild } from '../helpers/faults.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

const SCALE = { WEBHOOK_RETRY_SCALE: '0.001' }; // delivery lease 1 s
let t: TestApp;
let api: Client;
let receiver: Receiver;
const workers: SvcChild[] = [];
test.before(async () => {
  t = await startTestApp({ env: SCALE });
  api = t.platform.as(await demoToken(t));
  receiver = await startReceiver();
});
test.after(async () => {
  for (const w of workers) await w.kill();
  await receiver.close();
  await t.close();
});

async function worker(): Promise<SvcChild> {
  const w = await startSvc('worker', t.db.url, SCALE);
  workers.push(w);
  return w;
}

test('a worker killed mid-delivery: the delivery still arrives, once more, and is recorded', async () => {
  // The first POST of issue.ingested is held open (never answered); later ones are answered at once.
  receiver.respond = (req) =>
    req.body?.type === 'issue.ingested' && receiver.received.filter((r) => r.body?.type === 'issue.ingested').length === 1
      ? { status: 200, delayMs: 600_000 }
      : { status: 200 };
  const hook = await api.post('/v1/webhooks', { url: `${receiver.url}/crash`, event_types: ['issue.ingested'] });
  assert.is(hook.status, 201, hook.text);
  const victim = await worker();
  const ingested = await api.post('/v1/ingest/events', { external_id: 'crash-1', title: 'Crash probe', source: 'faults' }, fresh());
  assert.is(ingested.status, 202, ingested.text);
  await eventually(async () => (receiver.received.some((r) => r.body?.type === 'issue.ingested') ? true : undefined), 60_000, 'the first attempt');
  const during = (await t.app.pool.query('select status, attempts from webhook_deliveries where webhook_id = $1', [hook.body.id])).rows;
  assert.equal(during, [{ status: 'running', attempts: 1 }]);
  await victim.kill('SIGKILL');

  await worker();
  const arrivals = await eventually(
    async () => {
      const got = receiver.received.filter((r) => r.body?.type === 'issue.ingested');
      return got.length >= 2 ? got : undefined;
    },
    90_000,
    'the delivery after the crash',
  );
  assert.is(arrivals[1].headers['webhook-id'], arrivals[0].headers['webhook-id']);
  assert.is(arrivals[1].body.data.issue_id, ingested.body.issue_id);
  assert.is(arrivals[1].headers['x-svc-signature'], createHmac('sha256', hook.body.signing_secret).update(arrivals[1].raw).digest('hex'));
  const delivery = await eventually(
    async () => {
      const { rows } = await t.app.pool.query('select status, attempts, status_code from webhook_deliveries where webhook_id = $1', [hook.body.id]);
      return rows[0]?.status === 'succeeded' ? rows[0] : undefined;
    },
    30_000,
    'the delivery to be recorded',
  );
  assert.equal(delivery, { status: 'succeeded', attempts: 2, status_code: 200 });
  // The interrupted attempt left no attempt row (it never finished); the one that arrived did.
  const attempts = await t.app.pool.query(
    'select a.attempt, a.status_code from webhook_delivery_attempts a join webhook_deliveries d on d.id = a.delivery_id where d.webhook_id = $1',
    [hook.body.id],
  );
  assert.equal(attempts.rows, [{ attempt: 2, status_code: 200 }]);
});

test.run();
