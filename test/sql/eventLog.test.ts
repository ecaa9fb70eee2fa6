import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withTransaction } from '../../lib/db.ts';
import { EventBatch, withEventBatch, type StoredEvent } from '../../sql/events.ts';
import { ingestIssues } from '../../usecases/ingestRecords.ts';
import { foldIssues, rebuildProjections } from '../../sql/projections.ts';
import { createEngineRun, executeEngineRun } from '../../usecases/runEngine.ts';
import { generateIssues } from '../../fixtures/synthetic.ts';
import { insertOrganization, insertWorkspace } from '../../sql/workspaces.ts';
import { demoToken, startTestApp, type TestApp } from '../helpers/app.ts';
import { fresh } from '../helpers/errors.ts';
import { assignPattern, changePattern, createPattern } from '../helpers/eventFixtures.ts';
import type { Client, HttpResponse } from '../helpers/http.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let t: TestApp;
let api: Client;
test.before(async () => {
  t = await startTestApp();
  api = t.platform.as(await demoToken(t));
});
test.after(async () => t.close());

/** Runs the real CLI (`node scripts/svc.js …`) against the test database. */
function svc(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(root, 'scripts/svc.js'), ...args],
      { cwd: root, env: { ...process.env, DATABASE_URL: t.db.url, LOG_LEVEL: 'warn', NODE_ENV: 'test' }, timeout: 30_000 },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** Both projections of a workspace, every column (the generated tsvector too), ordered by id. */
async function projections(workspaceId: string) {
  const issues = await t.app.pool.query(`select *, search::text as search_text from issues where workspace_id = $1 order by id`, [workspaceId]);
  const patterns = await t.app.pool.query(`select * from patterns where workspace_id = $1 order by id`, [workspaceId]);
  return { issues: issues.rows, patterns: patterns.rows };
}

async function sequences(workspaceId: string): Promise<number[]> {
  const { rows } = await t.app.pool.query<{ sequence: number }>('select sequence from events where workspace_id = $1 order by sequence', [workspaceId]);
  return rows.map((r) => r.sequence);
}

async function expectDbError(sql: string, params: unknown[]): Promise<{ code: string; message: string }> {
  try {
    await t.app.pool.query(sql, params);
  } catch (err) {
    return err as { code: string; message: string };
  }
  throw new Error(`expected ${sql} to fail`);
}

/** Another organization and workspace with a few issues, written through sql/issues.ts. */
async function otherWorkspace(): Promise<string> {
  return withTransaction(t.app.pool, async (client) => {
    const org = (await insertOrganization(client, { slug: `other-${randomUUID().slice(0, 8)}`, name: 'Other', plan: 'free' }))!;
    const ws = await insertWorkspace(client, org.id, 'Other workspace');
    const events = await EventBatch.start(client, ws.id);
    await ingestIssues(
      client,
      events,
      { type: 'system', id: null },
      [
        { source: 'jira', external_id: 'o1', title: 'Other one', narrative: 'elsewhere', severity: 'high', occurred_at: null },
        { source: 'jira', external_id: 'o2', title: 'Other two', narrative: null, severity: 'low', occurred_at: null },
      ],
      'api',
    );
    await events.flush();
    return ws.id;
  });
}

test('events are append-only: UPDATE and DELETE raise, even for the table owner', async () => {
  const created = await api.post('/v1/issues', { title: 'Immutable history', severity: 'low', narrative: 'x' });
  assert.is(created.status, 201, created.text);
  const { rows: owner } = await t.app.pool.query<{ owner: string; me: string }>(
    `select tableowner as owner, current_user as me from pg_tables where tablename = 'events'`,
  );
  assert.is(owner[0].owner, owner[0].me, 'the test connects as the owner of events');

  const ws = t.demo.workspaceId;
  const update = await expectDbError(`update events set payload = '{}' where workspace_id = $1`, [ws]);
  assert.is(update.code, '23001');
  assert.is(update.message, 'events is append-only: UPDATE is not allowed');
  const single = await expectDbError(`update events set event_type = 'issue.deleted' where workspace_id = $1 and sequence = 1`, [ws]);
  assert.is(single.code, '23001');
  const del = await expectDbError('delete from events where workspace_id = $1', [ws]);
  assert.is(del.code, '23001');
  assert.is(del.message, 'events is append-only: DELETE is not allowed');
  const counters = await expectDbError(`update events set sequence = sequence + 1000 where workspace_id = $1`, [ws]);
  assert.is(counters.code, '23001');
  assert.equal(await sequences(ws), [1]);

  // Rows leave only with their workspace (the cascade of deleting it).
  const other = await otherWorkspace();
  assert.ok((await sequences(other)).length > 0);
  await t.app.pool.query('delete from workspaces where id = $1', [other]);
  assert.equal(await sequences(other), []);
});

test("withEventBatch: the batch's clock is its transaction's now(), and the body runs inside that transaction", async () => {
  const ws = await otherWorkspace();
  const seen = await withEventBatch(t.app.pool, ws, async (client, events) => {
    const { rows } = await client.query<{ now: Date; in_block: boolean }>(
      `select date_trunc('milliseconds', now()) as now, now() < statement_timestamp() as in_block`,
    );
    return { recordedAt: events.recordedAt, now: rows[0].now, inBlock: rows[0].in_block };
  });
  assert.equal(seen.recordedAt, seen.now);
  assert.ok(seen.inBlock, 'the body ran in the transaction the BEGIN opened');
});

test('sequences are gap-free and unique per workspace under concurrent writers', async () => {
  const before = (await sequences(t.demo.workspaceId)).length;
  const existing: string[] = [];
  for (let i = 0; i < 4; i++) existing.push((await api.post('/v1/issues', { title: `Concurrent target ${i}`, severity: 'low', narrative: 'x' })).body.id);

  const batch = (b: number) =>
    Array.from({ length: 50 }, (_, i) => {
      // Five keys are shared by every batch: concurrent re-ingests of the same issues.
      const key = i < 5 ? `shared-${i}` : `b${b}-${i}`;
      return {
        external_id: key,
        title: `Batch ${b} record ${i}`,
        source: 'load',
        ...(i % 7 === 0 ? {} : { narrative: `Narrative ${b}/${i}` }),
        severity: ['p1', 'p2', 'p3', 'p4'][i % 4],
      };
    });
  const requests: Array<Promise<HttpResponse>> = [];
  for (let b = 0; b < 10; b++) {
    requests.push(api.post('/v1/ingest/batch', { records: batch(b) }, fresh()));
    requests.push(api.patch(`/v1/issues/${existing[b % 4]}`, { title: `Renamed by writer ${b}` }));
    if (b % 3 === 0) requests.push(api.post('/v1/ingest/events', { external_id: `single-${b}`, title: 'single', source: 'load' }, fresh()));
  }
  requests.push(api.patch(`/v1/issues/${existing[0]}`, { status: 'in_progress' }));
  requests.push(api.post(`/v1/issues/${existing[1]}/close`));
  const responses = await Promise.all(requests);
  for (const res of responses) assert.ok([200, 202].includes(res.status), `${res.status} ${res.text}`);

  const all = await sequences(t.demo.workspaceId);
  assert.equal(
    all,
    all.map((_, i) => i + 1),
    'exactly 1..N',
  );
  const { rows } = await t.app.pool.query<{ n: number; ids: number; last: number }>(
    `select count(*)::int as n, count(distinct id)::int as ids,
            (select last_sequence from workspace_event_counters where workspace_id = $1)::int as last
       from events where workspace_id = $1`,
    [t.demo.workspaceId],
  );
  assert.is(rows[0].n, all.length);
  assert.is(rows[0].ids, all.length);
  assert.is(rows[0].last, all.length, 'the counter stands at the last sequence');
  assert.ok(all.length - before >= 10 * 45 + 10 + 4, `${all.length - before} events written`);

  const shared = await t.app.pool.query(`select external_id, version from issues where source = 'load' and external_id like 'shared-%' order by external_id`);
  assert.is(shared.rowCount, 5, 'concurrent re-ingests never duplicate an issue');
  assert.ok(
    shared.rows.every((r) => r.version === 10),
    'each shared issue: created once, re-ingested nine times',
  );
});

test('concurrent ingests creating the same new keys: one issue per key, gap-free sequences, projection = rebuild', async () => {
  const ws = t.demo.workspaceId;
  // Writers of every kind run at once: none takes the event counter before its last statement, so
  // transactions that create the same new (source, external_id) meet at the unique index, and the
  // loser is retried as a re-ingest.
  const edited = (await api.post('/v1/issues', { title: 'Edited while ingests run', severity: 'low', narrative: 'x' })).body.id as string;
  const blocked = await api.post('/v1/ingest/events', { external_id: 'race-blocked', source: 'race', title: 'Blocked before the race' }, fresh());
  const [item] = (await api.get(`/v1/review-queue?issue_id=${blocked.body.issue_id}&kind=missing_narrative`)).body.data;
  assert.ok(item, 'the blocked issue has its missing-narrative item');

  const SHARED = 40;
  const BATCHES = 8;
  const sharedKey = (k: number) => `race-${String(k).padStart(2, '0')}`;
  const batch = (b: number) => {
    // Every batch holds all the shared new keys, each in another order, plus keys of its own; odd
    // batches bring narratives, even ones do not (so review items open and close under the race).
    const order = Array.from({ length: SHARED }, (_, k) => (k * [1, 3, 7, 9, 11, 13, 17, 19][b] + 5 * b) % SHARED); // a permutation: each factor is prime to 40
    const shared = order.map((k) => ({
      external_id: sharedKey(k),
      source: 'race',
      title: `Shared ${k} from batch ${b}`,
      ...(b % 2 ? { narrative: `Told by batch ${b}` } : {}),
    }));
    const own = Array.from({ length: 20 }, (_, i) => ({
      external_id: `race-own-${b}-${i}`,
      source: 'race',
      title: `Own ${i} of batch ${b}`,
      narrative: 'own',
    }));
    return [
      ...shared.slice(0, SHARED / 2),
      ...own,
      ...shared.slice(SHARED / 2),
      { external_id: 'race-blocked', source: 'race', title: `Blocked, batch ${b}`, ...(b % 2 ? { narrative: 'now told' } : {}) },
    ];
  };
  for (let b = 0; b < BATCHES; b++) assert.is(new Set(batch(b).map((r) => r.external_id)).size, SHARED + 21, `batch ${b} holds every shared key once`);
  const before = await sequences(ws);
  const requests: Array<Promise<HttpResponse>> = [];
  for (let b = 0; b < BATCHES; b++) {
    requests.push(api.post('/v1/ingest/batch', { records: batch(b) }, fresh()));
    requests.push(api.post('/v1/issues', { source: 'race', external_id: sharedKey((b * 7) % SHARED), title: `Typed in by writer ${b}`, severity: 'high' }));
    requests.push(api.patch(`/v1/issues/${edited}`, { title: `Renamed by writer ${b}` }));
  }
  const resolve = api.post(`/v1/review-queue/${item.id}/resolve`, { decision: { narrative: 'Supplied by a reviewer during the race' } });
  const rebuild = withTransaction(t.app.pool, (client) => rebuildProjections(client, ws));
  const responses = await Promise.all(requests);
  for (const res of responses) assert.ok([200, 201, 202].includes(res.status), `${res.status} ${res.text}`);
  assert.ok([200, 409].includes((await resolve).status), 'the reviewer resolves the item, or a batch with a narrative closed it first');
  await rebuild;

  // One issue per key, and every request that named a key got that issue's id.
  const { rows: raced } = await t.app.pool.query<{ external_id: string; id: string; version: number; created: number; touched: number }>(
    `select i.external_id, i.id, i.version,
            (select count(*)::int from events e where e.workspace_id = $1 and e.aggregate_id = i.id and e.event_type = 'issue.created') as created,
            (select count(*)::int from events e where e.workspace_id = $1 and e.aggregate_id = i.id and e.aggregate_type = 'issue') as touched
       from issues i where i.workspace_id = $1 and i.source = 'race' and i.external_id like 'race-__' order by i.external_id`,
    [ws],
  );
  assert.equal(
    raced.map((r) => r.external_id),
    Array.from({ length: SHARED }, (_, k) => sharedKey(k)),
    'exactly one issue per shared key',
  );
  const idOf = new Map(raced.map((r) => [r.external_id, r.id]));
  for (let b = 0; b < BATCHES; b++) {
    const ids = responses[3 * b].body.issue_ids as string[];
    batch(b).forEach((record, i) => {
      if (idOf.has(record.external_id)) assert.is(ids[i], idOf.get(record.external_id), `batch ${b} record ${i}`);
    });
    const single = responses[3 * b + 1];
    assert.is(single.body.id, idOf.get(sharedKey((b * 7) % SHARED)));
  }
  for (const r of raced) {
    assert.is(r.created, 1, `${r.external_id}: created once`);
    const posts = Array.from({ length: BATCHES }, (_, b) => (b * 7) % SHARED).filter((k) => sharedKey(k) === r.external_id).length;
    assert.is(r.touched, BATCHES + posts, `${r.external_id}: one event per writer`);
    assert.is(r.version, r.touched, `${r.external_id}: the row folds every event`);
  }
  const own = await t.app.pool.query(`select count(*)::int as n from issues where workspace_id = $1 and source = 'race' and external_id like 'race-own-%'`, [
    ws,
  ]);
  assert.is(own.rows[0].n, BATCHES * 20);

  // Gap-free, unique, the counter at the end; every write landed.
  const all = await sequences(ws);
  assert.equal(
    all,
    all.map((_, i) => i + 1),
    'exactly 1..N',
  );
  const counter = await t.app.pool.query('select last_sequence::int as last from workspace_event_counters where workspace_id = $1', [ws]);
  assert.is(counter.rows[0].last, all.length);
  assert.ok(all.length - before.length >= BATCHES * (SHARED + 21) + 2 * BATCHES, `${all.length - before.length} events written`);

  // The review queue followed the issues: an open missing-narrative item exactly for the blocked ones.
  const { rows: mismatched } = await t.app.pool.query(
    `select i.id, i.engine_status, (select count(*)::int from review_items r where r.issue_id = i.id and r.kind = 'missing_narrative' and r.status = 'open') as open_items
       from issues i where i.workspace_id = $1 and i.source = 'race'
     except
     select i.id, i.engine_status, case when i.engine_status = 'blocked_no_narrative' then 1 else 0 end from issues i where i.workspace_id = $1 and i.source = 'race'`,
    [ws],
  );
  assert.equal(mismatched, []);

  // The live projection is exactly the fold of the log: a rebuild changes nothing.
  const live = await projections(ws);
  const renamed = live.issues.find((r) => r.id === edited)!;
  assert.match(renamed.title, /^Renamed by writer \d$/);
  assert.is(renamed.version, 1 + BATCHES, 'every rename folded on top of the previous one');
  await withTransaction(t.app.pool, (client) => rebuildProjections(client, ws));
  assert.equal(await projections(ws), live);
});

test("an ingest that loses the race for a new key is retried and re-ingests the winner's issue", async () => {
  const ws = t.demo.workspaceId;
  // The winner: a transaction that has written the new key but not yet committed.
  const winner = await t.app.pool.connect();
  try {
    await winner.query('begin');
    const events = await EventBatch.start(winner, ws);
    const won = await ingestIssues(
      winner,
      events,
      { type: 'system', id: null },
      [{ source: 'race', external_id: 'held', title: 'First', narrative: 'first', severity: 'low', occurred_at: null }],
      'ingest',
    );
    // The loser: its insert of the same key waits for the winner at the unique index.
    const loser = api.post(
      '/v1/ingest/batch',
      {
        records: [
          { external_id: 'held', source: 'race', title: 'Second', narrative: 'second' },
          { external_id: 'held-other', source: 'race', title: 'Other' },
        ],
      },
      fresh(),
    );
    for (let waited = 0; ; waited += 20) {
      const { rows } = await t.app.pool.query(
        `select 1 from pg_locks l join pg_stat_activity a on a.pid = l.pid where not l.granted and l.locktype = 'transactionid' and a.datname = current_database()`,
      );
      if (rows.length) break;
      assert.ok(waited < 10_000, 'the loser never waited for the winner');
      await new Promise((r) => setTimeout(r, 20));
    }
    await events.flush();
    await winner.query('commit');

    const res = await loser;
    assert.is(res.status, 202, res.text);
    assert.is(res.body.issue_ids[0], won.results[0].issue_id, "the retry found the winner's issue");
    const { rows } = await t.app.pool.query(
      `select title, version from issues where workspace_id = $1 and source = 'race' and external_id in ('held', 'held-other') order by external_id`,
      [ws],
    );
    assert.equal(
      rows,
      [
        { title: 'Second', version: 2 },
        { title: 'Other', version: 1 },
      ],
      'created by the winner, re-ingested by the loser; no duplicate',
    );
    const history = await t.app.pool.query(`select event_type from events where workspace_id = $1 and aggregate_id = $2 order by sequence`, [
      ws,
      won.results[0].issue_id,
    ]);
    assert.equal(
      history.rows.map((r) => r.event_type),
      ['issue.created', 'issue.reingested'],
    );
  } finally {
    await winner.query('rollback').catch(() => {});
    winner.release();
  }
});

test('ingestIssues answers one result per record, in record order: a repeated key shares its issue, records without a key each get one', async () => {
  const ws = await otherWorkspace();
  const system = { type: 'system', id: null } as const;
  const record = (externalId: string | null, title: string) => ({
    source: 'jira',
    external_id: externalId,
    title,
    narrative: 'a narrative',
    severity: 'medium' as const,
    occurred_at: null,
  });
  const { results } = await withTransaction(t.app.pool, async (client) => {
    const events = await EventBatch.start(client, ws);
    const outcome = await ingestIssues(
      client,
      events,
      system,
      [record('n1', 'first of n1'), record(null, 'no key A'), record('o1', 'known key'), record('n1', 'last of n1'), record(null, 'no key B')],
      'api',
    );
    await events.flush();
    return outcome;
  });
  assert.is(results.length, 5);
  assert.is(results[0].issue_id, results[3].issue_id, 'both records of n1 are one issue');
  assert.equal(
    results.map((r) => r.created),
    [true, true, false, true, true],
    'o1 existed (otherWorkspace); the others are new',
  );
  assert.is(new Set(results.map((r) => r.issue_id)).size, 4, 'n1, o1 and one issue per record without a key');
  const titles = await t.app.pool.query<{ id: string; title: string }>('select id, title from issues where id = any($1)', [results.map((r) => r.issue_id)]);
  const titleOf = new Map(titles.rows.map((r) => [r.id, r.title]));
  assert.equal(
    results.map((r) => titleOf.get(r.issue_id)),
    ['last of n1', 'no key A', 'known key', 'last of n1', 'no key B'],
    'the last record of a key wins; each result points at its own issue',
  );
});

test('svc projections rebuild leaves issues and patterns equal to the live projections', async () => {
  const ws = t.demo.workspaceId;
  // History: ingest (with a blocked and an ineligible record), re-ingests, edits, every transition.
  const batch = await api.post(
    '/v1/ingest/batch',
    {
      records: [
        { external_id: 'h1', source: 'jira', title: 'Disk full', narrative: 'The disk filled', severity: 'p2', occurred_at: '2025-09-01T10:00:00Z' },
        { external_id: 'h2', source: 'jira', title: 'Heap exhausted' },
        { external_id: 'h3', source: 'pager', title: 'Placeholder', narrative: 'n/a' },
        { external_id: 'h4', source: 'github', title: 'Flaky test', body: 'Fails one run in ten', severity: 'sev4' },
      ],
    },
    fresh(),
  );
  const [h1, h2, h3, h4] = batch.body.issue_ids as string[];
  await api.post(
    '/v1/ingest/events',
    { external_id: 'h1', source: 'jira', title: 'Disk full (again)', narrative: 'It filled again', severity: 'critical', occurred_at: '2025-09-03T10:00:00Z' },
    fresh(),
  );
  await api.post('/v1/ingest/events', { external_id: 'h2', source: 'jira', title: 'Heap exhausted', narrative: 'The namenode heap filled' }, fresh());
  await api.patch(`/v1/issues/${h1}`, { title: 'Disk full on dn7', severity: 'high' });
  await api.patch(`/v1/issues/${h1}`, { status: 'in_progress' });
  await api.patch(`/v1/issues/${h1}`, { status: 'resolved' });
  await api.patch(`/v1/issues/${h1}`, { status: 'open', narrative: 'Reopened: it filled a third time' });
  await api.patch(`/v1/issues/${h2}`, { status: 'in_progress' });
  await api.patch(`/v1/issues/${h2}`, { status: 'resolved' });
  await api.post(`/v1/issues/${h2}/close`);
  await api.patch(`/v1/issues/${h3}`, { narrative: 'A real description now' });
  await api.post(`/v1/issues/${h4}/close`);
  await api.patch(`/v1/issues/${h4}`, { narrative: null });
  const manual = (await api.post('/v1/issues', { title: 'Typed in', severity: 'medium' })).body.id;
  const [item] = (await api.get(`/v1/review-queue?issue_id=${manual}`)).body.data;
  await api.post(`/v1/review-queue/${item.id}/resolve`, { decision: { narrative: 'Supplied by a reviewer' } });
  const disk = await createPattern(t.app.pool, ws, {
    name: 'Disk full',
    risk_score: 80,
    issue_count: 2,
    first_seen_at: '2025-09-01T10:00:00Z',
    last_seen_at: '2025-09-03T10:00:00Z',
    domain: 'storage',
    root_cause: 'resource_exhaustion',
    top_terms: ['disk', 'full'],
    provenance: { run_id: 'r1' },
  });
  const flaky = await createPattern(t.app.pool, ws, { name: 'Flaky tests', risk_score: 10, issue_count: 1, domain: 'build' });
  await changePattern(t.app.pool, ws, disk.id, { changes: { risk_score: 85, issue_count: 3, top_terms: ['disk', 'full', 'volume'] } });
  await changePattern(t.app.pool, ws, flaky.id, { to: 'resolved' });
  await changePattern(t.app.pool, ws, flaky.id, { to: 'watching' });
  await assignPattern(t.app.pool, ws, h1, disk.id);
  await assignPattern(t.app.pool, ws, h3, disk.id);
  await assignPattern(t.app.pool, ws, h3, flaky.id);
  await assignPattern(t.app.pool, ws, manual, flaky.id);
  await assignPattern(t.app.pool, ws, manual, null);

  const other = await otherWorkspace();
  const otherBefore = await projections(other);
  const live = await projections(ws);
  assert.ok(live.issues.length > 400, `${live.issues.length} issues`);
  assert.is(live.patterns.length, 2);
  assert.ok(live.issues.some((r) => r.status === 'closed' && r.resolved_at !== null));
  assert.ok(live.issues.some((r) => r.pattern_id === disk.id));

  const run = await svc('projections', 'rebuild', '--workspace', ws);
  assert.is(run.code, 0, run.stderr);
  assert.is(run.stdout, `rebuilt ${live.issues.length} issues and 2 patterns of workspace ${ws}\n`);
  const rebuilt = await projections(ws);
  assert.equal(rebuilt.issues, live.issues);
  assert.equal(rebuilt.patterns, live.patterns);
  assert.equal(await projections(other), otherBefore, 'other workspaces are untouched');
  const items = await t.app.pool.query('select count(*)::int as n from review_items where workspace_id = $1', [ws]);
  assert.ok(items.rows[0].n > 0, 'review items survive a rebuild');
});

test('a rebuild restores corrupted projection rows', async () => {
  const ws = t.demo.workspaceId;
  const live = await projections(ws);
  const [victim, deleted] = live.issues.filter((r) => r.pattern_id !== null);
  const unreviewed = live.issues.find((r) => r.id !== victim.id && r.engine_status === 'eligible' && r.pattern_id === null)!;
  const [pattern, lostPattern] = live.patterns;
  const other = await otherWorkspace();
  const otherBefore = await projections(other);

  // The rows behind the view `issues`: the issue records and their patterns.
  await t.app.pool.query(
    `update issue_records set title = 'corrupted', narrative = 'nonsense words', status = 'closed', severity = 'low', engine_status = 'ineligible',
            version = 999, updated_at = now() where id = $1`,
    [victim.id],
  );
  await t.app.pool.query('delete from issue_patterns where issue_id = $1', [victim.id]);
  await t.app.pool.query(`insert into issue_patterns (issue_id, pattern_id) values ($1, $2)`, [unreviewed.id, randomUUID()]);
  await t.app.pool.query(`update issue_records set created_at = '2000-01-01', source_created_at = '2000-01-01', closed_at = now() where id = $1`, [
    unreviewed.id,
  ]);
  assert.is((await t.app.pool.query(`select 1 from review_items where issue_id = $1`, [deleted.id])).rowCount, 0, 'deleting this row loses no review item');
  await t.app.pool.query('delete from issue_records where id = $1', [deleted.id]);
  await t.app.pool.query(
    `insert into issue_records (id, workspace_id, source, title, severity, status, engine_status, source_created_at, created_at, updated_at, version)
     values ($1, $2, 'ghost', 'No event wrote me', 'low', 'open', 'eligible', now(), now(), now(), 1)`,
    [randomUUID(), ws],
  );
  await t.app.pool.query(`update patterns set risk_score = 1, name = 'corrupted', top_terms = '{}', provenance = '{"x":1}' where id = $1`, [pattern.id]);
  await t.app.pool.query('delete from patterns where id = $1', [lostPattern.id]);
  await t.app.pool.query(`update issue_records set title = 'corrupted too' where workspace_id = $1`, [other]);
  assert.not.equal(await projections(ws), live);

  const run = await svc('projections', 'rebuild', '--workspace', ws);
  assert.is(run.code, 0, run.stderr);
  const rebuilt = await projections(ws);
  assert.equal(rebuilt.issues, live.issues);
  assert.equal(rebuilt.patterns, live.patterns);
  const otherNow = await projections(other);
  assert.ok(
    otherNow.issues.every((r) => r.title === 'corrupted too'),
    'only the named workspace is rebuilt',
  );
  assert.is(otherNow.issues.length, otherBefore.issues.length);

  // The API serves the restored rows.
  const restored = await api.get(`/v1/issues/${victim.id}`);
  assert.is(restored.body.title, victim.title);
  assert.is(restored.body.pattern_id, victim.pattern_id);
});

test('svc projections: clear errors and a non-zero exit on bad input', async () => {
  // One at a time: each is a whole process start, and the machine has two cores.
  const missing = await svc('projections', 'rebuild');
  const badUuid = await svc('projections', 'rebuild', '--workspace', 'Not A UUID');
  const almostUuid = await svc('projections', 'rebuild', '--workspace', 'a'.repeat(36));
  const unknown = await svc('projections', 'rebuild', '--workspace', '00000000-0000-4000-8000-000000000000');
  const action = await svc('projections', 'replay', '--workspace', t.demo.workspaceId);
  const noAction = await svc('projections', '--workspace', t.demo.workspaceId);
  const help = await svc('projections', '--help');
  const usage = 'Usage: svc projections rebuild --workspace <workspace> [--json]';
  // A malformed command line repeats the usage; a well-formed one naming what does not exist does not.
  const check = (r: { code: number; stdout: string; stderr: string }, message: string, withUsage = true) => {
    assert.is(r.code, 2, `${message}: ${r.stderr}`);
    assert.ok(r.stderr.startsWith(`svc projections: ${message}\n`), r.stderr);
    assert.is(r.stderr.includes(usage), withUsage, r.stderr);
    assert.is(r.stdout, '');
  };
  check(missing, '--workspace is required');
  check(badUuid, '--workspace must be a workspace id (UUID) or an organization slug');
  // Not a UUID, so read as an organization slug.
  check(almostUuid, `no organization '${'a'.repeat(36)}'`, false);
  check(unknown, 'workspace 00000000-0000-4000-8000-000000000000 does not exist', false);
  check(action, "unknown action 'replay'");
  check(noAction, 'an action is required (rebuild)');
  assert.is(help.code, 0);
  assert.ok(help.stdout.startsWith(usage), help.stdout);
  const extra = await svc('projections', 'rebuild', 'now', '--workspace', t.demo.workspaceId);
  check(extra, "unexpected argument 'now'");
});

test('an engine run writes its results while its issues are re-ingested and edited: no update is lost', async () => {
  const ws = t.demo.workspaceId;
  const generated = generateIssues(300, 5, 4);
  const record = (g: (typeof generated)[number], round: number, i: number) => ({
    external_id: g.external_id,
    source: 'engine-race',
    title: round ? `${g.title} (round ${round})` : g.title,
    // Every third round some lose their narrative (blocked: pattern cleared, review item), then get it back.
    ...(round % 3 === 2 && i % 4 === 0 ? {} : { narrative: g.narrative }),
    severity: g.severity,
    occurred_at: g.occurred_at,
  });
  const ingested = await api.post('/v1/ingest/batch', { records: generated.map((g, i) => record(g, 0, i)) }, fresh());
  assert.is(ingested.status, 202, ingested.text);
  const ids = ingested.body.issue_ids as string[];

  const run = await withTransaction(t.app.pool, (client) => createEngineRun(client, t.app, { workspaceId: ws, trigger: 'cli' }));
  let finished = false;
  const execution = executeEngineRun(t.app, run.id, ws, () => {}).finally(() => (finished = true));
  let rounds = 0;
  while (!finished) {
    rounds++;
    const from = (rounds * 60) % generated.length;
    const responses = await Promise.all([
      api.post('/v1/ingest/batch', { records: generated.slice(from, from + 60).map((g, i) => record(g, rounds, from + i)) }, fresh()),
      api.patch(`/v1/issues/${ids[(rounds * 7) % ids.length]}`, { severity: rounds % 2 ? 'low' : 'critical' }),
    ]);
    for (const res of responses) assert.ok([200, 202].includes(res.status), `${res.status} ${res.text}`);
  }
  const result = await execution;
  assert.ok(result.run.finished_at, 'the run finished');
  assert.ok(result.summary.applied && result.summary.applied.patterns_created > 0, JSON.stringify(result.summary));
  assert.ok(rounds > 1, `${rounds} rounds of writes ran during the engine run`);

  // Every issue row is the fold of all its events, whoever wrote them: its version counts its own changes
  // (a pattern assignment is not one) and its pattern is the one its events leave it with.
  const { rows: lost } = await t.app.pool.query(
    `select i.id, i.version, (select count(*)::int from events e where e.workspace_id = $1 and e.aggregate_type = 'issue' and e.aggregate_id = i.id
                                and e.event_type <> 'issue.pattern_assigned') as events
       from issues i where i.workspace_id = $1 and i.source = 'engine-race'
      and i.version <> (select count(*) from events e where e.workspace_id = $1 and e.aggregate_type = 'issue' and e.aggregate_id = i.id
                          and e.event_type <> 'issue.pattern_assigned')`,
    [ws],
  );
  assert.equal(lost, []);
  const folded = await foldIssues(
    (await t.app.pool.query<StoredEvent>(`select * from events where workspace_id = $1 and aggregate_type = 'issue' order by sequence`, [ws])).rows,
  );
  const { rows: stored } = await t.app.pool.query<{ id: string; pattern_id: string | null }>(
    `select id, pattern_id from issues where workspace_id = $1 and source = 'engine-race'`,
    [ws],
  );
  assert.equal(
    stored.filter((r) => folded.get(r.id)!.pattern_id !== r.pattern_id),
    [],
    'every stored pattern is the folded one',
  );
  const assigned = await t.app.pool.query(
    `select count(*)::int as n from issues where workspace_id = $1 and source = 'engine-race' and pattern_id is not null`,
    [ws],
  );
  assert.ok(assigned.rows[0].n > 0, 'the run assigned patterns');
  const all = await sequences(ws);
  assert.equal(
    all,
    all.map((_, i) => i + 1),
    'exactly 1..N',
  );
  const live = await projections(ws);
  await withTransaction(t.app.pool, (client) => rebuildProjections(client, ws));
  assert.equal(await projections(ws), live, 'issues and patterns equal their rebuild');
});

test.run();
