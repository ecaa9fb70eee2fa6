import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { toIssue } from '../../../api/platform/issues/schemas.ts';
import type { StoredEvent } from '../../../sql/events.ts';
import { foldIssues } from '../../../sql/projections.ts';
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

interface FeedRecord {
  sequence: number;
  id: string;
  type: string;
  aggregate_type: string;
  aggregate_id: string;
  payload: Record<string, unknown>;
  actor: { type: string; id: string | null };
  occurred_at: string;
  recorded_at: string;
}

/** A realistic history: ingest, re-ingest, edits, transitions, review decisions, configs, patterns. */
async function makeHistory(tag: string) {
  const batch = await api.post(
    '/v1/ingest/batch',
    {
      records: [
        {
          external_id: `${tag}-1`,
          title: 'Disk full',
          narrative: 'The datanode disk filled up',
          source: 'jira',
          severity: 'p2',
          occurred_at: '2025-10-01T08:00:00Z',
        },
        { external_id: `${tag}-2`, title: 'Heap exhausted', source: 'jira' },
        { external_id: `${tag}-3`, title: 'Placeholder', narrative: 'n/a', source: 'pager', severity: 'low' },
        { external_id: `${tag}-1`, title: 'Disk full on dn7', narrative: 'The datanode disk filled up again', source: 'github' },
      ],
    },
    fresh(),
  );
  assert.is(batch.status, 202, batch.text);
  const [a, b, c, d] = batch.body.issue_ids as string[];
  await api.post(
    '/v1/ingest/events',
    { external_id: `${tag}-1`, title: 'Disk full (re-ingested)', narrative: 'Filled again', source: 'jira', severity: 'critical' },
    fresh(),
  );
  await api.patch(`/v1/issues/${a}`, { status: 'in_progress' });
  await api.patch(`/v1/issues/${a}`, { status: 'resolved', severity: 'high' });
  await api.patch(`/v1/issues/${a}`, { status: 'open', title: 'Disk full (reopened)' });
  const [item] = (await api.get(`/v1/review-queue?issue_id=${b}`)).body.data;
  await api.post(`/v1/review-queue/${item.id}/resolve`, { decision: { narrative: 'The namenode ran out of heap' } });
  await api.post(`/v1/issues/${c}/close`);
  await api.patch(`/v1/issues/${d}`, { narrative: null });
  const created = await api.post('/v1/issues', { title: 'Typed by hand', severity: 'medium', narrative: 'Someone wrote this' });
  await api.post(
    '/v1/configs/cluster/versions',
    { ...(await api.get('/v1/configs/cluster')).body.active.document, k_max: 20 + Math.floor(Math.random() * 10) },
    fresh(),
  );
  const pattern = await createPattern(t.app.pool, t.demo.workspaceId, { name: `Disk pattern ${tag}`, risk_score: 60, issue_count: 1 });
  await assignPattern(t.app.pool, t.demo.workspaceId, created.body.id, pattern.id);
}

async function readFeed(client: Client, query = '', limit = 100): Promise<{ records: FeedRecord[]; pages: number }> {
  const records: FeedRecord[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res: HttpResponse = await client.get(`/v1/workspaces/current/events?limit=${limit}${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.is(res.status, 200, res.text);
    records.push(...res.body.data);
    cursor = res.body.page.next_cursor;
    assert.is(res.body.page.has_more, cursor !== null);
    pages += 1;
  } while (cursor);
  return { records, pages };
}

async function listIssues(): Promise<unknown[]> {
  const out: unknown[] = [];
  let cursor: string | null = null;
  do {
    const res: HttpResponse = await api.get(`/v1/issues?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    out.push(...res.body.data);
    cursor = res.body.page.next_cursor;
  } while (cursor);
  return out;
}

/** A feed record back in the event log's shape (the feed is scoped to the caller's workspace). */
const toStoredEvent = (r: FeedRecord, workspaceId: string): StoredEvent => ({
  workspace_id: workspaceId,
  sequence: r.sequence,
  id: r.id,
  aggregate_type: r.aggregate_type,
  aggregate_id: r.aggregate_id,
  event_type: r.type,
  payload: r.payload,
  actor_type: r.actor.type,
  actor_id: r.actor.id,
  occurred_at: new Date(r.occurred_at),
  recorded_at: new Date(r.recorded_at),
});

test('records carry the documented fields, in gap-free sequence order', async () => {
  await makeHistory('shape');
  const { records } = await readFeed(api);
  assert.ok(records.length >= 20, `${records.length} events`);
  assert.equal(
    records.map((r) => r.sequence),
    records.map((_, i) => i + 1),
  );
  for (const r of records) {
    assert.equal(Object.keys(r).sort(), ['actor', 'aggregate_id', 'aggregate_type', 'id', 'occurred_at', 'payload', 'recorded_at', 'sequence', 'type']);
    assert.equal(Object.keys(r.actor).sort(), ['id', 'type']);
    assert.match(r.id, /^[0-9a-f-]{36}$/);
    assert.match(r.aggregate_id, /^[0-9a-f-]{36}$/);
    assert.ok(['issue', 'pattern', 'review_item', 'config'].includes(r.aggregate_type), r.aggregate_type);
    assert.ok(r.type.startsWith(`${r.aggregate_type}.`), r.type);
    assert.is(new Date(r.occurred_at).toISOString(), r.occurred_at);
    assert.is(new Date(r.recorded_at).toISOString(), r.recorded_at);
    assert.type(r.payload, 'object');
  }
  const types = new Set(records.map((r) => r.type));
  for (const type of [
    'issue.created',
    'issue.reingested',
    'issue.updated',
    'issue.status_changed',
    'issue.pattern_assigned',
    'review_item.opened',
    'review_item.resolved',
    'config.version_created',
    'pattern.created',
  ]) {
    assert.ok(types.has(type), type);
  }
  const { rows } = await t.app.pool.query('select count(*)::int as n from events where workspace_id = $1', [t.demo.workspaceId]);
  assert.is(records.length, rows[0].n);
});

test('pages in sequence order, resumable by next_cursor and by after_sequence', async () => {
  const whole = (await readFeed(api)).records;
  const paged = await readFeed(api, '', 7);
  assert.is(paged.pages, Math.ceil(whole.length / 7));
  assert.equal(paged.records, whole);

  // A consumer stops after a few pages, events keep arriving, and it resumes with its cursor.
  const first = await api.get('/v1/workspaces/current/events?limit=5');
  assert.equal(first.body.data, whole.slice(0, 5));
  assert.is(first.body.page.total, whole.length);
  await makeHistory('resume');
  let cursor: string | null = first.body.page.next_cursor;
  const resumed: FeedRecord[] = [...first.body.data];
  while (cursor) {
    const res: HttpResponse = await api.get(`/v1/workspaces/current/events?limit=5&cursor=${encodeURIComponent(cursor)}`);
    resumed.push(...res.body.data);
    cursor = res.body.page.next_cursor;
  }
  const after = (await readFeed(api)).records;
  assert.ok(after.length > whole.length);
  assert.equal(resumed, after, 'no record skipped or repeated');
  assert.equal(after.slice(0, whole.length), whole, 'earlier records never change');

  // At the end of the feed next_cursor is null; after_sequence (the last applied) picks up new events.
  const last = after.at(-1)!.sequence;
  const tail = await api.get(`/v1/workspaces/current/events?after_sequence=${last}`);
  assert.equal(tail.body, { data: [], page: { next_cursor: null, has_more: false, total: 0 } });
  await api.post('/v1/issues', { title: 'One more', severity: 'low', narrative: 'late' });
  const more = await api.get(`/v1/workspaces/current/events?after_sequence=${last}`);
  assert.equal(
    more.body.data.map((r: FeedRecord) => [r.sequence, r.type]),
    [[last + 1, 'issue.created']],
  );
  const middle = await readFeed(api, `&after_sequence=${whole.length}`, 3);
  assert.equal(middle.records, (await readFeed(api)).records.slice(whole.length));

  const issuesOnly = (await readFeed(api, '&aggregate_type=issue')).records;
  assert.equal(
    issuesOnly,
    (await readFeed(api)).records.filter((r) => r.aggregate_type === 'issue'),
  );
  assertValidation(await api.get('/v1/workspaces/current/events?after_sequence=-1'), { after_sequence: 'must be at least 0' });
  assertValidation(await api.get('/v1/workspaces/current/events?after_sequence=abc'), { after_sequence: 'must be an integer' });
  assertValidation(await api.get('/v1/workspaces/current/events?aggregate_type=user'), { aggregate_type: 'must be an aggregate type' });
  assertValidation(await api.get('/v1/workspaces/current/events?cursor=forged'), { cursor: 'malformed cursor token' });
  const cursorForAll = (await api.get('/v1/workspaces/current/events?limit=2')).body.page.next_cursor;
  assertValidation(await api.get(`/v1/workspaces/current/events?limit=2&aggregate_type=issue&cursor=${encodeURIComponent(cursorForAll)}`), {
    cursor: 'does not match this query',
  });
});

test('replay: folding the feed into an empty store gives the issues of GET /v1/issues', async () => {
  await makeHistory('replay');
  // A fresh client with its own credentials reads the whole feed from the start.
  const consumer = t.platform.as(await serviceAccountToken(api, ['events:read']));
  const { records } = await readFeed(consumer, '', 17);
  const store = await foldIssues(records.filter((r) => r.aggregate_type === 'issue').map((r) => toStoredEvent(r, t.demo.workspaceId)));
  const replayed = [...store.values()].map(toIssue).sort((x, y) => x.id.localeCompare(y.id));
  const live = (await listIssues()).sort((x, y) => (x as { id: string }).id.localeCompare((y as { id: string }).id));
  assert.is(replayed.length, live.length);
  assert.ok(live.length >= 15);
  assert.equal(replayed, live);
  assert.ok(replayed.some((i) => i.pattern_id !== null));
  assert.ok(replayed.some((i) => i.status === 'closed'));
});

test('the feed is scoped to the workspace and needs events:read', async () => {
  const other = await provisionWorkspace(t.platform, provisioning.key, 'feed-peer');
  const them = t.platform.as(other.apiKey);
  const theirs = await them.post('/v1/issues', { title: 'Elsewhere', severity: 'high', narrative: 'another workspace' });
  assert.is(theirs.status, 201, theirs.text);
  const theirFeed = (await readFeed(them)).records;
  assert.equal(
    theirFeed.map((r) => [r.sequence, r.type, r.aggregate_id]),
    [[1, 'issue.created', theirs.body.id]],
    'sequences are per workspace',
  );
  assert.ok(!(await readFeed(api)).records.some((r) => r.aggregate_id === theirs.body.id));

  const reader = t.platform.as(await serviceAccountToken(api, ['issues:read']));
  assertError(await reader.get('/v1/workspaces/current/events'), 403, 'forbidden', { required_scope: 'events:read' });
  assertError(await t.platform.get('/v1/workspaces/current/events'), 401, 'unauthorized');
});

test.run();
