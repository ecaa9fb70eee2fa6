import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { demoToken, startTestApp, type TestApp } from '../../helpers/app.ts';
import { assertError, assertValidation, fresh } from '../../helpers/errors.ts';
import { assignPattern, createPattern } from '../../helpers/eventFixtures.ts';
import type { Client, HttpResponse } from '../../helpers/http.ts';
import { provisionWorkspace, provisioningKey, serviceAccountToken } from '../../helpers/identities.ts';

const provisioning = provisioningKey();
let t: TestApp;
let api: Client;
test.before(async () => {
  t = await startTestApp({ env: provisioning.env });
  api = t.platform.as(await demoToken(t));
});
test.after(async () => t.close());

interface Issue {
  id: string;
  title: string;
  status: string;
  severity: string;
  pattern_id: string | null;
  narrative: string | null;
  created_at: string;
  source_created_at: string;
  resolved_at: string | null;
  closed_at: string | null;
  version: number;
}

const create = async (body: Record<string, unknown>, client = api): Promise<Issue> => {
  const res = await client.post('/v1/issues', { severity: 'medium', ...body });
  assert.is(res.status, 201, res.text);
  return res.body;
};
const patch = (id: string, body: unknown) => api.patch(`/v1/issues/${id}`, body);

/** Every issue id of a list query, following next_cursor. */
async function listAll(query = '', limit = 100): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const sep = query ? '&' : '';
    const res: HttpResponse = await api.get(`/v1/issues?${query}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.is(res.status, 200, res.text);
    ids.push(...res.body.data.map((i: Issue) => i.id));
    cursor = res.body.page.next_cursor;
    assert.is(res.body.page.has_more, cursor !== null);
  } while (cursor);
  return ids;
}

async function allIssues(): Promise<Issue[]> {
  const res = await api.get('/v1/issues?limit=100');
  assert.is(res.body.page.has_more, false, 'the fixture fits one page');
  return res.body.data;
}

test('POST /v1/issues: 201 with the issue; title and severity are required', async () => {
  const res = await api.post('/v1/issues', { title: 'Scheduler loses jobs', severity: 'sev2', narrative: 'Jobs vanish from the queue after a restart' });
  assert.is(res.status, 201, res.text);
  assert.match(res.body.id, /^[0-9a-f-]{36}$/);
  assert.is(res.body.title, 'Scheduler loses jobs');
  assert.is(res.body.severity, 'high');
  assert.is(res.body.status, 'open');
  assert.is(res.body.source, 'api');
  assert.is(res.body.external_id, null);
  assert.is(res.body.engine_status, 'eligible');
  assert.is(res.body.pattern_id, null);
  assert.is(res.body.version, 1);
  assert.is(res.body.source_created_at, res.body.created_at);

  assertValidation(await api.post('/v1/issues', { severity: 'high' }), { title: 'is required' });
  assertValidation(await api.post('/v1/issues', { title: 'No severity' }), { severity: 'is required' });
  assertValidation(await api.post('/v1/issues', { title: 'Bad severity', severity: 'urgent' }), {
    severity: 'must be one of critical, p1, sev1, high, p2, sev2, medium, p3, sev3, low, p4, sev4',
  });
  assertValidation(await api.post('/v1/issues', { title: '  ', severity: 'low' }), { title: 'must not be empty' });

  const blocked = await create({ title: 'Created without narrative', severity: 'low' });
  assert.is((blocked as unknown as { engine_status: string }).engine_status, 'blocked_no_narrative');
});

test('GET /v1/issues/{id}: the issue; 404 when unknown, malformed or in another workspace', async () => {
  const mine = await create({ title: 'Mine', narrative: 'belongs to demo' });
  const got = await api.get(`/v1/issues/${mine.id}`);
  assert.is(got.status, 200, got.text);
  assert.equal(got.body, mine);

  assertError(await api.get(`/v1/issues/${randomUUID()}`), 404, 'not_found');
  assertError(await api.get('/v1/issues/not-a-uuid'), 404, 'not_found');
  assertError(await api.get('/v1/issues/12345'), 404, 'not_found');
  assertError(await api.get(`/v1/issues/${'-'.repeat(36)}`), 404, 'not_found');

  const other = await provisionWorkspace(t.platform, provisioning.key, 'other-org');
  const them = t.platform.as(other.apiKey);
  const theirs = await create({ title: 'Theirs', narrative: 'belongs to the other workspace' }, them);
  assert.is((await them.get(`/v1/issues/${theirs.id}`)).status, 200);
  assertError(await api.get(`/v1/issues/${theirs.id}`), 404, 'not_found');
  assertError(await them.get(`/v1/issues/${mine.id}`), 404, 'not_found');
  assertError(await them.patch(`/v1/issues/${mine.id}`, { title: 'hijacked' }), 404, 'not_found');
  assertError(await them.post(`/v1/issues/${mine.id}/close`), 404, 'not_found');
  assertError(await them.get(`/v1/issues/${mine.id}/events`), 404, 'not_found');
  const theirList = await them.get('/v1/issues');
  assert.equal(
    theirList.body.data.map((i: Issue) => i.id),
    [theirs.id],
  );
  assert.ok(!(await listAll()).includes(theirs.id));
  assert.is((await api.get(`/v1/issues/${mine.id}`)).body.title, 'Mine');
});

test('PATCH /v1/issues/{id}: title, severity and narrative', async () => {
  const issue = await create({ title: 'Before', severity: 'low', narrative: 'first words' });
  const res = await patch(issue.id, { title: 'After', severity: 'p1', narrative: 'second words' });
  assert.is(res.status, 200, res.text);
  assert.is(res.body.title, 'After');
  assert.is(res.body.severity, 'critical');
  assert.is(res.body.narrative, 'second words');
  assert.is(res.body.version, 2, 'one issue.updated event for the field changes');
  assert.equal(await api.get(`/v1/issues/${issue.id}`).then((r) => r.body), res.body);

  const unchanged = await patch(issue.id, { title: 'After' });
  assert.is(unchanged.status, 200);
  assert.is(unchanged.body.version, 2, 'a no-op patch records nothing');

  // Removing the narrative blocks the issue; supplying one makes it eligible again.
  const removed = await patch(issue.id, { narrative: null });
  assert.is(removed.body.engine_status, 'blocked_no_narrative');
  assert.is((await api.get(`/v1/review-queue?issue_id=${issue.id}&status=open`)).body.data.length, 1);
  const supplied = await patch(issue.id, { narrative: 'the story again' });
  assert.is(supplied.body.engine_status, 'eligible');
  assert.is((await api.get(`/v1/review-queue?issue_id=${issue.id}&status=open`)).body.data.length, 0);

  assertValidation(await patch(issue.id, {}), { body: 'must change at least one of title, severity, status, narrative' });
  assertValidation(await patch(issue.id, { title: '' }), { title: 'must not be empty' });
  assertValidation(await patch(issue.id, { severity: 'urgent' }), {
    severity: 'must be one of critical, p1, sev1, high, p2, sev2, medium, p3, sev3, low, p4, sev4',
  });
  assertValidation(await patch(issue.id, { status: 'done' }), { status: 'must be one of open, in_progress, resolved, closed' });
  assertError(await patch(randomUUID(), { title: 'x' }), 404, 'not_found');
  assertError(await patch('garbage', { title: 'x' }), 404, 'not_found');

  const reader = t.platform.as(await serviceAccountToken(api, ['issues:read']));
  assertError(await reader.patch(`/v1/issues/${issue.id}`, { title: 'no' }), 403, 'forbidden', { required_scope: 'issues:write' });
  assertError(await reader.post('/v1/issues', { title: 'no', severity: 'low' }), 403, 'forbidden', { required_scope: 'issues:write' });
  assert.is((await reader.get(`/v1/issues/${issue.id}`)).status, 200);
});

test('status transitions: every allowed one, with resolved_at and closed_at', async () => {
  const a = await create({ title: 'Lifecycle', narrative: 'x' });
  const steps: Array<[string, Partial<Issue>]> = [
    ['in_progress', {}],
    ['resolved', {}],
    ['open', {}],
    ['in_progress', {}],
    ['resolved', {}],
    ['closed', {}],
  ];
  let previous = a;
  for (const [status] of steps) {
    const res = await patch(a.id, { status });
    assert.is(res.status, 200, `${previous.status} -> ${status}: ${res.text}`);
    assert.is(res.body.status, status);
    assert.is(res.body.version, previous.version + 1);
    if (status === 'resolved') assert.ok(res.body.resolved_at);
    if (status === 'open') {
      assert.is(res.body.resolved_at, null, 'reopening clears resolved_at');
      assert.is(res.body.closed_at, null);
    }
    if (status === 'closed') {
      assert.ok(res.body.closed_at);
      assert.is(res.body.resolved_at, previous.resolved_at, 'closing keeps when it was resolved');
    }
    previous = res.body;
  }

  const b = await create({ title: 'Closed straight from open', narrative: 'x' });
  const closedFromOpen = await patch(b.id, { status: 'closed' });
  assert.is(closedFromOpen.status, 200, closedFromOpen.text);
  assert.is(closedFromOpen.body.status, 'closed');
  assert.is(closedFromOpen.body.resolved_at, null);

  const c = await create({ title: 'Closed from in progress', narrative: 'x' });
  await patch(c.id, { status: 'in_progress' });
  const closedFromProgress = await patch(c.id, { status: 'closed' });
  assert.is(closedFromProgress.status, 200, closedFromProgress.text);
  assert.is(closedFromProgress.body.status, 'closed');

  const events = await api.get(`/v1/issues/${a.id}/events?limit=100`);
  assert.equal(
    events.body.data
      .filter((e: { type: string }) => e.type === 'issue.status_changed')
      .map((e: { payload: { from: string; to: string } }) => `${e.payload.from}->${e.payload.to}`),
    ['open->in_progress', 'in_progress->resolved', 'resolved->open', 'open->in_progress', 'in_progress->resolved', 'resolved->closed'],
  );
});

test('status transitions: invalid ones are 409 conflict and change nothing', async () => {
  const inState = async (status: string) => {
    const issue = await create({ title: `In ${status}`, narrative: 'x' });
    const path: Record<string, string[]> = { open: [], in_progress: ['in_progress'], resolved: ['in_progress', 'resolved'], closed: ['closed'] };
    for (const s of path[status]) assert.is((await patch(issue.id, { status: s })).status, 200);
    return (await api.get(`/v1/issues/${issue.id}`)).body as Issue;
  };
  const invalid: Array<[string, string]> = [
    ['open', 'resolved'],
    ['in_progress', 'open'],
    ['resolved', 'in_progress'],
    ['closed', 'open'],
    ['closed', 'in_progress'],
    ['closed', 'resolved'],
  ];
  for (const [from, to] of invalid) {
    const issue = await inState(from);
    const res = await patch(issue.id, { status: to, title: 'must not stick' });
    assertError(res, 409, 'conflict', { from, to });
    assert.equal((await api.get(`/v1/issues/${issue.id}`)).body, issue, `${from} -> ${to} changed nothing`);
  }
  // Asking for the current status is not a transition.
  const open = await inState('open');
  const same = await patch(open.id, { status: 'open' });
  assert.is(same.status, 200);
  assert.is(same.body.version, open.version);
});

test('POST /v1/issues/{id}/close', async () => {
  const issue = await create({ title: 'To close', narrative: 'x' });
  const res = await api.post(`/v1/issues/${issue.id}/close`);
  assert.is(res.status, 200, res.text);
  assert.is(res.body.status, 'closed');
  assert.ok(res.body.closed_at);
  const again = await api.post(`/v1/issues/${issue.id}/close`);
  assert.is(again.status, 200);
  assert.equal(again.body, res.body, 'closing a closed issue changes nothing');

  const resolved = await create({ title: 'Resolved then closed', narrative: 'x' });
  await patch(resolved.id, { status: 'in_progress' });
  await patch(resolved.id, { status: 'resolved' });
  assert.is((await api.post(`/v1/issues/${resolved.id}/close`)).body.status, 'closed');
  assertError(await api.post(`/v1/issues/${randomUUID()}/close`), 404, 'not_found');
});

test('GET /v1/issues/{id}/events: the history oldest first, paginated', async () => {
  const issue = await create({ title: 'Eventful', severity: 'low', narrative: 'x' });
  await patch(issue.id, { title: 'Eventful 2' });
  await patch(issue.id, { status: 'in_progress' });
  await patch(issue.id, { severity: 'high', status: 'resolved' });
  await api.post(`/v1/issues/${issue.id}/close`);

  const all = await api.get(`/v1/issues/${issue.id}/events`);
  assert.is(all.status, 200, all.text);
  const types = ['issue.created', 'issue.updated', 'issue.status_changed', 'issue.updated', 'issue.status_changed', 'issue.status_changed'];
  assert.equal(
    all.body.data.map((e: { type: string }) => e.type),
    types,
  );
  assert.equal(all.body.page, { next_cursor: null, has_more: false, total: 6 });
  const sequences = all.body.data.map((e: { sequence: number }) => e.sequence);
  assert.equal(
    sequences,
    [...sequences].sort((x: number, y: number) => x - y),
  );
  const first = all.body.data[0];
  assert.equal(Object.keys(first).sort(), ['actor', 'aggregate_id', 'aggregate_type', 'id', 'occurred_at', 'payload', 'recorded_at', 'sequence', 'type']);
  assert.is(first.aggregate_type, 'issue');
  assert.is(first.aggregate_id, issue.id);
  assert.is(first.actor.type, 'user');
  assert.is(first.actor.id, t.demo.userId);
  assert.is(first.payload.title, 'Eventful');
  assert.equal(all.body.data[3].payload, { changes: { severity: 'high' } });
  assert.equal(all.body.data[4].payload, { from: 'in_progress', to: 'resolved' });

  const paged: unknown[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res: HttpResponse = await api.get(`/v1/issues/${issue.id}/events?limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.is(res.status, 200, res.text);
    assert.is(res.body.page.total, 6);
    paged.push(...res.body.data);
    cursor = res.body.page.next_cursor;
    pages += 1;
  } while (cursor);
  assert.is(pages, 2);
  assert.equal(paged, all.body.data);

  const newest = await api.get(`/v1/issues/${issue.id}/events?sort=-sequence&limit=1`);
  assert.is(newest.body.data[0].id, all.body.data[5].id);
  assertError(await api.get(`/v1/issues/${randomUUID()}/events`), 404, 'not_found');
  assertValidation(await api.get(`/v1/issues/${issue.id}/events?cursor=bogus`), { cursor: 'malformed cursor token' });
});

test('list: newest first by default, cursor-paginated', async () => {
  const created = [];
  for (let i = 0; i < 3; i++) created.push(await create({ title: `Order ${i}`, narrative: 'x' }));
  const res = await api.get('/v1/issues');
  assert.is(res.status, 200, res.text);
  assert.is(res.body.data.length, Math.min(25, res.body.page.total));
  const { rows } = await t.app.pool.query<{ id: string }>('select id from issues where workspace_id = $1 order by created_at desc, id desc', [
    t.demo.workspaceId,
  ]);
  const expected = rows.map((r) => r.id);
  assert.equal(await listAll(), expected);
  assert.equal(await listAll('', 3), expected, 'small pages give the same order');
  assert.equal(await listAll('sort=created_at'), [...expected].reverse());
  const newest = res.body.data[0] as Issue;
  assert.ok(
    created.every((c) => c.created_at <= newest.created_at),
    'the newest issue comes first',
  );

  const page = await api.get('/v1/issues?limit=2');
  assert.is(page.body.page.has_more, true);
  assert.is(page.body.page.total, expected.length);
  assertValidation(await api.get('/v1/issues?cursor=abc.def'), { cursor: 'malformed cursor token' });
  const tampered = page.body.page.next_cursor.replace(/^./, (c: string) => (c === 'A' ? 'B' : 'A'));
  assertValidation(await api.get(`/v1/issues?limit=2&cursor=${encodeURIComponent(tampered)}`), { cursor: 'malformed cursor token' });
  assertValidation(await api.get('/v1/issues?limit=0'), { limit: 'must be at least 1' });
  assertValidation(await api.get('/v1/issues?limit=101'), { limit: 'must be at most 100' });
  assertValidation(await api.get('/v1/issues?limit=ten'), { limit: 'must be an integer' });
  assertValidation(await api.get('/v1/issues?sort=title'), {
    sort: 'must be one of created_at, -created_at, source_created_at, -source_created_at, updated_at, -updated_at',
  });
});

test('list filters: status, severity, pattern_id, has_pattern', async () => {
  const pattern = await createPattern(t.app.pool, t.demo.workspaceId, { name: 'Disk exhaustion', risk_score: 70, issue_count: 2 });
  const other = await createPattern(t.app.pool, t.demo.workspaceId, { name: 'Lock contention', risk_score: 20, issue_count: 1 });
  const linked = [
    await create({ title: 'Linked one', severity: 'critical', narrative: 'x' }),
    await create({ title: 'Linked two', severity: 'low', narrative: 'x' }),
  ];
  for (const issue of linked) await assignPattern(t.app.pool, t.demo.workspaceId, issue.id, pattern.id);
  const third = await create({ title: 'Linked elsewhere', severity: 'critical', narrative: 'x' });
  await assignPattern(t.app.pool, t.demo.workspaceId, third.id, other.id);
  await patch(linked[0].id, { status: 'in_progress' });

  const all = await allIssues();
  const ids = (pred: (i: Issue) => boolean) => all.filter(pred).map((i) => i.id);
  const check = async (query: string, pred: (i: Issue) => boolean) => {
    const expected = ids(pred);
    assert.ok(expected.length > 0 && expected.length < all.length, `${query} splits the fixture`);
    assert.equal(await listAll(query), expected, query);
  };
  for (const status of ['open', 'in_progress', 'resolved', 'closed']) await check(`status=${status}`, (i) => i.status === status);
  for (const severity of ['critical', 'high', 'medium', 'low']) await check(`severity=${severity}`, (i) => i.severity === severity);
  await check(`pattern_id=${pattern.id}`, (i) => i.pattern_id === pattern.id);
  assert.equal(await listAll(`pattern_id=${pattern.id}`), [linked[1].id, linked[0].id]);
  await check('has_pattern=true', (i) => i.pattern_id !== null);
  await check('has_pattern=false', (i) => i.pattern_id === null);
  assert.equal((await listAll('has_pattern=true')).sort(), [linked[0].id, linked[1].id, third.id].sort());
  await check('has_pattern=1', (i) => i.pattern_id !== null);
  await check('has_pattern=0', (i) => i.pattern_id === null);
  await check(`severity=critical&has_pattern=true&pattern_id=${other.id}`, (i) => i.id === third.id);
  assert.equal(await listAll(`pattern_id=${randomUUID()}`), []);
  assert.equal(await listAll(`status=in_progress&pattern_id=${pattern.id}`), [linked[0].id]);

  assertValidation(await api.get('/v1/issues?status=done'), { status: 'must be one of open, in_progress, resolved, closed' });
  // The ingest aliases are read wherever a severity is (issue 28).
  assert.equal(await listAll('severity=p1'), await listAll('severity=critical'));
  assert.equal(await listAll('severity=SEV2'), await listAll('severity=high'));
  const exported = await api.post('/v1/exports', { resource: 'issues', format: 'csv', filters: { severity: 'p4' } }, fresh());
  assert.is(exported.status, 202, exported.text);
  assertValidation(await api.get('/v1/issues?pattern_id=123'), { pattern_id: 'must be a pattern id' });
  assertValidation(await api.get('/v1/issues?has_pattern=yes'), { has_pattern: 'must be true or false' });
  assertValidation(await api.get('/v1/issues?status=done&severity=urgent&has_pattern=maybe'), {
    status: 'must be one of open, in_progress, resolved, closed',
    severity: 'must be one of critical, p1, sev1, high, p2, sev2, medium, p3, sev3, low, p4, sev4',
    has_pattern: 'must be true or false',
  });
});

test('list filter q: full-text search over title and narrative, at most 200 characters', async () => {
  const byTitle = await create({ title: 'Namenode heap exhaustion', narrative: 'The service stopped answering' });
  const byNarrative = await create({ title: 'Service stopped', narrative: 'The namenode crashed with an OutOfMemoryError' });
  const unrelated = await create({ title: 'Typo in the docs', narrative: 'A word is misspelled' });
  const blocked = await create({ title: 'Namenode restart loop' });

  const search = async (q: string) => (await listAll(`q=${encodeURIComponent(q)}`)).sort();
  assert.equal(await search('namenode'), [byTitle.id, byNarrative.id, blocked.id].sort());
  assert.equal(await search('NAMENODE crashed'), [byNarrative.id]);
  assert.equal(await search('crashes'), [byNarrative.id], 'stemmed: crashes matches crashed');
  assert.equal(await search('misspelled'), [unrelated.id]);
  assert.equal(await search('"heap exhaustion"'), [byTitle.id]);
  assert.equal(await search('namenode -heap'), [byNarrative.id, blocked.id].sort());
  assert.equal(await search('zeppelin'), []);
  assert.equal(await search('namenode OR typo'), [byTitle.id, byNarrative.id, unrelated.id, blocked.id].sort());
  assert.equal(await search(`namenode ${' '.repeat(150)}crashed`), [byNarrative.id]);
  assert.equal(await search(`${'a'.repeat(192)} restart`), []);

  assert.equal((await api.get(`/v1/issues?q=${'x'.repeat(200)}`)).status, 200);
  assertValidation(await api.get(`/v1/issues?q=${'x'.repeat(201)}`), { q: 'must be at most 200 characters' });
  assertValidation(await api.get('/v1/issues?q='), { q: 'must not be empty' });
  assert.is((await api.get(`/v1/issues?q=${encodeURIComponent("it's (broken) & <odd>: | !")}`)).status, 200);
});

test('list filters date_from (inclusive) and date_to (exclusive) on source_created_at', async () => {
  const at = async (occurred_at: string) => (await create({ title: `At ${occurred_at}`, narrative: 'x', occurred_at })).id;
  const t0 = await at('2020-03-01T00:00:00.000Z');
  const t0plus = await at('2020-03-01T00:00:00.001Z');
  const t1minus = await at('2020-03-01T23:59:59.999Z');
  const t1 = await at('2020-03-02T00:00:00.000Z');
  const before = await at('2020-02-29T23:59:59.999Z');

  const range = async (query: string) => (await listAll(query)).sort();
  assert.equal(await range('date_from=2020-03-01T00:00:00Z&date_to=2020-03-02T00:00:00Z'), [t0, t0plus, t1minus].sort());
  assert.equal(await range('date_from=2020-03-01T00:00:00.001Z&date_to=2020-03-02T00:00:00.001Z'), [t0plus, t1minus, t1].sort());
  assert.equal(await range('date_from=2020-03-01T00:00:00Z&date_to=2020-03-01T00:00:00.001Z'), [t0]);
  assert.equal(
    await range(`date_from=${encodeURIComponent('2020-03-01T01:00:00+01:00')}&date_to=${encodeURIComponent('2020-03-01T19:00:00-05:00')}`),
    [t0, t0plus, t1minus].sort(),
  );
  assert.equal(await range('date_to=2020-03-01T00:00:00Z'), [before]);
  const { rows } = await t.app.pool.query<{ id: string }>(`select id from issues where workspace_id = $1 and source_created_at >= '2020-03-02'`, [
    t.demo.workspaceId,
  ]);
  assert.equal(await range('date_from=2020-03-02T00:00:00Z'), rows.map((r) => r.id).sort());
  assert.ok(rows.some((r) => r.id === t1));
  assert.equal(await listAll('date_from=2020-03-01T00:00:00Z&date_to=2020-03-02T00:00:00Z&sort=source_created_at'), [t0, t0plus, t1minus]);

  assertValidation(await api.get('/v1/issues?date_from=2020-03-01'), { date_from: 'must be an ISO 8601 timestamp' });
  assertValidation(await api.get('/v1/issues?date_to=yesterday'), { date_to: 'must be an ISO 8601 timestamp' });
  assertValidation(await api.get('/v1/issues?date_from=2020-03-02T00:00:00Z&date_to=2020-03-01T00:00:00Z'), { date_to: 'must be after date_from' });
  assertValidation(await api.get('/v1/issues?date_from=2020-03-01T00:00:00Z&date_to=2020-03-01T00:00:00Z'), { date_to: 'must be after date_from' });
});

test('every bad list parameter is reported at once', async () => {
  const res: HttpResponse = await api.get(
    `/v1/issues?status=x&severity=y&pattern_id=z&q=${'q'.repeat(201)}&date_from=a&date_to=b&has_pattern=c&limit=0&sort=z`,
  );
  assertValidation(res, {
    status: 'must be one of open, in_progress, resolved, closed',
    severity: 'must be one of critical, p1, sev1, high, p2, sev2, medium, p3, sev3, low, p4, sev4',
    pattern_id: 'must be a pattern id',
    q: 'must be at most 200 characters',
    date_from: 'must be an ISO 8601 timestamp',
    date_to: 'must be an ISO 8601 timestamp',
    has_pattern: 'must be true or false',
    limit: 'must be at least 1',
    sort: 'must be one of created_at, -created_at, source_created_at, -source_created_at, updated_at, -updated_at',
  });
  // Idempotency-Key is optional here.
  assert.is((await api.post('/v1/issues', { title: 'keyed create', severity: 'low' }, fresh())).status, 201);
});

test.run();
