/**
 * List endpoints (cross-cutting rule 6, Limits), through GET /v1/jobs over job_runs rows inserted
 * directly: `limit` 1..100 (default 25), `sort` with `-` for descending (default newest first),
 * opaque cursors that walk every row exactly once, 400 `malformed cursor token` for a modified or
 * fabricated cursor, and `page.total` exact up to 10000 rows and estimated above.
 * Each test uses its own job `kind` (a filter of the endpoint), so the data sets do not mix.
 */
import { randomBytes } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { demoToken, startTestApp, type TestApp } from '../../helpers/app.ts';
import type { HttpResponse } from '../../helpers/http.ts';

let t: TestApp;
let token: string;
test.before(async () => {
  t = await startTestApp();
  token = await demoToken(t);
});
test.after(async () => t.close());

/** Inserts `count` job runs of `kind`, the g-th (1-based) created at `createdAt(g)` (a SQL expression of g). */
async function insertJobs(kind: string, count: number, createdAt = `timestamptz '2024-01-01T00:00:00Z' + g * interval '1 second'`) {
  await t.app.pool.query(
    `insert into job_runs (kind, workspace_id, status, created_at, updated_at)
     select $1, $2, 'succeeded', ${createdAt}, ${createdAt} from generate_series(1, $3::int) g`,
    [kind, t.demo.workspaceId, count],
  );
}

/** Ids of `kind` in the order the API must list them. */
async function expectedIds(kind: string, direction: 'asc' | 'desc'): Promise<string[]> {
  const { rows } = await t.app.pool.query<{ id: string }>(
    `select id from job_runs where workspace_id = $1 and kind = $2 order by created_at ${direction}, id ${direction}`,
    [t.demo.workspaceId, kind],
  );
  return rows.map((r) => r.id);
}

const list = (query: string) => t.platform.get(`/v1/jobs?${query}`, { token });

function assertValidationError(res: HttpResponse, detailKey?: string) {
  assert.is(res.status, 400, res.text);
  assert.is(res.body.error.code, 'validation_error');
  assert.is(res.body.error.trace_id, res.headers.get('x-request-id'));
  if (detailKey) assert.type(res.body.error.details?.[detailKey], 'string', res.text);
}

function assertMalformedCursor(res: HttpResponse) {
  assertValidationError(res);
  assert.is(res.body.error.message, 'malformed cursor token');
}

/** Follows next_cursor from the first page to the last, checking each page's shape on the way. */
async function walk(query: string, limit: number, expectedTotal: number): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res: HttpResponse = await list(`${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.is(res.status, 200, res.text);
    pages++;
    const { data, page } = res.body;
    assert.is(page.total, expectedTotal);
    ids.push(...data.map((job: { id: string }) => job.id));
    if (page.has_more) {
      assert.is(data.length, limit);
      assert.type(page.next_cursor, 'string');
    } else {
      assert.is(page.next_cursor, null);
      assert.ok(data.length >= 1 || ids.length === 0, 'no empty trailing page');
    }
    cursor = page.next_cursor;
    assert.ok(pages <= 1000, 'pagination ends');
  } while (cursor);
  return { ids, pages };
}

// --- limit ------------------------------------------------------------------------------------------

test('limit: default 25, min 1, max 100', async () => {
  await insertJobs('limits', 120);
  const byDefault = await list('kind=limits');
  assert.is(byDefault.status, 200, byDefault.text);
  assert.is(byDefault.body.data.length, 25);
  assert.equal(byDefault.body.page.has_more, true);
  assert.is(byDefault.body.page.total, 120);

  for (const [limit, expected] of [
    [1, 1],
    [37, 37],
    [100, 100],
  ] as const) {
    const res = await list(`kind=limits&limit=${limit}`);
    assert.is(res.status, 200, res.text);
    assert.is(res.body.data.length, expected);
  }
});

test('limit outside 1..100 or not an integer is 400 validation_error with details.limit', async () => {
  for (const limit of ['0', '101', '-1', 'abc', '1.5', '', '1e3']) {
    assertValidationError(await list(`kind=limits&limit=${encodeURIComponent(limit)}`), 'limit');
  }
});

// --- sort --------------------------------------------------------------------------------------------

test('sort: newest first by default, created_at ascending, -created_at descending; others are 400', async () => {
  await insertJobs('sorting', 10);
  const newestFirst = await expectedIds('sorting', 'desc');
  const oldestFirst = await expectedIds('sorting', 'asc');
  const ids = (res: HttpResponse) => res.body.data.map((job: { id: string }) => job.id);

  const byDefault = await list('kind=sorting');
  assert.equal(ids(byDefault), newestFirst);
  const createdAt = byDefault.body.data.map((job: { created_at: string }) => job.created_at);
  assert.equal(createdAt, [...createdAt].sort().reverse());
  assert.equal(ids(await list('kind=sorting&sort=-created_at')), newestFirst);
  assert.equal(ids(await list('kind=sorting&sort=created_at')), oldestFirst);

  for (const sort of ['id', 'updated_at', '--created_at', '+created_at', 'created_at desc']) {
    assertValidationError(await list(`kind=sorting&sort=${encodeURIComponent(sort)}`), 'sort');
  }
});

// --- walking pages -----------------------------------------------------------------------------------

test('walking next_cursor returns every row exactly once, in order, in both directions', async () => {
  await insertJobs('walk', 63);
  for (const [sort, direction] of [
    ['-created_at', 'desc'],
    ['created_at', 'asc'],
  ] as const) {
    const expected = await expectedIds('walk', direction);
    const { ids, pages } = await walk(`kind=walk&sort=${sort}`, 7, 63);
    assert.equal(ids, expected);
    assert.is(pages, 9, '63 rows in pages of 7: nine pages, no empty tenth');
  }
  const { ids } = await walk('kind=walk', 25, 63); // default sort, pages of 25, 25, 13
  assert.equal(ids, await expectedIds('walk', 'desc'));
});

test('rows with identical created_at are neither skipped nor repeated (ties broken by id)', async () => {
  await insertJobs('ties', 30, `timestamptz '2024-02-01T00:00:00Z'`);
  await insertJobs('ties', 12, `timestamptz '2024-02-01T00:00:00Z' + (g % 3) * interval '1 second'`);
  for (const [sort, direction] of [
    ['-created_at', 'desc'],
    ['created_at', 'asc'],
  ] as const) {
    const expected = await expectedIds('ties', direction);
    for (const limit of [1, 4, 7, 30]) {
      const { ids } = await walk(`kind=ties&sort=${sort}`, limit, 42);
      assert.is(new Set(ids).size, 42, `limit ${limit}: every row once`);
      assert.equal(ids, expected, `limit ${limit}, ${sort}`);
    }
  }
});

test('timestamps that differ by microseconds keep their order across pages', async () => {
  // A cursor that rounded created_at to milliseconds would skip or repeat these.
  await insertJobs('micro', 20, `timestamptz '2024-03-01T00:00:00.000100Z' + g * interval '37 microseconds'`);
  for (const [sort, direction] of [
    ['-created_at', 'desc'],
    ['created_at', 'asc'],
  ] as const) {
    const { ids } = await walk(`kind=micro&sort=${sort}`, 3, 20);
    assert.equal(ids, await expectedIds('micro', direction));
  }
});

test('rows inserted while walking do not disturb the walk behind the cursor', async () => {
  await insertJobs('moving', 10, `timestamptz '2024-04-01T00:00:00Z' + g * interval '1 second'`);
  const first = await list('kind=moving&limit=4');
  const expected = await expectedIds('moving', 'desc');
  // Newer rows arrive after the first page was read: newest-first continues where it stopped.
  await insertJobs('moving', 5, `timestamptz '2024-05-01T00:00:00Z' + g * interval '1 second'`);
  const second = await list(`kind=moving&limit=100&cursor=${encodeURIComponent(first.body.page.next_cursor)}`);
  assert.is(second.status, 200, second.text);
  const ids = [...first.body.data, ...second.body.data].map((job: { id: string }) => job.id);
  assert.equal(ids, expected);
  assert.is(second.body.page.has_more, false);
  assert.is(second.body.page.total, 15);
});

// --- cursors -----------------------------------------------------------------------------------------

/** Replaces the character at `index` with another base64url character. */
function flip(token: string, index: number): string {
  const c = token[index];
  const replacement = c === 'A' ? 'B' : 'A';
  return token.slice(0, index) + replacement + token.slice(index + 1);
}

test('a modified cursor is 400 validation_error "malformed cursor token"', async () => {
  await insertJobs('cursor', 12);
  const page = await list('kind=cursor&limit=5');
  const cursor: string = page.body.page.next_cursor;
  assert.type(cursor, 'string');
  const dot = cursor.indexOf('.');
  assert.ok(dot > 0, 'cursor is payload.signature');

  const tampered = [
    flip(cursor, 0),
    flip(cursor, Math.floor(dot / 2)),
    flip(cursor, dot - 1),
    flip(cursor, dot + 1),
    flip(cursor, Math.floor((dot + cursor.length) / 2)),
    cursor.slice(0, -1),
    cursor + 'A',
    cursor.replace('.', ''),
    `${cursor}.extra`,
    cursor.slice(0, dot),
    cursor.slice(dot),
  ];
  for (const bad of tampered) {
    assert.is.not(bad, cursor);
    assertMalformedCursor(await list(`kind=cursor&limit=5&cursor=${encodeURIComponent(bad)}`));
  }
  // The genuine cursor still works.
  const next = await list(`kind=cursor&limit=5&cursor=${encodeURIComponent(cursor)}`);
  assert.is(next.status, 200, next.text);
});

test('a fabricated cursor is 400 validation_error "malformed cursor token"', async () => {
  const [newest] = await expectedIds('cursor', 'desc');
  const payload = Buffer.from(JSON.stringify({ s: '-created_at', f: 'x', k: ['2024-01-01 00:00:00+00', newest] })).toString('base64url');
  const fabricated = [
    'abc',
    'not-a-cursor.at-all',
    payload,
    `${payload}.${randomBytes(32).toString('base64url')}`,
    `${payload}.`,
    Buffer.from('{"offset":10}').toString('base64'),
    '10',
  ];
  for (const bad of fabricated) {
    assertMalformedCursor(await list(`kind=cursor&cursor=${encodeURIComponent(bad)}`));
  }
});

test('a cursor reused with another sort or filter is 400 validation_error', async () => {
  const page = await list('kind=cursor&limit=5&sort=-created_at');
  const cursor = encodeURIComponent(page.body.page.next_cursor);
  assertValidationError(await list(`kind=cursor&limit=5&sort=created_at&cursor=${cursor}`), 'cursor');
  assertValidationError(await list(`kind=walk&limit=5&sort=-created_at&cursor=${cursor}`), 'cursor');
  assertValidationError(await list(`limit=5&sort=-created_at&cursor=${cursor}`), 'cursor');
  // Another limit is fine: the cursor marks a position, not a page size.
  const other = await list(`kind=cursor&limit=2&sort=-created_at&cursor=${cursor}`);
  assert.is(other.status, 200, other.text);
  assert.is(other.body.data.length, 2);
});

// --- total -------------------------------------------------------------------------------------------

test('total is exact for small sets and up to 10000 rows', async () => {
  const none = await list('kind=nothing-of-this-kind');
  assert.is(none.status, 200);
  assert.equal(none.body, { data: [], page: { next_cursor: null, has_more: false, total: 0 } });

  await insertJobs('exact', 10_000);
  const res = await list('kind=exact&limit=1');
  assert.is(res.status, 200, res.text);
  assert.is(res.body.page.total, 10_000);
});

test('total above 10000 rows is an estimate above 10000', async () => {
  await insertJobs('bulk', 10_050);
  await t.app.pool.query('analyze job_runs');
  const res = await list('kind=bulk&limit=3');
  assert.is(res.status, 200, res.text);
  const { total } = res.body.page;
  assert.ok(Number.isInteger(total), `total ${total} is an integer`);
  assert.ok(total > 10_000, `total ${total} > 10000`);
  assert.ok(Math.abs(total - 10_050) <= 1_005, `total ${total} is within 10% of the 10050 rows`);
  assert.is(res.body.data.length, 3);
  assert.is(res.body.page.has_more, true);
});

test.run();
