import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { eventually, startTestApp, type TestApp } from '../../helpers/app.ts';
import type { Client, HttpResponse } from '../../helpers/http.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';

let t: TestApp;
let admin: Client;
let receiver: Receiver;
let source: http.Server;
let sourceUrl: string;
const sourceRequests: string[] = [];
/** The http_pull source: two pages, then an empty page that keeps the cursor; `extra` appears after p3. */
const extra: unknown[] = [];
const record = (n: number) => ({ external_id: `pull-${n}`, title: `Pulled incident ${n}`, narrative: 'Queue backed up', severity: 'p2' });

test.before(async () => {
  t = await startTestApp({ worker: { concurrency: 2 }, env: { WEBHOOK_RETRY_SCALE: '0.001' } });
  const exchange = await t.platform.post('/v1/auth/exchange', { subject_token: 'demo' });
  admin = t.platform.as(exchange.body.access_token);
  receiver = await startReceiver();
  source = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    sourceRequests.push(`${url.pathname}${url.search} auth=${req.headers.authorization ?? ''}`);
    const page = url.searchParams.get('after');
    const send = (body: unknown, status = 200) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/broken') return send({ error: 'down' }, 500);
    if (page === null) return send({ data: { items: [record(1), record(2), record(3)] }, next_cursor: 'p2', has_more: true });
    if (page === 'p2') return send({ data: { items: [record(4), { title: 'no external id' }, record(5)] }, next_cursor: 'p3', has_more: false });
    if (page === 'p3') return send({ data: { items: extra }, next_cursor: extra.length ? 'p4' : 'p3', has_more: false });
    return send({ data: { items: [] }, next_cursor: page, has_more: false });
  });
  await new Promise<void>((r) => source.listen(0, '127.0.0.1', r));
  sourceUrl = `http://127.0.0.1:${(source.address() as AddressInfo).port}`;
});
test.after(async () => {
  source.closeAllConnections();
  await new Promise((r) => source.close(r));
  await receiver.close();
  await t.close();
});

function assertError(res: HttpResponse, status: number, code: string) {
  assert.is(res.status, status, res.text);
  assert.is(res.body.error.code, code, res.text);
}

const sign = (secret: string, raw: string) => createHmac('sha256', secret).update(raw).digest('hex');
const inbound = (connectorId: string, raw: string, headers: Record<string, string>) =>
  t.platform.post(`/v1/webhooks/inbound/${connectorId}`, undefined, { raw, headers: { 'content-type': 'application/json', ...headers } });

async function pushConnector(name: string) {
  const connector = await admin.post('/v1/connectors', { name, kind: 'webhook' });
  assert.is(connector.status, 201, connector.text);
  const hook = await admin.post('/v1/webhooks', { url: `${receiver.url}/${name}`, connector_id: connector.body.id });
  assert.is(hook.status, 201, hook.text);
  return { connector: connector.body, hook: hook.body };
}

async function outboundTypes(predicate: string, params: unknown[]): Promise<string[]> {
  const { rows } = await t.app.pool.query(`select event_type from outbound_events where ${predicate} order by created_at, event_type`, params);
  return rows.map((r) => r.event_type);
}

test('connectors CRUD; http_pull config checked (SSRF guard, fields) and header values never shown', async () => {
  const created = await admin.post('/v1/connectors', {
    name: 'tickets',
    kind: 'http_pull',
    config: { url: `${sourceUrl}/feed`, headers: { authorization: 'Bearer s3cret' }, records_path: 'data.items' },
  });
  assert.is(created.status, 201, created.text);
  assert.equal(created.body.config, { url: `${sourceUrl}/feed`, headers: { authorization: '***' }, records_path: 'data.items' });
  // Issue 26: the header values (credentials) are sealed at rest like webhook secrets.
  const stored = (await t.app.pool.query('select config::text as c from connectors where id = $1', [created.body.id])).rows[0].c as string;
  assert.not.ok(stored.includes('s3cret'), stored);
  assert.match(stored, /"headers_sealed": "v1\./);
  assert.equal([created.body.kind, created.body.sync_cursor, created.body.last_sync_status, created.body.inbound_url], ['http_pull', null, null, null]);
  assert.is((await admin.get(`/v1/connectors/${created.body.id}`)).body.name, 'tickets');
  assert.ok((await admin.get('/v1/connectors')).body.data.some((c: { id: string }) => c.id === created.body.id));
  const renamed = await admin.patch(`/v1/connectors/${created.body.id}`, { name: 'tickets-2' });
  assert.is(renamed.body.name, 'tickets-2');

  for (const [body, field, message] of [
    [{ name: 'x', kind: 'ftp' }, 'kind', /must be one of webhook, http_pull/],
    [{ name: 'x', kind: 'http_pull', config: {} }, 'config.url', /is required/],
    [{ name: 'x', kind: 'http_pull', config: { url: 'http://169.254.169.254/latest' } }, 'config.url', /refused/],
    [{ name: 'x', kind: 'http_pull', config: { url: 'file:///etc/passwd' } }, 'config.url', /http or https/],
    [{ name: 'x', kind: 'http_pull', config: { url: `${sourceUrl}/`, cursor_param: 'a b' } }, 'config.cursor_param', /plain query parameter/],
    // Issue 26: header names and values a request could not carry are refused when saved (not at the first pull).
    [{ name: 'x', kind: 'http_pull', config: { url: `${sourceUrl}/`, headers: { 'bad header': 'x' } } }, 'config.headers', /HTTP header names/],
    [{ name: 'x', kind: 'http_pull', config: { url: `${sourceUrl}/`, headers: { authorization: 'x\r\nx-injected: 1' } } }, 'config.headers', /line breaks/],
    [{ name: 'x', kind: 'webhook', config: { secret: 'nope' } }, 'config', /must be empty/],
    [{ kind: 'webhook' }, 'name', /is required/],
  ] as Array<[Record<string, unknown>, string, RegExp]>) {
    const res = await admin.post('/v1/connectors', body);
    assertError(res, 400, 'validation_error');
    assert.match(res.body.error.details[field], message, `${JSON.stringify(body)}: ${res.text}`);
  }
  const push = await admin.post('/v1/connectors', { name: 'push', kind: 'webhook' });
  const wrongKind = await admin.post(`/v1/connectors/${push.body.id}/sync`);
  assertError(wrongKind, 400, 'validation_error');
  assert.match(wrongKind.body.error.details.kind, /only http_pull connectors sync/);
  const test1 = await admin.post(`/v1/connectors/${push.body.id}/test`);
  assert.equal(test1.body.ok, false);
  assert.is((await admin.delete(`/v1/connectors/${push.body.id}`)).status, 204);
  assertError(await admin.get(`/v1/connectors/${push.body.id}`), 404, 'not_found');
  assertError(await admin.post('/v1/connectors/nope/sync'), 404, 'not_found');
  await admin.delete(`/v1/connectors/${created.body.id}`);
});

test('inbound: raw-body HMAC in either header form, 202, ingested with the connector as source, events in order', async () => {
  const { connector, hook } = await pushConnector('alerts-push');
  const raw = JSON.stringify({ external_id: 'in-1', title: 'Inbound disk alert', narrative: 'Disk at 99%' });
  const res = await inbound(connector.id, raw, { 'x-svc-signature': sign(hook.signing_secret, raw) });
  assert.is(res.status, 202, res.text);
  assert.equal(Object.keys(res.body).sort(), ['accepted', 'connector_id', 'delivery_id', 'duplicate', 'issue_ids', 'received', 'rejected']);
  assert.equal([res.body.received, res.body.connector_id, res.body.accepted], [true, connector.id, 1]);
  const issue = (await t.app.pool.query('select source, external_id, title from issues where id = $1', [res.body.issue_ids[0]])).rows[0];
  assert.equal(issue, { source: 'alerts-push', external_id: 'in-1', title: 'Inbound disk alert' });
  const delivery = (await t.app.pool.query('select status, connector_id from inbound_deliveries where id = $1', [res.body.delivery_id])).rows[0];
  assert.equal(delivery, { status: 'succeeded', connector_id: connector.id });
  // connector.inbound.received, then issue.ingested (from the ingest job), both delivered to the webhook.
  const types = await eventually(async () => {
    const list = await outboundTypes("payload->>'connector_id' = $1 or payload->>'issue_id' = $2", [connector.id, res.body.issue_ids[0]]);
    return list.includes('issue.ingested') ? list : undefined;
  });
  assert.equal(types, ['connector.inbound.received', 'issue.ingested']);
  await eventually(async () =>
    receiver.received.some((r) => r.body?.type === 'issue.ingested' && r.body.data.issue_id === res.body.issue_ids[0]) ? true : undefined,
  );

  // GitHub's header form, a batch with one bad record.
  const batch = JSON.stringify({ records: [{ external_id: 'in-2', title: 'Two' }, { title: 'no id' }] });
  const hub = await inbound(connector.id, batch, { 'x-hub-signature-256': `sha256=${sign(hook.signing_secret, batch)}` });
  assert.is(hub.status, 202, hub.text);
  assert.is(hub.body.accepted, 1);
  assert.equal(hub.body.rejected, [{ index: 1, errors: [{ field: 'external_id', message: 'is required' }] }]);
});

test('inbound fails closed: missing, wrong or old signatures, no secret, unknown connector are 401; bytes, not JSON, are signed', async () => {
  const { connector, hook } = await pushConnector('strict-push');
  const raw = JSON.stringify({ external_id: 'in-9', title: 'Nine' });
  assertError(await inbound(connector.id, raw, {}), 401, 'unauthorized');
  assertError(await inbound(connector.id, raw, { 'x-svc-signature': sign('whsec_wrong', raw) }), 401, 'unauthorized');
  assertError(await inbound(connector.id, raw, { 'x-hub-signature-256': sign(hook.signing_secret, raw) }), 401, 'unauthorized'); // no sha256= prefix
  // The same JSON re-serialised with other whitespace is other bytes: refused.
  const spaced = JSON.stringify(JSON.parse(raw), null, 2);
  assertError(await inbound(connector.id, spaced, { 'x-svc-signature': sign(hook.signing_secret, raw) }), 401, 'unauthorized');
  const bare = await admin.post('/v1/connectors', { name: 'no-secret', kind: 'webhook' });
  assertError(await inbound(bare.body.id, raw, { 'x-svc-signature': sign(hook.signing_secret, raw) }), 401, 'unauthorized');
  assertError(await inbound('00000000-0000-4000-8000-000000000000', raw, { 'x-svc-signature': sign(hook.signing_secret, raw) }), 401, 'unauthorized');

  // Rotation: the old secret stops working at once for inbound verification.
  const rotated = await admin.post(`/v1/webhooks/${hook.id}/rotate`);
  assertError(await inbound(connector.id, raw, { 'x-svc-signature': sign(hook.signing_secret, raw) }), 401, 'unauthorized');
  assert.is((await inbound(connector.id, raw, { 'x-svc-signature': sign(rotated.body.signing_secret, raw) })).status, 202);
  assert.is((await t.app.pool.query("select count(*)::int as n from issues where external_id = 'in-9'")).rows[0].n, 1);
});

test('inbound: a malformed payload with a valid signature is a recorded failed delivery and a 400, never a 500', async () => {
  const { connector, hook } = await pushConnector('messy-push');
  for (const [raw, field] of [
    ['{"external_id": "x", "title": ', 'body'],
    ['[1, 2]', 'body'],
    [JSON.stringify({ external_id: 'x' }), 'title'],
    [JSON.stringify({ records: [] }), 'records'],
  ]) {
    const res = await inbound(connector.id, raw, { 'x-svc-signature': sign(hook.signing_secret, raw) });
    assertError(res, 400, 'validation_error');
    assert.ok(res.body.error.details[field], res.text);
  }
  const { rows } = await t.app.pool.query('select status, payload_preview from inbound_deliveries where connector_id = $1 order by received_at', [
    connector.id,
  ]);
  assert.equal(
    rows.map((r) => r.status),
    ['failed', 'failed', 'failed', 'failed'],
  );
  assert.is(rows[0].payload_preview, '{"external_id": "x", "title": ');
});

test('http_pull: test, then a sync job over two pages with a stored cursor; a re-run ingests nothing twice; events', async () => {
  const created = await admin.post('/v1/connectors', {
    name: 'jira-pull',
    kind: 'http_pull',
    config: { url: `${sourceUrl}/feed`, headers: { authorization: 'Bearer s3cret' }, records_path: 'data.items', cursor_param: 'after' },
  });
  const id = created.body.id;
  const tested = await admin.post(`/v1/connectors/${id}/test`);
  assert.equal(tested.body, { ok: true, detail: 'Reached the source: 3 records on the page a sync would read next' });

  const sync = await admin.post(`/v1/connectors/${id}/sync`);
  assert.is(sync.status, 202, sync.text);
  const job = await eventually(async () => {
    const res = await admin.get(`/v1/jobs/${sync.body.job_id}`);
    return ['succeeded', 'failed'].includes(res.body.status) ? res.body : undefined;
  }, 20_000);
  assert.is(job.status, 'succeeded', JSON.stringify(job));
  assert.equal(job.result, { connector_id: id, pages: 2, records: 5, rejected: 1, cursor: 'p3' });
  assert.ok(job.steps_completed.includes('page_2'), JSON.stringify(job));
  assert.ok(sourceRequests.includes('/feed?after=p2 auth=Bearer s3cret'), sourceRequests.join('\n'));
  const issues = await t.app.pool.query("select external_id, source, severity from issues where source = 'jira-pull' order by external_id");
  assert.equal(
    issues.rows.map((r) => r.external_id),
    ['pull-1', 'pull-2', 'pull-3', 'pull-4', 'pull-5'],
  );
  assert.is(issues.rows[0].severity, 'high');
  const after = (await admin.get(`/v1/connectors/${id}`)).body;
  assert.equal([after.sync_cursor, after.last_sync_status], ['p3', 'succeeded']);

  // Re-run: resumes at p3, which is empty: no issue event at all.
  const eventsBefore = (await t.app.pool.query("select count(*)::int as n from events where aggregate_type = 'issue'")).rows[0].n;
  const rerun = await admin.post(`/v1/connectors/${id}/sync`);
  const second = await eventually(async () => {
    const res = await admin.get(`/v1/jobs/${rerun.body.job_id}`);
    return res.body.status === 'succeeded' ? res.body : undefined;
  }, 20_000);
  assert.equal(second.result, { connector_id: id, pages: 1, records: 0, rejected: 0, cursor: 'p3' });
  assert.is((await t.app.pool.query("select count(*)::int as n from events where aggregate_type = 'issue'")).rows[0].n, eventsBefore);

  // New records after the cursor: only they are ingested.
  extra.push(record(6));
  const third = await admin.post(`/v1/connectors/${id}/sync`);
  await eventually(async () => ((await admin.get(`/v1/jobs/${third.body.job_id}`)).body.status === 'succeeded' ? true : undefined), 20_000);
  assert.is((await t.app.pool.query("select count(*)::int as n from issues where source = 'jira-pull'")).rows[0].n, 6);
  assert.is((await t.app.pool.query("select count(*)::int as n from events where aggregate_type = 'issue' and event_type = 'issue.reingested'")).rows[0].n, 0);

  const types = await outboundTypes("payload->>'connector_id' = $1", [id]);
  assert.equal(types, ['connector.sync.succeeded', 'connector.sync.succeeded', 'connector.sync.succeeded']);
});

test('http_pull: a failing source fails the job with connector.sync.failed', async () => {
  const created = await admin.post('/v1/connectors', { name: 'broken-pull', kind: 'http_pull', config: { url: `${sourceUrl}/broken` } });
  assert.equal((await admin.post(`/v1/connectors/${created.body.id}/test`)).body.ok, false);
  const sync = await admin.post(`/v1/connectors/${created.body.id}/sync`);
  const job = await eventually(async () => {
    const res = await admin.get(`/v1/jobs/${sync.body.job_id}`);
    return res.body.status === 'failed' ? res.body : undefined;
  }, 20_000);
  assert.match(JSON.stringify(job), /HTTP 500/);
  const failed = (
    await t.app.pool.query("select payload from outbound_events where event_type = 'connector.sync.failed' and payload->>'connector_id' = $1", [
      created.body.id,
    ])
  ).rows;
  assert.is(failed.length, 1);
  assert.match(failed[0].payload.error, /HTTP 500/);
  assert.equal((await admin.get(`/v1/connectors/${created.body.id}`)).body.last_sync_status, 'failed');
});

test.run();
