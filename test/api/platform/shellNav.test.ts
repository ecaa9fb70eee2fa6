/**
 * GET /v1/shell/nav over real HTTP: the sections follow the caller's scopes, the counts (open review
 * items, the caller's unread notifications, open crest alerts, queued or running jobs) follow the
 * workspace's state and only the counts the caller may see are answered, badges carry them.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { demoToken, eventually, startTestApp, type TestApp } from '../../helpers/app.ts';
import { assertError, fresh } from '../../helpers/errors.ts';
import type { Client } from '../../helpers/http.ts';
import { serviceAccountToken } from '../../helpers/identities.ts';
import { addMember } from '../../helpers/members.ts';
import { forecastFixture } from '../../helpers/forecastFixture.ts';
import { sections } from '../../../api/platform/shell/routes.ts';

let t: TestApp;
let api: Client;
test.before(async () => {
  t = await startTestApp({ worker: true });
  api = t.platform.as(await demoToken(t));
});
test.after(async () => t.close());

const count = async (sql: string) => (await t.app.pool.query<{ n: number }>(sql, [t.demo.workspaceId])).rows[0].n;

test('an empty workspace: every section for the owner, zero counts, the features', async () => {
  const res = await api.get('/v1/shell/nav');
  assert.is(res.status, 200, res.text);
  assert.equal(
    res.body.sections.map((s: any) => s.id),
    sections.map((s) => s.id),
  );
  assert.equal(res.body.counts, { open_review_items: 0, unread_notifications: 0, active_crest_alerts: 0, running_jobs: 0 });
  assert.equal(
    res.body.sections.find((s: any) => s.id === 'review_queue'),
    { id: 'review_queue', label: 'Review queue', path: '/review-queue', badge: 0 },
  );
  assert.equal(res.body.features.report_kinds, ['pattern_brief', 'workspace_risk', 'recommendation_case', 'backtest_accuracy']);
  assert.equal(res.body.features.export_formats, ['csv', 'xlsx']);
});

test("unread notifications: the caller's own in-app count, up when one is created, down when it is read", async () => {
  const nav = async () => {
    const r = await api.get('/v1/shell/nav');
    assert.is(r.status, 200, r.text);
    return r.body;
  };
  // A high issue notifies every member in-app by default (the routing job of the ingest).
  const ingested = await api.post(
    '/v1/ingest/events',
    { source: 'tests', external_id: 'nav-1', title: 'Checkout down', narrative: 'checkout fails', severity: 'high' },
    fresh(),
  );
  assert.is(ingested.status, 202, ingested.text);
  const created = await eventually(
    async () => {
      const body = await nav();
      return body.counts.unread_notifications === 1 ? body : undefined;
    },
    15_000,
    'the notification',
  );
  assert.is(created.sections.find((s: any) => s.id === 'notifications').badge, 1);
  assert.equal((await api.get('/v1/me/notifications/unread-count')).body, { count: 1 }, 'the same count as the unread-count endpoint');

  // Another member's notification is not the caller's.
  const other = await addMember(t.app, t.demo.workspaceId, 'nav-other@example.com');
  assert.is((await t.platform.get('/v1/shell/nav', { token: other.token })).body.counts.unread_notifications, 0);

  assert.is((await api.post('/v1/me/notifications/inbox/read', { all: true })).status, 200);
  const read = await nav();
  assert.is(read.counts.unread_notifications, 0);
  assert.is(read.sections.find((s: any) => s.id === 'notifications').badge, 0);
});

test('counts follow the workspace: review items, crest alerts, queued jobs', async () => {
  const { records } = await forecastFixture(Date.now());
  const ingested = await api.post('/v1/ingest/batch', { records: [...records, { external_id: 'silent', source: 'x', title: 'No narrative' }] }, fresh());
  assert.is(ingested.status, 202, ingested.text);
  const run = await api.post('/v1/engine/runs', {}, fresh());
  await eventually(
    async () => ((await api.get(`/v1/engine/runs/${run.body.run_id}`)).body.status === 'succeeded' ? true : undefined),
    90_000,
    'the engine run',
  );
  await eventually(
    async () => {
      const r = await api.get('/v1/shell/nav');
      assert.is(r.status, 200, r.text);
      return r.body.counts.running_jobs === 0 ? true : undefined;
    },
    30_000,
    'an idle queue',
  );

  const nav = (await api.get('/v1/shell/nav')).body;
  // The engine run's findings notify the owner too (asynchronously): that count is checked above.
  assert.type(nav.counts.unread_notifications, 'number');
  delete nav.counts.unread_notifications;
  const review = await count(`select count(*)::int as n from review_items where workspace_id = $1 and status = 'open'`);
  const alerts = await count(`select count(*)::int as n from pattern_alerts where workspace_id = $1 and status = 'open'`);
  assert.ok(review >= 1 && alerts >= 1);
  assert.equal(nav.counts, { open_review_items: review, active_crest_alerts: alerts, running_jobs: 0 });
  assert.is(nav.sections.find((s: any) => s.id === 'patterns').badge, alerts);

  // With the worker stopped, requested work waits in the queue.
  await t.worker!.stop();
  for (let i = 0; i < 2; i++) assert.is((await api.post('/v1/exports', { resource: 'issues', format: 'csv' })).status, 202);
  const queued = (await api.get('/v1/shell/nav')).body;
  assert.is(queued.counts.running_jobs, 2);
  assert.is(queued.sections.find((s: any) => s.id === 'jobs').badge, 2);
});

test('a caller sees the sections and counts of its scopes only; shell:read is needed', async () => {
  const narrow = t.platform.as(await serviceAccountToken(api, ['shell:read', 'review:read', 'issues:read']));
  const res = await narrow.get('/v1/shell/nav');
  assert.is(res.status, 200, res.text);
  assert.equal(
    res.body.sections.map((s: any) => s.id),
    ['issues', 'review_queue'],
  );
  assert.equal(Object.keys(res.body.counts), ['open_review_items']);
  // A machine caller has no notifications of its own: no count, and the section has no badge.
  const machine = t.platform.as(await serviceAccountToken(api, ['shell:read', 'notifications:read']));
  const own = await machine.get('/v1/shell/nav');
  assert.is(own.status, 200, own.text);
  assert.equal(own.body.counts, {});
  assert.equal(own.body.sections, [{ id: 'notifications', label: 'Notifications', path: '/notifications' }]);
  const none = t.platform.as(await serviceAccountToken(api, ['issues:read']));
  assertError(await none.get('/v1/shell/nav'), 403, 'forbidden', { required_scope: 'shell:read' });
  assertError(await t.platform.get('/v1/shell/nav'), 401, 'unauthorized');
});

test.run();
