import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sha256Hex } from '../../../lib/crypto.ts';
import { allScopes } from '../../../domain/scopes.ts';
import { eventually, startTestApp, type TestApp } from '../../helpers/app.ts';
import { TestClock } from '../../helpers/clock.ts';
import type { Client, HttpResponse } from '../../helpers/http.ts';

const UNAUTHORIZED = 'Missing or invalid Authorization header';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MISSING = '00000000-0000-4000-8000-000000000000';

const clock = new TestClock('2030-06-01T12:00:00Z');
let t: TestApp;
let admin: Client; // the demo owner
test.before(async () => {
  t = await startTestApp({ clock });
  const exchange = await t.platform.post('/v1/auth/exchange', { subject_token: 'demo' });
  admin = t.platform.as(exchange.body.access_token);
});
test.after(async () => t.close());

const inDays = (days: number) => new Date(clock.now().getTime() + days * 24 * 3600_000).toISOString();

function assertError(res: HttpResponse, status: number, code: string, message?: string) {
  assert.is(res.status, status, res.text);
  assert.is(res.body.error.code, code, res.text);
  if (message !== undefined) assert.is(res.body.error.message, message);
  assert.is(res.body.error.trace_id, res.headers.get('x-request-id'));
}

async function createAccount(name: string, scopes: string[]) {
  const res = await admin.post('/v1/service-accounts', { name, scopes });
  assert.is(res.status, 201, res.text);
  return res.body;
}

async function createToken(accountId: string, name = 'ci', expiresAt = inDays(30)) {
  const res = await admin.post(`/v1/service-accounts/${accountId}/tokens`, { name, expires_at: expiresAt });
  assert.is(res.status, 201, res.text);
  return res.body;
}

async function auditActions(targetId: string): Promise<string[]> {
  const { rows } = await t.app.pool.query('select action from audit_events where target_id = $1 order by occurred_at, action', [targetId]);
  return rows.map((r) => r.action);
}

test('create: 201 active service account with its scopes; duplicate name is 409 conflict', async () => {
  const res = await admin.post('/v1/service-accounts', { name: 'ingest-bot', scopes: ['ingest:write', 'jobs:read', 'jobs:read'] });
  assert.is(res.status, 201, res.text);
  assert.equal(Object.keys(res.body).sort(), ['created_at', 'id', 'name', 'scopes', 'status', 'workspace_id']);
  assert.match(res.body.id, UUID);
  assert.is(res.body.name, 'ingest-bot');
  assert.equal(res.body.scopes, ['ingest:write', 'jobs:read']);
  assert.is(res.body.status, 'active');
  assert.is(res.body.workspace_id, t.demo.workspaceId);
  assert.match(res.body.created_at, ISO);

  const duplicate = await admin.post('/v1/service-accounts', { name: 'ingest-bot', scopes: ['issues:read'] });
  assertError(duplicate, 409, 'conflict');
  assert.is(Number((await t.app.pool.query(`select count(*) as n from service_accounts where name = 'ingest-bot'`)).rows[0].n), 1);
  assert.equal(await auditActions(res.body.id), ['service_account.created']);
});

test('create: validation errors are 400 with field details', async () => {
  const cases: Array<[unknown, string]> = [
    [{ name: 'x', scopes: ['issues:read', 'root:everything'] }, 'scopes.1'],
    [{ name: 'x', scopes: [] }, 'scopes'],
    [{ name: 'x' }, 'scopes'],
    [{ name: '', scopes: ['issues:read'] }, 'name'],
    [{ name: '   ', scopes: ['issues:read'] }, 'name'],
    [{ scopes: ['issues:read'] }, 'name'],
    [{ name: 'x'.repeat(101), scopes: ['issues:read'] }, 'name'],
    [{ name: 'x', scopes: 'issues:read' }, 'scopes'],
  ];
  for (const [payload, field] of cases) {
    const res = await admin.post('/v1/service-accounts', payload);
    assertError(res, 400, 'validation_error');
    assert.type(res.body.error.details[field], 'string', `${field}: ${res.text}`);
  }
});

test('list is paginated; get; unknown ids are 404', async () => {
  for (const name of ['page-a', 'page-b', 'page-c']) await createAccount(name, ['issues:read']);
  const all = await admin.get('/v1/service-accounts?limit=100');
  assert.is(all.status, 200, all.text);
  const total = all.body.page.total;
  assert.ok(total >= 4);
  assert.is(all.body.data.length, total);

  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res: HttpResponse = await admin.get(`/v1/service-accounts?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.is(res.status, 200, res.text);
    assert.ok(res.body.data.length <= 2);
    assert.is(res.body.page.total, total);
    assert.is(res.body.page.has_more, res.body.page.next_cursor !== null);
    seen.push(...res.body.data.map((a: any) => a.id));
    cursor = res.body.page.next_cursor;
    pages++;
  } while (cursor);
  assert.is(pages, Math.ceil(total / 2));
  assert.equal(
    seen,
    all.body.data.map((a: any) => a.id),
    'pages follow the default order (newest first) without gaps',
  );
  assert.equal([...seen].sort(), [...new Set(seen)].sort());

  const byName = await admin.get('/v1/service-accounts?sort=name&limit=100');
  const names = byName.body.data.map((a: any) => a.name);
  assert.equal(names, [...names].sort());

  const first = await admin.get('/v1/service-accounts?limit=1');
  const tampered = first.body.page.next_cursor.slice(0, -2) + (first.body.page.next_cursor.endsWith('AA') ? 'BB' : 'AA');
  const bad = await admin.get(`/v1/service-accounts?limit=1&cursor=${encodeURIComponent(tampered)}`);
  assertError(bad, 400, 'validation_error', 'malformed cursor token');
  assertError(await admin.get('/v1/service-accounts?limit=0'), 400, 'validation_error');
  assertError(await admin.get('/v1/service-accounts?limit=101'), 400, 'validation_error');
  assertError(await admin.get('/v1/service-accounts?sort=secret'), 400, 'validation_error');

  const one = all.body.data[0];
  const got = await admin.get(`/v1/service-accounts/${one.id}`);
  assert.is(got.status, 200, got.text);
  assert.equal(got.body, one);
  assertError(await admin.get(`/v1/service-accounts/${MISSING}`), 404, 'not_found');
  assertError(await admin.get('/v1/service-accounts/not-a-uuid'), 404, 'not_found');
});

test('delete: 204, then 404; its tokens stop working', async () => {
  const account = await createAccount('short-lived', ['jobs:read']);
  const token = await createToken(account.id);
  assert.is((await t.platform.get('/v1/jobs', { token: token.token })).status, 200);
  const res = await admin.delete(`/v1/service-accounts/${account.id}`);
  assert.is(res.status, 204, res.text);
  assert.is(res.text, '');
  assertError(await admin.get(`/v1/service-accounts/${account.id}`), 404, 'not_found');
  assertError(await admin.delete(`/v1/service-accounts/${account.id}`), 404, 'not_found');
  assertError(await admin.get(`/v1/service-accounts/${account.id}/tokens`), 404, 'not_found');
  assertError(await t.platform.get('/v1/jobs', { token: token.token }), 401, 'unauthorized', UNAUTHORIZED);
  assertError(await admin.delete(`/v1/service-accounts/${MISSING}`), 404, 'not_found');
  assert.equal(await auditActions(account.id), ['service_account.created', 'service_account.deleted']);
});

test('tokens: plaintext once, only its SHA-256 stored, metadata listed without any secret', async () => {
  const account = await createAccount('token-holder', ['jobs:read']);
  const created = await admin.post(`/v1/service-accounts/${account.id}/tokens`, { name: 'deploy', expires_at: inDays(90) });
  assert.is(created.status, 201, created.text);
  assert.equal(Object.keys(created.body).sort(), ['expires_at', 'id', 'name', 'token']);
  assert.match(created.body.token, /^svc_sat_[A-Za-z0-9_-]{43}$/);
  assert.is(created.body.name, 'deploy');
  assert.is(created.body.expires_at, inDays(90));
  const secret = created.body.token as string;

  const stored = (await t.app.pool.query('select token_hash, row_to_json(t)::text as row from service_account_tokens t where id = $1', [created.body.id])).rows;
  assert.is(stored.length, 1);
  assert.is(stored[0].token_hash, sha256Hex(secret));
  assert.not.ok(stored[0].row.includes(secret), 'the plaintext is nowhere in the row');
  assert.is(Number((await t.app.pool.query('select count(*) as n from service_account_tokens where token_hash = $1', [sha256Hex(secret)])).rows[0].n), 1);

  const second = await createToken(account.id, 'backup');
  assert.is.not(second.token, secret);
  const list = await admin.get(`/v1/service-accounts/${account.id}/tokens`);
  assert.is(list.status, 200, list.text);
  assert.is(list.body.page.total, 2);
  for (const item of list.body.data) {
    assert.equal(Object.keys(item).sort(), ['created_at', 'expires_at', 'id', 'last_used_at', 'name', 'revoked_at', 'status']);
    assert.is(item.status, 'active');
    assert.is(item.revoked_at, null);
  }
  assert.equal(list.body.data.map((i: any) => i.name).sort(), ['backup', 'deploy']);
  assert.not.ok(list.text.includes(secret) || list.text.includes(second.token) || list.text.includes(sha256Hex(secret)), 'no secret or hash in the list');
  assert.equal(await auditActions(created.body.id), ['service_account.token.created']);

  assertError(await admin.post(`/v1/service-accounts/${MISSING}/tokens`, { name: 'x', expires_at: inDays(1) }), 404, 'not_found');
  assertError(await admin.get(`/v1/service-accounts/${MISSING}/tokens`), 404, 'not_found');
});

test('tokens: validation of name and expires_at', async () => {
  const account = await createAccount('validated', ['jobs:read']);
  const cases: Array<[unknown, string]> = [
    [{ name: 'past', expires_at: new Date(clock.now().getTime() - 1000).toISOString() }, 'expires_at'],
    [{ name: 'now', expires_at: clock.now().toISOString() }, 'expires_at'],
    [{ name: 'bad', expires_at: 'next tuesday' }, 'expires_at'],
    [{ name: 'missing' }, 'expires_at'],
    [{ expires_at: inDays(1) }, 'name'],
    [{ name: '', expires_at: inDays(1) }, 'name'],
  ];
  for (const [payload, field] of cases) {
    const res = await admin.post(`/v1/service-accounts/${account.id}/tokens`, payload);
    assertError(res, 400, 'validation_error');
    assert.type(res.body.error.details[field], 'string', `${field}: ${res.text}`);
  }
  assert.is(Number((await t.app.pool.query('select count(*) as n from service_account_tokens where service_account_id = $1', [account.id])).rows[0].n), 0);
  // An offset timestamp is accepted and normalised to UTC.
  const offset = await admin.post(`/v1/service-accounts/${account.id}/tokens`, { name: 'offset', expires_at: '2031-01-01T02:00:00+02:00' });
  assert.is(offset.status, 201, offset.text);
  assert.is(offset.body.expires_at, '2031-01-01T00:00:00.000Z');
});

test('a service-account token carries exactly its scopes; last_used_at is recorded', async () => {
  const account = await createAccount('reader', ['jobs:read', 'members:read']);
  const token = await createToken(account.id);
  const bot = t.platform.as(token.token);
  assert.is((await bot.get('/v1/jobs')).status, 200);
  assert.is((await bot.get('/v1/members')).status, 200);
  for (const [method, path, scope] of [
    ['GET', '/v1/audit-events', 'audit:read'],
    ['GET', '/v1/service-accounts', 'workspace:admin'],
    ['POST', '/v1/invitations', 'members:write'],
    ['POST', `/v1/jobs/${MISSING}/cancel`, 'jobs:write'],
  ] as const) {
    const res = await bot.request(method, path, method === 'POST' ? { body: { email: 'x@example.com' } } : {});
    assertError(res, 403, 'forbidden');
    assert.is(res.body.error.details.required_scope, scope);
  }
  const current = await bot.get('/v1/workspaces/current');
  assert.is(current.body.id, t.demo.workspaceId, 'bound to its workspace');

  const used = await eventually(
    async () => {
      const list = await admin.get(`/v1/service-accounts/${account.id}/tokens`);
      const item = list.body.data.find((i: any) => i.id === token.id);
      return item.last_used_at ?? undefined;
    },
    10_000,
    'last_used_at',
  );
  assert.match(used, ISO);
});

test('expiry: a token past its expires_at (injected clock) is 401 and listed as expired', async () => {
  const account = await createAccount('expiring', ['jobs:read']);
  const token = await createToken(account.id, 'hour', new Date(clock.now().getTime() + 3600_000).toISOString());
  const start = clock.now();
  try {
    clock.set(new Date(start.getTime() + 3600_000 - 1000));
    assert.is((await t.platform.get('/v1/jobs', { token: token.token })).status, 200);
    clock.set(new Date(start.getTime() + 3600_000 + 1000));
    assertError(await t.platform.get('/v1/jobs', { token: token.token }), 401, 'unauthorized', UNAUTHORIZED);
    const list = await admin.get(`/v1/service-accounts/${account.id}/tokens`);
    assert.is(list.body.data[0].status, 'expired');
  } finally {
    clock.set(start);
  }
});

test('revoke: 204 and the token is 401 immediately', async () => {
  const account = await createAccount('revocable', ['jobs:read']);
  const token = await createToken(account.id);
  const keep = await createToken(account.id, 'keep');
  assert.is((await t.platform.get('/v1/jobs', { token: token.token })).status, 200);
  const res = await admin.delete(`/v1/service-accounts/${account.id}/tokens/${token.id}`);
  assert.is(res.status, 204, res.text);
  assertError(await t.platform.get('/v1/jobs', { token: token.token }), 401, 'unauthorized', UNAUTHORIZED);
  assert.is((await t.platform.get('/v1/jobs', { token: keep.token })).status, 200, 'other tokens keep working');
  const list = await admin.get(`/v1/service-accounts/${account.id}/tokens`);
  const item = list.body.data.find((i: any) => i.id === token.id);
  assert.is(item.status, 'revoked');
  assert.match(item.revoked_at, ISO);
  assert.equal(await auditActions(token.id), ['service_account.token.created', 'service_account.token.revoked']);

  assertError(await admin.delete(`/v1/service-accounts/${account.id}/tokens/${MISSING}`), 404, 'not_found');
  assertError(await admin.delete(`/v1/service-accounts/${MISSING}/tokens/${token.id}`), 404, 'not_found');
  // A token id under another account of the same workspace is not found either.
  const other = await createAccount('other-account', ['jobs:read']);
  assertError(await admin.delete(`/v1/service-accounts/${other.id}/tokens/${keep.id}`), 404, 'not_found');
  assert.is((await t.platform.get('/v1/jobs', { token: keep.token })).status, 200);
});

test('every service-account route needs workspace:admin', async () => {
  const account = await createAccount(
    'not-admin',
    allScopes.filter((s) => s !== 'workspace:admin'),
  );
  const token = await createToken(account.id);
  const bot = t.platform.as(token.token);
  const target = await createAccount('target', ['jobs:read']);
  const targetToken = await createToken(target.id);
  const routes: Array<[string, string, unknown?]> = [
    ['POST', '/v1/service-accounts', { name: 'escalated', scopes: ['workspace:admin'] }],
    ['GET', '/v1/service-accounts'],
    ['GET', `/v1/service-accounts/${target.id}`],
    ['DELETE', `/v1/service-accounts/${target.id}`],
    ['POST', `/v1/service-accounts/${target.id}/tokens`, { name: 'x', expires_at: inDays(1) }],
    ['GET', `/v1/service-accounts/${target.id}/tokens`],
    ['DELETE', `/v1/service-accounts/${target.id}/tokens/${targetToken.id}`],
  ];
  for (const [method, path, body] of routes) {
    const res = await bot.request(method, path, body === undefined ? {} : { body });
    assertError(res, 403, 'forbidden');
    assert.is(res.body.error.details.required_scope, 'workspace:admin', `${method} ${path}`);
  }
  // Nothing changed, and the same calls without a token are 401.
  assert.is((await admin.get(`/v1/service-accounts/${target.id}`)).status, 200);
  assert.is((await t.platform.get('/v1/jobs', { token: targetToken.token })).status, 200);
  for (const [method, path, body] of routes) {
    assertError(await t.platform.request(method, path, body === undefined ? {} : { body }), 401, 'unauthorized', UNAUTHORIZED);
  }
  // A service account holding it may administer.
  const adminBot = t.platform.as((await createToken((await createAccount('admin-bot', ['workspace:admin'])).id)).token);
  const made = await adminBot.post('/v1/service-accounts', { name: 'made-by-bot', scopes: ['jobs:read'] });
  assert.is(made.status, 201, made.text);
  const audit = (await t.app.pool.query(`select actor_type from audit_events where target_id = $1`, [made.body.id])).rows;
  assert.equal(audit, [{ actor_type: 'service_account' }]);
});

test('audit events: paginated, filtered by action, and need audit:read', async () => {
  const res = await admin.get('/v1/audit-events?action=service_account.created&limit=2');
  assert.is(res.status, 200, res.text);
  assert.is(res.body.data.length, 2);
  assert.is(res.body.page.has_more, true);
  assert.ok(res.body.page.total > 2);
  for (const event of res.body.data) {
    assert.equal(Object.keys(event).sort(), [
      'action',
      'actor_id',
      'actor_type',
      'client_ip',
      'id',
      'metadata',
      'occurred_at',
      'target_id',
      'target_type',
      'trace_id',
    ]);
    assert.is(event.action, 'service_account.created');
    assert.is(event.target_type, 'service_account');
    assert.ok(['user', 'service_account'].includes(event.actor_type), event.actor_type);
    if (event.actor_type === 'user') assert.is(event.actor_id, t.demo.userId);
    assert.match(event.actor_id, UUID);
    assert.type(event.metadata.name, 'string');
    assert.match(event.occurred_at, ISO);
  }
  const next = await admin.get(`/v1/audit-events?action=service_account.created&limit=2&cursor=${encodeURIComponent(res.body.page.next_cursor)}`);
  assert.is(next.status, 200, next.text);
  assert.not.ok(
    next.body.data.some((e: any) => res.body.data.some((f: any) => f.id === e.id)),
    'no overlap between pages',
  );
  // A cursor belongs to its filter.
  assertError(
    await admin.get(`/v1/audit-events?action=service_account.deleted&limit=2&cursor=${encodeURIComponent(res.body.page.next_cursor)}`),
    400,
    'validation_error',
  );

  const actions = new Set((await admin.get('/v1/audit-events?limit=100')).body.data.map((e: any) => e.action));
  for (const action of ['service_account.created', 'service_account.deleted', 'service_account.token.created', 'service_account.token.revoked']) {
    assert.ok(actions.has(action), `${action} is in the audit log`);
  }

  const bot = t.platform.as((await createToken((await createAccount('no-audit', ['jobs:read'])).id)).token);
  const denied = await bot.get('/v1/audit-events');
  assertError(denied, 403, 'forbidden');
  assert.is(denied.body.error.details.required_scope, 'audit:read');
  assert.is((await t.platform.get('/v1/audit-events', { token: (await createToken((await createAccount('auditor', ['audit:read'])).id)).token })).status, 200);
});

test.run();
