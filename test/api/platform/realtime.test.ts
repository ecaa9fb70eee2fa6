/**
 * The realtime WebSocket with real clients: two `svc api` processes on one database plus the test
 * app's own server, two workspaces. What one process (or the worker) commits reaches the clients of
 * every process, never those of another workspace; resume from a sequence; bad tokens close 1008;
 * dead and slow clients are dropped.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ChildProcess } from 'node:child_process';
import { WebSocket } from 'ws';
import { realtimeMessageSchema } from '../../../api/platform/realtime/routes.ts';
import { startRealtime, type RealtimeServer } from '../../../api/platform/realtime/server.ts';
import { demoToken, eventually, startTestApp, type TestApp } from '../../helpers/app.ts';
import { fresh } from '../../helpers/errors.ts';
import { client, type Client } from '../../helpers/http.ts';
import { serviceAccountToken } from '../../helpers/identities.ts';
import { addMember, addWorkspace, type TestMember } from '../../helpers/members.ts';
import { logLines, spawnSvc, svcEnv } from '../../../fixtures/svcProcess.ts';

interface Received {
  type: string;
  workspace_id: string;
  sequence: number;
  data: Record<string, any>;
}

interface TestSocket {
  ws: WebSocket;
  messages: Received[];
  opened: Promise<void>;
  closed: Promise<{ code: number; reason: string }>;
  waitFor(predicate: (m: Received) => boolean, what?: string): Promise<Received>;
}

/** Every message any client of this file received, checked against the documented schema at the end. */
const everything: Received[] = [];

function connect(base: string, options: { token?: string; protocol?: boolean; after?: number; autoPong?: boolean } = {}): TestSocket {
  const url = `${base.replace(/^http/, 'ws')}/v1/realtime${options.after !== undefined ? `?after_sequence=${options.after}` : ''}`;
  const ws = options.protocol
    ? new WebSocket(url, ['svc.v1', `bearer.${options.token}`], { autoPong: options.autoPong ?? true })
    : new WebSocket(url, { headers: options.token ? { authorization: `Bearer ${options.token}` } : {}, autoPong: options.autoPong ?? true });
  const messages: Received[] = [];
  ws.on('message', (data) => {
    const message = JSON.parse(data.toString());
    messages.push(message);
    everything.push(message);
  });
  ws.on('error', () => {});
  return {
    ws,
    messages,
    opened: new Promise((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    }),
    closed: new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() }))),
    waitFor: (predicate, what = 'message') => eventually(async () => messages.find(predicate), 15_000, what),
  };
}

interface ApiProcess {
  child: ChildProcess;
  url: string;
}

async function startApi(databaseUrl: string): Promise<ApiProcess> {
  const child = spawnSvc(
    ['api'],
    svcEnv({ DATABASE_URL: databaseUrl, PLATFORM_PORT: '0', PRODUCT_PORT: '0', METRICS_PORT: '0', LOG_LEVEL: 'info', NODE_ENV: 'test' }),
  );
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const listening = await eventually(
    async () => {
      if (child.exitCode !== null) throw new Error(`svc api exited:\n${stderr}\n${stdout}`);
      return stdout.includes('"listening"') ? logLines(stdout).find((l) => l.msg === 'listening') : undefined;
    },
    60_000,
    'svc api to listen',
  );
  return { child, url: listening.platform as string };
}

let t: TestApp;
let owner: Client;
let ownerToken: string;
let apis: ApiProcess[] = [];
let local: RealtimeServer;
let other: TestMember;
let otherWorkspace: string;

test.before(async () => {
  t = await startTestApp({ worker: true });
  ownerToken = await demoToken(t);
  owner = t.platform.as(ownerToken);
  apis = await Promise.all([startApi(t.db.url), startApi(t.db.url)]);
  otherWorkspace = await addWorkspace(t.app, 'realtime-other');
  other = await addMember(t.app, otherWorkspace, 'owner@realtime-other.example', 'owner');
  // The test app's own server streams too, with short ping and buffer limits.
  local = await startRealtime(t.app, t.platformServer!.server, { pingIntervalMs: 300, maxBufferedBytes: 64 * 1024 });
});
test.after(async () => {
  await local?.close();
  for (const api of apis) {
    api.child.kill('SIGTERM');
    await new Promise((r) => api.child.once('close', r));
  }
  await t?.close();
});

test('a bad, missing or under-scoped token completes the handshake and closes with 1008', async () => {
  for (const socket of [
    connect(apis[0].url, { token: 'not-a-token' }),
    connect(apis[0].url, { token: 'not-a-token', protocol: true }),
    connect(apis[1].url),
    connect(apis[1].url, { token: await serviceAccountToken(owner, ['issues:read']) }),
    connect(apis[1].url, { token: ownerToken, after: -1 as number }),
  ]) {
    const closed = await socket.closed;
    assert.is(closed.code, 1008, closed.reason);
  }
  const refused = connect(`${apis[0].url}/nope`, { token: ownerToken });
  await refused.opened.then(
    () => assert.unreachable('upgraded on an unknown path'),
    (err: Error) => assert.is(err.message, 'upgrade refused: 404'),
  );
});

test('GET /v1/realtime is in /openapi.json; without the upgrade it answers 426 in the envelope, after auth and validation', async () => {
  const doc = (await client(apis[0].url).get('/openapi.json')).body;
  const op = doc.paths['/v1/realtime'].get;
  assert.is(op['x-required-scope'], 'events:read');
  assert.ok(op.responses['101'].content['application/json'].schema, 'the message schema');
  assert.equal(
    op.parameters.filter((p: any) => p.in === 'query').map((p: any) => p.name),
    ['after_sequence'],
  );
  for (const base of [apis[0].url, t.platformServer!.url]) {
    const plain = await client(base, { token: ownerToken }).get('/v1/realtime');
    assert.is(plain.status, 426, plain.text);
    assert.is(plain.body.error.code, 'bad_request');
    assert.is(plain.body.error.trace_id, plain.headers.get('x-request-id'));
    assert.is(plain.headers.get('upgrade'), 'websocket');
  }
  assert.is((await client(apis[0].url).get('/v1/realtime')).body.error.code, 'unauthorized');
  const bad = await client(apis[0].url, { token: ownerToken }).get('/v1/realtime?after_sequence=-1');
  assert.is(bad.status, 400);
  assert.equal(bad.body.error.details, { after_sequence: 'must be at least 0' });
});

test('commits of any process reach the clients of every process in the workspace, and only there', async () => {
  const a1 = connect(apis[0].url, { token: ownerToken });
  const a2 = connect(apis[1].url, { token: ownerToken, protocol: true });
  const b1 = connect(apis[0].url, { token: other.token });
  await Promise.all([a1.opened, a2.opened, b1.opened]);
  assert.is(a2.ws.protocol, 'svc.v1', 'the bearer subprotocol is not echoed when another is offered');
  await new Promise((r) => setTimeout(r, 300));

  // Written through the test app's server: a third process as far as the two APIs are concerned.
  const created = await owner.post('/v1/issues', { title: 'Realtime one', severity: 'low' });
  assert.is(created.status, 201, created.text);
  const id = created.body.id;
  const first = await a1.waitFor((m) => m.type === 'issue.created' && m.data.id === id, 'issue.created on process 1');
  const second = await a2.waitFor((m) => m.type === 'issue.created' && m.data.id === id, 'issue.created on process 2');
  assert.equal(first, second);
  assert.is(first.workspace_id, t.demo.workspaceId);
  assert.is(first.data.title, 'Realtime one');
  assert.type(first.sequence, 'number');

  // An update through process 2's REST surface reaches process 1's client.
  const patched = await client(apis[1].url, { token: ownerToken }).patch(`/v1/issues/${id}`, { status: 'in_progress' });
  assert.is(patched.status, 200, patched.text);
  const updated = await a1.waitFor((m) => m.type === 'issue.updated' && m.data.id === id);
  assert.ok(updated.sequence > first.sequence);
  assert.is(updated.data.to, 'in_progress');

  // The other workspace's commits reach its client only.
  const theirs = await t.platform.post('/v1/issues', { title: 'Other workspace', severity: 'low' }, { token: other.token });
  assert.is(theirs.status, 201, theirs.text);
  await b1.waitFor((m) => m.type === 'issue.created' && m.data.id === theirs.body.id);
  await new Promise((r) => setTimeout(r, 500));
  assert.ok(
    b1.messages.every((m) => m.workspace_id === otherWorkspace),
    'no message of workspace A in B',
  );
  assert.ok(
    [...a1.messages, ...a2.messages].every((m) => m.workspace_id === t.demo.workspaceId),
    'no message of workspace B in A',
  );
  assert.is(b1.messages.filter((m) => m.data.id === id).length, 0);
  for (const s of [a1, a2, b1]) s.ws.close();
});

test('resume: a client reconnecting with its last sequence gets what it missed, in order, then the live stream', async () => {
  const first = connect(apis[0].url, { token: ownerToken });
  await first.opened;
  await new Promise((r) => setTimeout(r, 200));
  const seen = await owner.post('/v1/issues', { title: 'Before the gap', severity: 'low' });
  const last = (await first.waitFor((m) => m.data.id === seen.body.id)).sequence;
  first.ws.close();
  await first.closed;

  const missed: string[] = [];
  for (const title of ['Missed one', 'Missed two']) missed.push((await owner.post('/v1/issues', { title, severity: 'low' })).body.id);
  const again = connect(apis[1].url, { token: ownerToken, after: last });
  await again.opened;
  await again.waitFor((m) => m.data.id === missed[1], 'the missed messages');
  const live = await owner.post('/v1/issues', { title: 'After reconnect', severity: 'low' });
  await again.waitFor((m) => m.data.id === live.body.id, 'the live message');
  const ids = again.messages.filter((m) => m.type === 'issue.created').map((m) => m.data.id);
  assert.equal(ids, [...missed, live.body.id]);
  const sequences = again.messages.map((m) => m.sequence);
  assert.equal(
    sequences,
    [...sequences].sort((x, y) => x - y),
    'in sequence order',
  );
  assert.is(new Set(sequences).size, sequences.length, 'no repeats');
  assert.ok(sequences[0] > last);
  again.ws.close();
});

test('notification.created reaches only its member; the worker commits it', async () => {
  const member = await addMember(t.app, t.demo.workspaceId, 'rt-member@example.com');
  const ownerSocket = connect(apis[0].url, { token: ownerToken });
  const memberSocket = connect(apis[1].url, { token: member.token });
  await Promise.all([ownerSocket.opened, memberSocket.opened]);
  await new Promise((r) => setTimeout(r, 200));
  const res = await owner.post('/v1/ingest/events', { external_id: 'rt-1', title: 'Realtime critical', source: 'rt', severity: 'critical' }, fresh());
  assert.is(res.status, 202, res.text);
  const mine = await memberSocket.waitFor((m) => m.type === 'notification.created', 'the member notification');
  const theirs = await ownerSocket.waitFor((m) => m.type === 'notification.created', 'the owner notification');
  assert.is(mine.data.kind, 'new_issue_ingested');
  assert.is(mine.data.subject_id, res.body.issue_id);
  const owners = await t.app.pool.query('select id, user_id from notifications where id = any($1::uuid[])', [[mine.data.id, theirs.data.id]]);
  const userOf = new Map(owners.rows.map((r) => [r.id, r.user_id]));
  assert.is(userOf.get(mine.data.id), member.userId);
  assert.is(userOf.get(theirs.data.id), t.demo.userId);
  await new Promise((r) => setTimeout(r, 300));
  assert.is(memberSocket.messages.filter((m) => m.type === 'notification.created').length, 1);
  assert.is(ownerSocket.messages.filter((m) => m.type === 'notification.created').length, 1);
  ownerSocket.ws.close();
  memberSocket.ws.close();
});

test('the WebSocket is not counted by the REST rate limit', async () => {
  const before = Number((await owner.get('/v1/me/notifications/unread-count')).headers.get('x-ratelimit-remaining'));
  const sockets = [0, 1, 2].map(() => connect(t.platformServer!.url, { token: ownerToken }));
  await Promise.all(sockets.map((s) => s.opened));
  const after = Number((await owner.get('/v1/me/notifications/unread-count')).headers.get('x-ratelimit-remaining'));
  assert.is(after, before - 1);
  for (const s of sockets) s.ws.close();
});

test('a client that stops answering pings is terminated', async () => {
  const dead = connect(t.platformServer!.url, { token: ownerToken, autoPong: false });
  await dead.opened;
  const closed = await dead.closed;
  assert.is(closed.code, 1006, 'cut, not closed politely');
  const healthy = connect(t.platformServer!.url, { token: ownerToken });
  await healthy.opened;
  await new Promise((r) => setTimeout(r, 1000));
  assert.is(healthy.ws.readyState, WebSocket.OPEN, 'a client answering pings stays');
  healthy.ws.close();
});

test('a slow client is dropped instead of buffered without bound', async () => {
  const slow = connect(t.platformServer!.url, { token: ownerToken });
  await slow.opened;
  (slow.ws as unknown as { _socket: { pause(): void } })._socket.pause(); // reads nothing from now on
  const narrative = 'x'.repeat(8000);
  for (let batch = 0; batch < 6; batch++) {
    const records = Array.from({ length: 200 }, (_, i) => ({ external_id: `slow-${batch}-${i}`, title: `Slow ${i}`, source: 'slow', narrative }));
    const res = await owner.post('/v1/ingest/batch', { records }, fresh());
    assert.is(res.status, 202, res.text);
    if (slow.ws.readyState !== WebSocket.OPEN) break;
  }
  await eventually(async () => (local.hub.connections === 0 ? true : undefined), 20_000, 'the slow client to be dropped');
});

test('every message received matches the schema /openapi.json documents for GET /v1/realtime', () => {
  assert.ok(everything.length > 0);
  for (const message of everything) {
    const check = realtimeMessageSchema.safeParse(message);
    assert.ok(check.success, `${JSON.stringify(message).slice(0, 300)}: ${check.error?.message}`);
  }
  const types = new Set(everything.map((m) => m.type));
  for (const type of ['issue.created', 'issue.updated', 'notification.created']) assert.ok(types.has(type), `a ${type} message was checked`);
});

test.run();
