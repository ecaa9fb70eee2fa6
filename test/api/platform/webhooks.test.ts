import { createHmac } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Webhook } from 'standardwebhooks';
import { eventually, startTestApp, type TestApp } from '../../helpers/app.ts';
import type { Client, HttpResponse } from '../../helpers/http.ts';
import { startReceiver, type ReceivedRequest, type Receiver } from '../../helpers/receiver.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let t: TestApp;
let admin: Client;
let receiver: Receiver;
test.before(async () => {
  // The retry schedule at 1/1000: 5 ms, 300 ms, 1.8 s, …
  t = await startTestApp({ worker: { concurrency: 4 }, env: { WEBHOOK_RETRY_SCALE: '0.001' } });
  const exchange = await t.platform.post('/v1/auth/exchange', { subject_token: 'demo' });
  admin = t.platform.as(exchange.body.access_token);
  receiver = await startReceiver();
});
test.after(async () => {
  await receiver.close();
  await t.close();
});

function assertError(res: HttpResponse, status: number, code: string) {
  assert.is(res.status, status, res.text);
  assert.is(res.body.error.code, code, res.text);
  assert.is(res.body.error.trace_id, res.headers.get('x-request-id'));
}

/** Verifies a received delivery as a receiver would: an independent HMAC and the standardwebhooks package. */
function assertSigned(got: ReceivedRequest, secret: string) {
  assert.is(got.headers['x-svc-signature'], createHmac('sha256', secret).update(got.raw).digest('hex'));
  const verified = new Webhook(secret).verify(got.raw.toString(), got.headers as Record<string, string>);
  assert.equal(verified, JSON.parse(got.raw.toString()));
}

const arrivals = (path: string, type?: string) => receiver.received.filter((r) => r.path === path && (!type || r.body?.type === type));
const waitFor = (path: string, type: string, count = 1, timeoutMs = 10_000) =>
  eventually(async () => (arrivals(path, type).length >= count ? arrivals(path, type) : undefined), timeoutMs, `${count} ${type} at ${path}`);

async function createWebhook(path: string, extra: Record<string, unknown> = {}) {
  const res = await admin.post('/v1/webhooks', { url: `${receiver.url}${path}`, ...extra });
  assert.is(res.status, 201, res.text);
  return res.body as { id: string; signing_secret: string; url: string };
}

let seq = 0;
async function ingestOne(): Promise<string> {
  const res = await admin.post(
    '/v1/ingest/events',
    { external_id: `ext-${++seq}`, title: `Disk full ${seq}`, source: 'pager', narrative: 'The disk filled up' },
    { headers: { 'idempotency-key': `k-${seq}-${Date.now()}` } },
  );
  assert.is(res.status, 202, res.text);
  return res.body.issue_id;
}

test('create shows the secret once, stores it sealed; list, get, patch, delete; scopes', async () => {
  const created = await admin.post('/v1/webhooks', { url: `${receiver.url}/crud`, event_types: ['issue.ingested', 'issue.ingested'], description: 'ops' });
  assert.is(created.status, 201, created.text);
  assert.equal(Object.keys(created.body).sort(), [
    'connector_id',
    'created_at',
    'description',
    'disabled_reason',
    'enabled',
    'event_types',
    'id',
    'signing_secret',
    'url',
  ]);
  assert.match(created.body.id, UUID);
  assert.match(created.body.signing_secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  assert.equal([created.body.event_types, created.body.enabled, created.body.description, created.body.connector_id], [['issue.ingested'], true, 'ops', null]);
  assert.match(created.body.created_at, ISO);
  const stored = await t.app.pool.query('select secret_ciphertext from webhooks where id = $1', [created.body.id]);
  assert.not.ok(stored.rows[0].secret_ciphertext.includes(created.body.signing_secret.slice(6, 30)));
  assert.match(stored.rows[0].secret_ciphertext, /^v1\./);

  const listed = await admin.get('/v1/webhooks?limit=100');
  assert.is(listed.status, 200);
  const item = listed.body.data.find((w: { id: string }) => w.id === created.body.id);
  assert.ok(item);
  assert.is(item.signing_secret, undefined);
  assert.is((await admin.get(`/v1/webhooks/${created.body.id}`)).body.signing_secret, undefined);

  const patched = await admin.patch(`/v1/webhooks/${created.body.id}`, { event_types: [], enabled: false, description: 'all events' });
  assert.is(patched.status, 200, patched.text);
  assert.equal(
    [patched.body.event_types, patched.body.enabled, patched.body.description, patched.body.disabled_reason],
    [[], false, 'all events', 'disabled by a user'],
  );

  // webhooks:read may read, not write.
  const account = await admin.post('/v1/service-accounts', { name: 'hooks-reader', scopes: ['webhooks:read'] });
  const token = await admin.post(`/v1/service-accounts/${account.body.id}/tokens`, { name: 'ci', expires_at: new Date(Date.now() + 86400_000).toISOString() });
  const reader = t.platform.as(token.body.token);
  assert.is((await reader.get('/v1/webhooks')).status, 200);
  assert.is((await reader.get(`/v1/webhooks/${created.body.id}/deliveries`)).status, 200);
  assertError(await reader.post('/v1/webhooks', { url: `${receiver.url}/x` }), 403, 'forbidden');
  assertError(await reader.post(`/v1/webhooks/${created.body.id}/rotate`), 403, 'forbidden');
  assertError(await reader.delete(`/v1/webhooks/${created.body.id}`), 403, 'forbidden');

  assert.is((await admin.delete(`/v1/webhooks/${created.body.id}`)).status, 204);
  assertError(await admin.get(`/v1/webhooks/${created.body.id}`), 404, 'not_found');
  assertError(await admin.delete(`/v1/webhooks/${created.body.id}`), 404, 'not_found');
});

test('bad input: non-http and refused URLs, unknown event types, a connector of the wrong kind', async () => {
  const cases: Array<[Record<string, unknown>, string, RegExp]> = [
    [{ url: 'ftp://example.com/hook' }, 'url', /http or https/],
    [{ url: 'not a url' }, 'url', /absolute http or https URL/],
    [{ url: 'http://10.0.0.7/hook' }, 'url', /refused: 10\.0\.0\.7 is a private/],
    [{ url: 'http://169.254.169.254/latest/meta-data' }, 'url', /refused: .*link-local/],
    [{ url: 'http://[fd00::1]/' }, 'url', /refused/],
    [{ url: `${receiver.url}/x`, event_types: ['issue.ingested', 'issue.exploded'] }, 'event_types.1', /is not an event type/],
    [{}, 'url', /is required/],
  ];
  for (const [body, field, message] of cases) {
    const res = await admin.post('/v1/webhooks', body);
    assertError(res, 400, 'validation_error');
    assert.match(res.body.error.details[field], message, `${JSON.stringify(body)}: ${res.text}`);
  }
  const pull = await admin.post('/v1/connectors', { name: 'pull', kind: 'http_pull', config: { url: `${receiver.url}/feed` } });
  const wrongKind = await admin.post('/v1/webhooks', { url: `${receiver.url}/x`, connector_id: pull.body.id });
  assertError(wrongKind, 400, 'validation_error');
  assert.match(wrongKind.body.error.details.connector_id, /kind http_pull/);
  const patch = await admin.patch('/v1/webhooks/00000000-0000-4000-8000-000000000000', { url: 'http://192.168.1.1/' });
  assertError(patch, 400, 'validation_error');
  assert.is((await t.app.pool.query("select count(*)::int as n from webhooks where url like '%10.0.0.7%'")).rows[0].n, 0);
});

test('fan-out: ingest becomes a signed issue.ingested delivery in the same transaction; deliveries listed newest first', async () => {
  const hook = await createWebhook('/all');
  const other = await createWebhook('/batch-only', { event_types: ['issue.batch_ingested'] });
  // The new webhook hears of itself: webhook.created, signed.
  const [createdEvent] = await waitFor('/all', 'webhook.created');
  assertSigned(createdEvent, hook.signing_secret);
  assert.is(createdEvent.body.data.webhook_id, hook.id);

  const issueId = await ingestOne();
  const [got] = await waitFor('/all', 'issue.ingested');
  assertSigned(got, hook.signing_secret);
  assert.equal(Object.keys(got.body).sort(), ['created_at', 'data', 'id', 'type', 'workspace_id']);
  assert.is(got.body.workspace_id, t.demo.workspaceId);
  assert.equal(got.body.data, { issue_id: issueId, created: true });
  assert.match(got.body.created_at, ISO);
  assert.is(got.headers['webhook-id'], got.body.id);
  assert.is(got.headers['content-type'], 'application/json');
  // The event and its deliveries were written together.
  const { rows } = await t.app.pool.query('select event_id, webhook_id from webhook_deliveries where event_id = $1', [got.body.id]);
  assert.equal(
    rows.map((r) => r.webhook_id),
    [hook.id],
  );
  assert.is(arrivals('/batch-only', 'issue.ingested').length, 0);

  const batch = await admin.post(
    '/v1/ingest/batch',
    {
      records: [
        { external_id: 'b1', title: 'B1', source: 'pager' },
        { external_id: 'b2', title: 'B2', source: 'pager' },
      ],
    },
    { headers: { 'idempotency-key': `batch-${Date.now()}` } },
  );
  assert.is(batch.status, 202);
  const [batchEvent] = await waitFor('/batch-only', 'issue.batch_ingested');
  assertSigned(batchEvent, other.signing_secret);
  assert.equal(batchEvent.body.data.issue_ids, batch.body.issue_ids);
  await waitFor('/all', 'issue.batch_ingested');

  // Delivery records exactly per spec (plus status fields), newest first, paginated.
  const first = await admin.get(`/v1/webhooks/${hook.id}/deliveries?limit=2`);
  assert.is(first.status, 200, first.text);
  assert.is(first.body.page.total, 4); // webhook.created of both (this one hears every event), issue.ingested, issue.batch_ingested
  assert.is(first.body.page.has_more, true);
  const [newest] = first.body.data;
  assert.is(newest.event_type, 'issue.batch_ingested');
  assert.is(newest.status, 'succeeded');
  assert.is(newest.status_code, 200);
  assert.match(newest.delivered_at, ISO);
  assert.ok(Number.isInteger(newest.duration_ms) && newest.duration_ms >= 0);
  assert.is(newest.attempts, 1);
  const sentBody = arrivals('/all', 'issue.batch_ingested')[0].raw;
  assert.is(newest.payload_preview, sentBody.subarray(0, 200).toString());
  assert.is(Buffer.byteLength(newest.payload_preview), 200);
  const second = await admin.get(`/v1/webhooks/${hook.id}/deliveries?limit=2&cursor=${encodeURIComponent(first.body.page.next_cursor)}`);
  assert.equal(
    second.body.data.map((d: { event_type: string; status: string }) => [d.event_type, d.status]),
    [
      ['webhook.created', 'succeeded'],
      ['webhook.created', 'succeeded'],
    ],
  );
  assert.equal(first.body.data[1].event_type, 'issue.ingested');
  assertError(await admin.get('/v1/webhooks/00000000-0000-4000-8000-000000000000/deliveries'), 404, 'not_found');

  await admin.delete(`/v1/webhooks/${hook.id}`);
  await admin.delete(`/v1/webhooks/${other.id}`);
});

test('no subscriber: an ingest adds no delivery and no delivery job', async () => {
  const before = await t.app.pool.query('select count(*)::int as n from webhook_deliveries');
  await ingestOne();
  await eventually(async () =>
    (
      await t.app.pool.query(
        "select 1 from outbound_events where event_type = 'issue.ingested' and payload->>'issue_id' is not null order by created_at desc limit 1",
      )
    ).rowCount
      ? true
      : undefined,
  );
  await new Promise((r) => setTimeout(r, 300));
  const after = await t.app.pool.query('select count(*)::int as n from webhook_deliveries');
  const extra = await t.app.pool.query('select d.*, w.url from webhook_deliveries d join webhooks w on w.id = d.webhook_id');
  assert.is(after.rows[0].n, before.rows[0].n, JSON.stringify(extra.rows));
  const jobs = await t.app.pool.query("select count(*)::int as n from graphile_worker.jobs where task_identifier = 'webhook__deliver'");
  assert.is(jobs.rows[0].n, 0);
});

test('a receiver that fails, then recovers: retried on the schedule with the same id; Retry-After honoured', async () => {
  let calls = 0;
  receiver.respond = (req) => {
    if (req.path === '/flaky' && req.body?.type === 'issue.ingested') return ++calls <= 2 ? { status: 500, body: 'boom' } : { status: 204 };
    if (req.path === '/later' && req.body?.type === 'issue.ingested')
      return arrivals('/later', 'issue.ingested').length === 1 ? { status: 503, headers: { 'retry-after': '1' } } : { status: 200 };
    return { status: 200 };
  };
  const flaky = await createWebhook('/flaky', { event_types: ['issue.ingested'] });
  const later = await createWebhook('/later', { event_types: ['issue.ingested'] });
  await ingestOne();
  const got = await waitFor('/flaky', 'issue.ingested', 3);
  assert.equal(new Set(got.map((g) => g.headers['webhook-id'])).size, 1);
  assert.equal(new Set(got.map((g) => g.raw.toString())).size, 1);
  for (const g of got) assertSigned(g, flaky.signing_secret);
  // 5 ms, then 300 ms (±20%) at this scale.
  assert.ok(got[2].arrivedAt - got[1].arrivedAt >= 200, `second retry after ${got[2].arrivedAt - got[1].arrivedAt} ms`);
  const deliveries = await eventually(async () => {
    const res = await admin.get(`/v1/webhooks/${flaky.id}/deliveries`);
    return res.body.data[0]?.status === 'succeeded' ? res.body.data : undefined;
  });
  assert.equal([deliveries[0].attempts, deliveries[0].status_code], [3, 204]);
  const attempts = await t.app.pool.query('select attempt, status_code, error from webhook_delivery_attempts where delivery_id = $1 order by attempt', [
    deliveries[0].id,
  ]);
  assert.equal(attempts.rows, [
    { attempt: 1, status_code: 500, error: 'HTTP 500' },
    { attempt: 2, status_code: 500, error: 'HTTP 500' },
    { attempt: 3, status_code: 204, error: null },
  ]);
  assert.is((await t.app.pool.query('select failing_since from webhooks where id = $1', [flaky.id])).rows[0].failing_since, null);

  const waited = await waitFor('/later', 'issue.ingested', 2);
  assert.ok(waited[1].arrivedAt - waited[0].arrivedAt >= 900, `Retry-After: 1 gave ${waited[1].arrivedAt - waited[0].arrivedAt} ms`);
  receiver.respond = () => ({ status: 200 });
  await admin.delete(`/v1/webhooks/${flaky.id}`);
  await admin.delete(`/v1/webhooks/${later.id}`);
});

test('410 Gone disables the endpoint with a webhook.disabled event; re-enabling resumes queued deliveries', async () => {
  const watcher = await createWebhook('/watcher', { event_types: ['webhook.disabled'] });
  let gone = true;
  receiver.respond = (req) => (req.path === '/gone' && gone ? { status: 410 } : { status: 200 });
  const hook = await createWebhook('/gone', { event_types: ['issue.ingested'] });
  await ingestOne();
  const [disabled] = await waitFor('/watcher', 'webhook.disabled');
  assertSigned(disabled, watcher.signing_secret);
  assert.is(disabled.body.data.webhook_id, hook.id);
  assert.match(disabled.body.data.reason, /410/);
  const row = (await admin.get(`/v1/webhooks/${hook.id}`)).body;
  assert.equal([row.enabled, row.disabled_reason], [false, 'the endpoint answered 410 Gone']);
  const [delivery] = (await admin.get(`/v1/webhooks/${hook.id}/deliveries`)).body.data;
  assert.equal([delivery.status, delivery.status_code, delivery.attempts], ['failed', 410, 1]);

  // Disabled: new events do not reach it.
  await ingestOne();
  await new Promise((r) => setTimeout(r, 300));
  assert.is(arrivals('/gone', 'issue.ingested').length, 1);

  // Manual redelivery of the failed one after the endpoint is back and enabled.
  gone = false;
  assertError(await admin.post(`/v1/webhooks/${hook.id}/deliveries/${delivery.id}/redeliver`), 409, 'conflict');
  assert.is((await admin.patch(`/v1/webhooks/${hook.id}`, { enabled: true })).body.enabled, true);
  const redelivered = await admin.post(`/v1/webhooks/${hook.id}/deliveries/${delivery.id}/redeliver`);
  assert.is(redelivered.status, 202, redelivered.text);
  assert.equal(redelivered.body, { id: delivery.id, status: 'queued' });
  const again = await waitFor('/gone', 'issue.ingested', 2);
  assert.is(again[1].headers['webhook-id'], again[0].headers['webhook-id']);
  const after = await eventually(async () => {
    const d = (await admin.get(`/v1/webhooks/${hook.id}/deliveries`)).body.data.find((x: { id: string }) => x.id === delivery.id);
    return d.status === 'succeeded' ? d : undefined;
  });
  assert.equal([after.attempts, after.status_code], [2, 200]);
  assertError(await admin.post(`/v1/webhooks/${hook.id}/deliveries/00000000-0000-4000-8000-000000000000/redeliver`), 404, 'not_found');
  receiver.respond = () => ({ status: 200 });
  await admin.delete(`/v1/webhooks/${hook.id}`);
  await admin.delete(`/v1/webhooks/${watcher.id}`);
});

test('an endpoint failing for days is disabled with an event', async () => {
  const watcher = await createWebhook('/watcher2', { event_types: ['webhook.disabled'] });
  receiver.respond = (req) => (req.path === '/down' ? { status: 500 } : { status: 200 });
  const hook = await createWebhook('/down', { event_types: ['issue.ingested'] });
  // Its failing streak began 6 days ago (the limit is 5 days, at this scale 7.2 minutes).
  await t.app.pool.query("update webhooks set failing_since = now() - interval '6 days' where id = $1", [hook.id]);
  await ingestOne();
  const [event] = await waitFor('/watcher2', 'webhook.disabled');
  assert.is(event.body.data.webhook_id, hook.id);
  assert.match(event.body.data.reason, /every delivery has failed since/);
  assert.is((await admin.get(`/v1/webhooks/${hook.id}`)).body.enabled, false);
  receiver.respond = () => ({ status: 200 });
  await admin.delete(`/v1/webhooks/${hook.id}`);
  await admin.delete(`/v1/webhooks/${watcher.id}`);
});

test('rotate: a new secret at once (the old one no longer signs) and a webhook.secret.rotated event', async () => {
  const hook = await createWebhook('/rotating');
  await waitFor('/rotating', 'webhook.created');
  const rotated = await admin.post(`/v1/webhooks/${hook.id}/rotate`);
  assert.is(rotated.status, 200, rotated.text);
  assert.equal(Object.keys(rotated.body).sort(), ['rotated_at', 'signing_secret']);
  assert.match(rotated.body.rotated_at, ISO);
  assert.is.not(rotated.body.signing_secret, hook.signing_secret);
  const [event] = await waitFor('/rotating', 'webhook.secret.rotated');
  assertSigned(event, rotated.body.signing_secret);
  assert.is.not(event.headers['x-svc-signature'], createHmac('sha256', hook.signing_secret).update(event.raw).digest('hex'));
  assert.throws(() => new Webhook(hook.signing_secret).verify(event.raw.toString(), event.headers as Record<string, string>));
  assertError(await admin.post('/v1/webhooks/00000000-0000-4000-8000-000000000000/rotate'), 404, 'not_found');
  await admin.delete(`/v1/webhooks/${hook.id}`);
});

test.run();
