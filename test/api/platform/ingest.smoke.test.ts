import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { demoToken, startTestApp, type TestApp } from '../../helpers/app.ts';
import type { Client } from '../../helpers/http.ts';

let t: TestApp;
let api: Client;
test.before(async () => {
  t = await startTestApp({ worker: true });
  api = t.platform.as(await demoToken(t));
});
test.after(async () => t.close());

test('batch ingest, list, patch, events, review', async () => {
  const res = await api.post('/v1/ingest/batch', {
    records: [
      { external_id: 'a1', title: 'Disk full on node', narrative: 'The disk filled up and the datanode crashed', source: 'jira', severity: 'p1', occurred_at: '2026-01-01T00:00:00Z' },
      { external_id: 'a2', title: 'No narrative', source: 'jira' },
      { external_id: 'a3', title: 'Placeholder', narrative: 'n/a', source: 'jira' },
      { title: 'bad' },
    ],
  }, { headers: { 'idempotency-key': 'k1' } });
  assert.is(res.status, 202, res.text);
  assert.is(res.body.accepted, 3);
  assert.equal(res.body.engine_status_summary, { eligible: 1, blocked_no_narrative: 1, ineligible: 1 });
  assert.is(res.body.rejected[0].index, 3);
  const list = await api.get('/v1/issues');
  assert.is(list.body.data.length, 3, list.text);
  const review = await api.get('/v1/review-queue?kind=missing_narrative');
  assert.is(review.body.data.length, 1, review.text);
  const blocked = res.body.issue_ids[1];
  const patched = await api.patch(`/v1/issues/${blocked}`, { narrative: 'Now it has a story about memory' });
  assert.is(patched.status, 200, patched.text);
  assert.is(patched.body.engine_status, 'eligible');
  const review2 = await api.get(`/v1/review-queue/${review.body.data[0].id}`);
  assert.is(review2.body.status, 'resolved');
  const events = await api.get(`/v1/issues/${blocked}/events`);
  assert.is(events.body.data.length, 2, events.text);
  const bad = await api.patch(`/v1/issues/${blocked}`, { status: 'resolved' });
  assert.is(bad.status, 409);
  const job = await api.get(`/v1/jobs/${res.body.job_id}`);
  assert.is(job.status, 200);
  const search = await api.get('/v1/issues?q=disk');
  assert.is(search.body.data.length, 1, search.text);
  const feed = await api.get('/v1/workspaces/current/events?limit=100');
  assert.ok(feed.body.data.length >= 5, feed.text);
  const sources = await api.get('/v1/sources');
  assert.is(sources.status, 200, sources.text);
  assert.is(sources.body.data[0].issue_count, 3);
  const summary = await api.get('/v1/sources/summary');
  assert.is(summary.status, 200, summary.text);
  const cfg = await api.get('/v1/configs/taxonomy');
  assert.is(cfg.status, 200, cfg.text);
  assert.is(cfg.body.active.source, 'default');
  const badCfg = await api.post('/v1/configs/cluster/versions', { k_min: 5 }, { headers: { 'idempotency-key': 'c1' } });
  assert.is(badCfg.status, 422, badCfg.text);
  const pats = await api.get('/v1/patterns?risk_min=50&risk_max=10');
  assert.is(pats.status, 400, pats.text);
});

test.run();
