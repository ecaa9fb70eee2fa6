import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { demoToken, startTestApp, type TestApp } from '../../helpers/app.ts';
import { assertError, assertValidation } from '../../helpers/errors.ts';
import { changePattern, createPattern, type PatternFields } from '../../helpers/eventFixtures.ts';
import type { Client, HttpResponse } from '../../helpers/http.ts';
import { provisionWorkspace, provisioningKey, serviceAccountToken } from '../../helpers/identities.ts';
import type { PatternRow } from '../../../sql/patternProjection.ts';

const provisioning = provisioningKey();
let t: TestApp;
let api: Client;
const patterns: PatternRow[] = [];

const fixtures: PatternFields[] = [
  {
    name: 'Disk full on datanodes',
    status: 'active',
    risk_score: 90,
    issue_count: 12,
    last_seen_at: '2026-01-10T00:00:00Z',
    domain: 'storage',
    root_cause: 'resource_exhaustion',
    top_terms: ['disk', 'full'],
  },
  {
    name: 'NameNode heap exhaustion',
    status: 'watching',
    risk_score: 75,
    issue_count: 30,
    last_seen_at: '2026-01-02T00:00:00Z',
    domain: 'storage',
    root_cause: 'resource_exhaustion',
  },
  {
    name: 'Kerberos token expiry',
    status: 'active',
    risk_score: 75,
    issue_count: 4,
    last_seen_at: '2026-01-12T00:00:00Z',
    domain: 'security',
    root_cause: 'permission_denied',
  },
  {
    name: 'RPC timeouts under load',
    status: 'resolved',
    risk_score: 40,
    issue_count: 8,
    last_seen_at: '2025-12-01T00:00:00Z',
    domain: 'network',
    root_cause: 'timeout',
  },
  { name: 'Flaky TestDFSIO', status: 'resolved', risk_score: 5, issue_count: 3, last_seen_at: null, domain: 'build', root_cause: 'test_flakiness' },
  {
    name: '100% CPU in scheduler_loop',
    status: 'watching',
    risk_score: 0,
    issue_count: 2,
    last_seen_at: '2025-11-20T00:00:00Z',
    domain: 'compute',
    root_cause: null,
  },
  {
    name: 'Config default value wrong',
    status: 'active',
    risk_score: 100,
    issue_count: 8,
    last_seen_at: '2026-01-12T00:00:00Z',
    domain: null,
    root_cause: 'configuration_error',
  },
];

test.before(async () => {
  t = await startTestApp({ env: provisioning.env });
  api = t.platform.as(await demoToken(t));
  for (const fields of fixtures) patterns.push(await createPattern(t.app.pool, t.demo.workspaceId, fields));
});
test.after(async () => t.close());

interface Pattern {
  id: string;
  name: string;
  status: string;
  risk_score: number;
  issue_count: number;
  last_seen_at: string | null;
}

async function listAll(query = '', limit = 100): Promise<Pattern[]> {
  const out: Pattern[] = [];
  let cursor: string | null = null;
  do {
    const res: HttpResponse = await api.get(`/v1/patterns?${query}${query ? '&' : ''}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.is(res.status, 200, res.text);
    out.push(...res.body.data);
    cursor = res.body.page.next_cursor;
  } while (cursor);
  return out;
}
const names = (list: Pattern[]) => list.map((p) => p.name);
const byName = (name: string) => patterns.find((p) => p.name === name)!;

/** The expected order of a sort over the fixture: the key, then id, both in the sort's direction. */
function sorted(field: 'risk_score' | 'issue_count' | 'last_seen_at', descending: boolean): string[] {
  const key = (p: PatternRow) => (field === 'last_seen_at' ? (p.last_seen_at?.getTime() ?? -Infinity) : p[field]);
  const list = [...patterns].sort((a, b) => {
    const d = key(a) - key(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    return descending ? -d : d;
  });
  return list.map((p) => p.name);
}

test('GET /v1/patterns/{id}: the pattern resource; 404 when unknown', async () => {
  const disk = byName('Disk full on datanodes');
  const res = await api.get(`/v1/patterns/${disk.id}`);
  assert.is(res.status, 200, res.text);
  assert.equal(res.body, {
    id: disk.id,
    name: 'Disk full on datanodes',
    status: 'active',
    risk_score: 90,
    issue_count: 12,
    last_seen_at: '2026-01-10T00:00:00.000Z',
    first_seen_at: null,
    fingerprint: { domain: 'storage', root_cause: 'resource_exhaustion' },
    top_terms: ['disk', 'full'],
    // Issue 17: how it was found, its template and examples (none for a pattern the engine did not write).
    path: null,
    template: null,
    examples: [],
    recurrence: null, // no engine run modelled it
    provenance: {},
    // Issue 31: lineage (none for a pattern never merged nor split).
    merged_into: null,
    split_into: [],
    created_at: disk.created_at.toISOString(),
    updated_at: disk.updated_at.toISOString(),
  });
  assertError(await api.get(`/v1/patterns/${randomUUID()}`), 404, 'not_found');
  assertError(await api.get('/v1/patterns/garbage'), 404, 'not_found');

  const other = t.platform.as((await provisionWorkspace(t.platform, provisioning.key, 'pattern-peer')).apiKey);
  assertError(await other.get(`/v1/patterns/${disk.id}`), 404, 'not_found');
  assert.equal((await other.get('/v1/patterns')).body.data, []);
});

test('default order is -risk_score (ties by id), and all six sorts', async () => {
  const res = await api.get('/v1/patterns');
  assert.is(res.status, 200, res.text);
  assert.equal(names(res.body.data), sorted('risk_score', true));
  assert.equal(res.body.page, { next_cursor: null, has_more: false, total: fixtures.length });
  for (const field of ['risk_score', 'issue_count', 'last_seen_at'] as const) {
    assert.equal(names(await listAll(`sort=${field}`)), sorted(field, false), field);
    assert.equal(names(await listAll(`sort=-${field}`)), sorted(field, true), `-${field}`);
  }
  assert.equal(names(await listAll('sort=-last_seen_at')).at(-1), 'Flaky TestDFSIO', 'never-seen patterns sort last when descending');
  assertValidation(await api.get('/v1/patterns?sort=name'), {
    sort: 'must be one of risk_score, -risk_score, issue_count, -issue_count, last_seen_at, -last_seen_at',
  });
});

test('pagination: every sort pages through the same order with next_cursor', async () => {
  for (const sort of ['risk_score', '-risk_score', 'issue_count', '-issue_count', 'last_seen_at', '-last_seen_at']) {
    const whole = names(await listAll(`sort=${sort}`));
    const paged = await listAll(`sort=${sort}`, 2);
    assert.equal(names(paged), whole, sort);
  }
  const first = await api.get('/v1/patterns?limit=3');
  assert.equal(first.body.page.has_more, true);
  assert.is(first.body.page.total, fixtures.length);
  const cursor = encodeURIComponent(first.body.page.next_cursor);
  assertValidation(await api.get(`/v1/patterns?limit=3&cursor=${cursor}&sort=issue_count`), { cursor: 'does not match this query' });
  assertValidation(await api.get(`/v1/patterns?limit=3&cursor=${cursor}&status=active`), { cursor: 'does not match this query' });
  assertValidation(await api.get('/v1/patterns?cursor=eyJzIjoiLXJpc2tfc2NvcmUifQ.c2ln'), { cursor: 'malformed cursor token' });
  const second = await api.get(`/v1/patterns?limit=3&cursor=${cursor}`);
  assert.equal(names(second.body.data), sorted('risk_score', true).slice(3, 6));
});

test('filters: status, domain, search on names', async () => {
  for (const status of ['active', 'resolved', 'watching'] as const) {
    assert.equal(
      names(await listAll(`status=${status}`)).sort(),
      fixtures
        .filter((f) => f.status === status)
        .map((f) => f.name)
        .sort(),
      status,
    );
  }
  assert.equal(names(await listAll('domain=storage')), ['Disk full on datanodes', 'NameNode heap exhaustion']);
  assert.equal(names(await listAll('domain=security')), ['Kerberos token expiry']);
  assert.equal(await listAll('domain=nowhere'), []);
  assert.equal(names(await listAll('domain=storage&status=watching')), ['NameNode heap exhaustion']);

  const search = async (text: string) => names(await listAll(`search=${encodeURIComponent(text)}`)).sort();
  assert.equal(await search('namenode'), ['NameNode heap exhaustion']);
  assert.equal(await search('DATANODE'), ['Disk full on datanodes']);
  assert.equal(await search('token exp'), ['Kerberos token expiry']);
  assert.equal(await search('exhaustion'), ['NameNode heap exhaustion']);
  assert.equal(await search('%'), ['100% CPU in scheduler_loop'], '% is a literal, not a wildcard');
  assert.equal(await search('_'), ['100% CPU in scheduler_loop'], '_ is a literal, not a wildcard');
  assert.equal(await search('heap exhaustion timeout'), []);
  assert.equal(await search('under load'), ['RPC timeouts under load']);
  assert.equal(names(await listAll('search=e&status=resolved&sort=risk_score')), ['Flaky TestDFSIO', 'RPC timeouts under load']);

  assert.is((await api.get(`/v1/patterns?search=${'n'.repeat(200)}`)).status, 200);
  assertValidation(await api.get(`/v1/patterns?search=${'n'.repeat(201)}`), { search: 'must be at most 200 characters' });
  assertValidation(await api.get('/v1/patterns?status=open'), { status: 'must be one of active, resolved, watching' });
});

test('filters: risk_min and risk_max, 0..100 inclusive, risk_max at least risk_min', async () => {
  const risk = async (query: string) => (await listAll(query)).map((p) => p.risk_score);
  assert.equal(await risk('risk_min=75'), [100, 90, 75, 75]);
  assert.equal(await risk('risk_max=40'), [40, 5, 0]);
  assert.equal(await risk('risk_min=40&risk_max=75'), [75, 75, 40]);
  assert.equal(await risk('risk_min=75&risk_max=75'), [75, 75]);
  assert.equal(await risk('risk_min=0&risk_max=100'), [100, 90, 75, 75, 40, 5, 0]);
  assert.equal(await risk('risk_min=100'), [100]);
  assert.equal(await risk('risk_max=0'), [0]);
  assert.equal(await risk('risk_min=41&risk_max=74'), []);

  assertValidation(await api.get('/v1/patterns?risk_min=101'), { risk_min: 'must be at most 100' });
  assertValidation(await api.get('/v1/patterns?risk_max=101'), { risk_max: 'must be at most 100' });
  assertValidation(await api.get('/v1/patterns?risk_min=-1'), { risk_min: 'must be at least 0' });
  assertValidation(await api.get('/v1/patterns?risk_max=-1'), { risk_max: 'must be at least 0' });
  assertValidation(await api.get('/v1/patterns?risk_min=2.5'), { risk_min: 'must be an integer from 0 to 100' });
  assertValidation(await api.get('/v1/patterns?risk_min=high'), { risk_min: 'must be an integer from 0 to 100' });
  assertValidation(await api.get('/v1/patterns?risk_min=60&risk_max=50'), { risk_max: 'must be at least risk_min' });
  assertValidation(await api.get(`/v1/patterns?risk_min=101&risk_max=-1&search=${'s'.repeat(201)}`), {
    risk_min: 'must be at most 100',
    risk_max: 'must be at least 0',
    search: 'must be at most 200 characters',
  });
});

test('the list follows pattern events (updates and status changes)', async () => {
  const rpc = byName('RPC timeouts under load');
  await changePattern(t.app.pool, t.demo.workspaceId, rpc.id, { changes: { risk_score: 95, issue_count: 9, last_seen_at: '2026-02-01T00:00:00Z' } });
  await changePattern(t.app.pool, t.demo.workspaceId, rpc.id, { to: 'active' });
  const res = await api.get(`/v1/patterns/${rpc.id}`);
  assert.is(res.body.risk_score, 95);
  assert.is(res.body.status, 'active');
  assert.is(res.body.last_seen_at, '2026-02-01T00:00:00.000Z');
  assert.equal(names(await listAll('risk_min=91')), ['Config default value wrong', 'RPC timeouts under load']);
  assert.ok(names(await listAll('status=active')).includes('RPC timeouts under load'));
});

test('patterns:read is required', async () => {
  const token = await serviceAccountToken(api, ['issues:read']);
  assertError(await t.platform.get('/v1/patterns', { token }), 403, 'forbidden', { required_scope: 'patterns:read' });
  assertError(await t.platform.get(`/v1/patterns/${patterns[0].id}`, { token }), 403, 'forbidden', { required_scope: 'patterns:read' });
  assertError(await t.platform.get('/v1/patterns'), 401, 'unauthorized');
});

test.run();
