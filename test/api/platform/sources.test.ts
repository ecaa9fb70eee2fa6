import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { demoToken, startTestApp, type TestApp } from '../../helpers/app.ts';
import { TestClock } from '../../helpers/clock.ts';
import { assertError, assertValidation, fresh } from '../../helpers/errors.ts';
import type { Client, HttpResponse } from '../../helpers/http.ts';
import { serviceAccountToken } from '../../helpers/identities.ts';

const DAY = 86_400_000;
// The service's clock runs three days ahead of the database's, so the issues received "now" (created_at
// comes from the database) land in buckets before the last two of the window, even across a midnight.
const clock = new TestClock(new Date(Date.now() + 3 * DAY));
let t: TestApp;
let api: Client;
test.before(async () => {
  t = await startTestApp({ clock });
  api = t.platform.as(await demoToken(t));
});
test.after(async () => t.close());

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** The `days` UTC dates ending at the clock's today, oldest first. */
const window = (days: number) => Array.from({ length: days }, (_, i) => utcDay(clock.now().getTime() - (days - 1 - i) * DAY));

/** Issues per UTC day of receipt, straight from the database (the oracle for daily_volume). */
async function receivedPerDay(source: string | null): Promise<Map<string, number>> {
  const { rows } = await t.app.pool.query<{ day: string; n: number }>(
    `select to_char(created_at at time zone 'utc', 'YYYY-MM-DD') as day, count(*)::int as n from issues
      where workspace_id = $1 and ($2::text is null or source = $2) group by 1`,
    [t.demo.workspaceId, source],
  );
  return new Map(rows.map((r) => [r.day, r.n]));
}
const expectedVolume = (perDay: Map<string, number>, days: number) => window(days).map((date) => ({ date, count: perDay.get(date) ?? 0 }));

const zeros = { eligible: 0, blocked_no_narrative: 0, ineligible: 0 };
const noSeverity = { critical: 0, high: 0, medium: 0, low: 0 };

test('an empty workspace has no sources and a zero summary', async () => {
  const list = await api.get('/v1/sources');
  assert.is(list.status, 200, list.text);
  assert.equal(list.body, { data: [], page: { next_cursor: null, has_more: false, total: 0 } });
  const summary = await api.get('/v1/sources/summary');
  assert.is(summary.status, 200, summary.text);
  assert.equal(summary.body, {
    sources: 0,
    issue_count: 0,
    by_engine_status: zeros,
    by_severity: noSeverity,
    narrative_coverage: 0,
    first_seen_at: null,
    last_seen_at: null,
    daily_volume: window(30).map((date) => ({ date, count: 0 })),
  });
});

let firstJira: string;
let lastJira: string;

test('per-source counts by engine status and severity, narrative coverage, first and last seen', async () => {
  const ingest = (records: unknown[]) => api.post('/v1/ingest/batch', { records }, fresh());
  const first = await ingest([
    { external_id: 'j1', source: 'jira', title: 'Disk full', narrative: 'The disk filled up', severity: 'p1' },
    { external_id: 'j2', source: 'jira', title: 'No story', severity: 'high' },
    { external_id: 'g1', source: 'github', title: 'Flaky test', narrative: 'It fails sometimes' },
  ]);
  assert.is(first.status, 202, first.text);
  const second = await ingest([
    { external_id: 'j3', source: 'jira', title: 'Placeholder', narrative: 'n/a' },
    { external_id: 'j4', source: 'jira', title: 'Minor', narrative: 'A typo in the UI', severity: 'low' },
    { external_id: 'g2', source: 'github', title: 'Build break', body: 'Maven fails on javadoc' },
    { external_id: 'p1', source: 'pager', title: 'Paged at night', severity: 'sev1' },
  ]);
  assert.is(second.status, 202, second.text);
  assert.is((await api.post('/v1/issues', { title: 'By hand', severity: 'medium', narrative: 'typed in' })).status, 201);
  // Re-ingesting updates an issue: no new issue, first seen unchanged.
  assert.is(
    (await api.post('/v1/ingest/events', { external_id: 'j1', source: 'jira', title: 'Disk full again', narrative: 'Again', severity: 'p1' }, fresh())).status,
    202,
  );

  const issues = (await api.get('/v1/issues?limit=100')).body.data as Array<{ id: string; source: string; created_at: string }>;
  const seen = (source: string) => {
    const times = issues
      .filter((i) => i.source === source)
      .map((i) => i.created_at)
      .sort();
    return { first_seen_at: times[0], last_seen_at: times.at(-1) };
  };
  firstJira = seen('jira').first_seen_at;
  lastJira = seen('jira').last_seen_at!;

  const res = await api.get('/v1/sources');
  assert.is(res.status, 200, res.text);
  const bySource = Object.fromEntries(res.body.data.map((s: { source: string }) => [s.source, s]));
  const volume = async (source: string) => expectedVolume(await receivedPerDay(source), 30);
  assert.equal(bySource.jira, {
    source: 'jira',
    issue_count: 4,
    by_engine_status: { eligible: 2, blocked_no_narrative: 1, ineligible: 1 },
    by_severity: { critical: 1, high: 1, medium: 1, low: 1 },
    narrative_coverage: 0.75,
    ...seen('jira'),
    daily_volume: await volume('jira'),
  });
  assert.equal(bySource.github, {
    source: 'github',
    issue_count: 2,
    by_engine_status: { ...zeros, eligible: 2 },
    by_severity: { ...noSeverity, medium: 2 },
    narrative_coverage: 1,
    ...seen('github'),
    daily_volume: await volume('github'),
  });
  assert.equal(bySource.pager, {
    source: 'pager',
    issue_count: 1,
    by_engine_status: { ...zeros, blocked_no_narrative: 1 },
    by_severity: { ...noSeverity, critical: 1 },
    narrative_coverage: 0,
    ...seen('pager'),
    daily_volume: await volume('pager'),
  });
  assert.equal(bySource.api.by_engine_status, { ...zeros, eligible: 1 });
  assert.is(Object.keys(bySource).length, 4);
});

test('daily_volume: zero-filled UTC days ending today by the service clock, `days` 1..366 (default 30)', async () => {
  const jira = await receivedPerDay('jira');
  assert.is(
    [...jira.values()].reduce((a, b) => a + b, 0),
    4,
  );
  const received = [...jira.keys()];
  assert.ok(
    received.every((day) => day < utcDay(clock.now().getTime() - DAY)),
    'received at least two days before the clock',
  );

  const dailyOf = async (query: string) => {
    const res: HttpResponse = await api.get(`/v1/sources?${query}`);
    assert.is(res.status, 200, res.text);
    return res.body.data.find((s: { source: string }) => s.source === 'jira').daily_volume as Array<{ date: string; count: number }>;
  };
  const thirty = await dailyOf('');
  assert.is(thirty.length, 30);
  assert.is(thirty.at(-1)!.date, utcDay(clock.now().getTime()));
  assert.equal(thirty, expectedVolume(jira, 30));
  assert.is(
    thirty.reduce((n, d) => n + d.count, 0),
    4,
  );
  assert.equal(
    thirty.slice(-2),
    window(2).map((date) => ({ date, count: 0 })),
    'nothing received on the last two days',
  );

  assert.equal(await dailyOf('days=1'), [{ date: utcDay(clock.now().getTime()), count: 0 }]);
  assert.equal(
    await dailyOf('days=2'),
    window(2).map((date) => ({ date, count: 0 })),
  );
  const three = await dailyOf('days=3');
  assert.equal(three, expectedVolume(jira, 3));
  const year = await dailyOf('days=366');
  assert.is(year.length, 366);
  assert.equal(year, expectedVolume(jira, 366));

  // Moving the clock moves the window; the stored counts stay where they were received.
  clock.advance(-3 * DAY);
  try {
    assert.equal(await dailyOf('days=2'), expectedVolume(jira, 2));
  } finally {
    clock.advance(3 * DAY);
  }

  for (const days of ['0', '367', '-1']) {
    const res = await api.get(`/v1/sources?days=${days}`);
    assertValidation(res, { days: days === '367' ? 'must be at most 366' : 'must be at least 1' });
  }
  assertValidation(await api.get('/v1/sources?days=1.5'), { days: 'must be an integer' });
  assertValidation(await api.get('/v1/sources?days=week'), { days: 'must be an integer' });
  assertValidation(await api.get('/v1/sources/summary?days=400'), { days: 'must be at most 366' });
});

test('sorts (default -issue_count, ties by source) and pagination', async () => {
  const order = async (query: string, limit = 100) => {
    const out: string[] = [];
    let cursor: string | null = null;
    do {
      const res: HttpResponse = await api.get(`/v1/sources?limit=${limit}${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      assert.is(res.status, 200, res.text);
      assert.is(res.body.page.total, 4);
      out.push(...res.body.data.map((s: { source: string }) => s.source));
      cursor = res.body.page.next_cursor;
    } while (cursor);
    return out;
  };
  assert.equal(await order(''), ['jira', 'github', 'pager', 'api']);
  assert.equal(await order('&sort=-issue_count'), ['jira', 'github', 'pager', 'api']);
  assert.equal(await order('&sort=issue_count'), ['api', 'pager', 'github', 'jira']);
  assert.equal(await order('&sort=source'), ['api', 'github', 'jira', 'pager']);
  assert.equal(await order('&sort=-source'), ['pager', 'jira', 'github', 'api']);
  for (const sort of ['', '&sort=issue_count', '&sort=source', '&sort=-source']) assert.equal(await order(sort, 1), await order(sort), `paged ${sort}`);
  const page = await api.get('/v1/sources?limit=2&days=7');
  assert.equal(
    page.body.data.map((s: { source: string }) => s.source),
    ['jira', 'github'],
  );
  assert.is(page.body.page.has_more, true);
  assert.is(page.body.data[0].daily_volume.length, 7);
  const next = await api.get(`/v1/sources?limit=2&days=7&cursor=${encodeURIComponent(page.body.page.next_cursor)}`);
  assert.equal(
    next.body.data.map((s: { source: string }) => s.source),
    ['pager', 'api'],
  );
  assert.is(next.body.page.has_more, false);
  assertValidation(await api.get(`/v1/sources?limit=2&days=8&cursor=${encodeURIComponent(page.body.page.next_cursor)}`), {
    cursor: 'does not match this query',
  });
  assertValidation(await api.get('/v1/sources?sort=-narrative_coverage'), { sort: 'must be one of issue_count, -issue_count, source, -source' });
});

test('summary: totals over every source', async () => {
  const res = await api.get('/v1/sources/summary?days=10');
  assert.is(res.status, 200, res.text);
  const { rows } = await t.app.pool.query<{ last: Date }>('select max(created_at) as last from issues where workspace_id = $1', [t.demo.workspaceId]);
  assert.equal(res.body, {
    sources: 4,
    issue_count: 8,
    by_engine_status: { eligible: 5, blocked_no_narrative: 2, ineligible: 1 },
    by_severity: { critical: 2, high: 1, medium: 4, low: 1 },
    narrative_coverage: 0.75,
    first_seen_at: firstJira,
    last_seen_at: rows[0].last.toISOString(),
    daily_volume: expectedVolume(await receivedPerDay(null), 10),
  });
  assert.is(
    res.body.daily_volume.reduce((n: number, d: { count: number }) => n + d.count, 0),
    8,
  );
  assert.ok(lastJira <= res.body.last_seen_at);
  assert.is((await api.get('/v1/sources/summary')).body.daily_volume.length, 30);
});

test('sources:read is required', async () => {
  const token = await serviceAccountToken(api, ['issues:read']);
  assertError(await t.platform.get('/v1/sources', { token }), 403, 'forbidden', { required_scope: 'sources:read' });
  assertError(await t.platform.get('/v1/sources/summary', { token }), 403, 'forbidden', { required_scope: 'sources:read' });
  const reader = await serviceAccountToken(api, ['sources:read']);
  assert.is((await t.platform.get('/v1/sources/summary', { token: reader })).status, 200);
});

test.run();
