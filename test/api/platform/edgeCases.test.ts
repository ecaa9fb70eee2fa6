/** Edge cases of issues, patterns, the feed and the review queue found in review. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { demoToken, startTestApp, type TestApp } from '../../helpers/app.ts';
import type { Client } from '../../helpers/http.ts';

let t: TestApp;
let api: Client;
test.before(async () => {
  t = await startTestApp();
  api = t.platform.as(await demoToken(t));
});
test.after(async () => t.close());

test('an empty integer query value is a 400, never 0', async () => {
  for (const path of ['/v1/patterns?risk_min=', '/v1/patterns?risk_max=%20', '/v1/workspaces/current/events?after_sequence=']) {
    const res = await api.get(path);
    assert.is(res.status, 400, path);
    assert.is(res.body.error.code, 'validation_error');
  }
});

test('a path parameter that is not valid percent-encoding is a 400, never a 500', async () => {
  for (const path of ['/v1/jobs/%ZZ', '/v1/issues/%E0%A4%A']) {
    const res = await api.get(path);
    assert.is(res.status, 400, path);
    assert.is(res.body.error.code, 'validation_error');
    assert.equal(res.body.error.details, { path: 'is not valid percent-encoding' });
    assert.is(res.body.error.trace_id, res.headers.get('x-request-id'));
  }
});

test('POST /v1/issues with a known (source, external_id) answers 200 with the updated issue', async () => {
  const first = await api.post('/v1/issues', { title: 'First', severity: 'low', source: 'crm', external_id: 'X-1' });
  assert.is(first.status, 201);
  const again = await api.post('/v1/issues', { title: 'Second', severity: 'high', source: 'crm', external_id: 'X-1' });
  assert.is(again.status, 200);
  assert.is(again.body.id, first.body.id);
  assert.is(again.body.title, 'Second');
});

test('missing required fields say "is required"', async () => {
  const res = await api.post('/v1/issues', { severity: 'low' });
  assert.is(res.status, 400);
  assert.equal(res.body.error.details, { title: 'is required' });
});

test('the event log and the audit log refuse TRUNCATE', async () => {
  for (const table of ['events', 'audit_events']) {
    const err = await t.app.pool.query(`truncate ${table}`).then(
      () => null,
      (e: { code: string }) => e,
    );
    assert.ok(err, `${table} was truncated`);
    assert.is(err!.code, '23001');
  }
});

test("resolving a missing narrative keeps the reviewer's note and supplies the narrative", async () => {
  const ingest = await api.post('/v1/ingest/events', { external_id: 'n-1', title: 'No story', source: 'crm' }, { headers: { 'idempotency-key': 'edge-n-1' } });
  const item = (await api.get(`/v1/review-queue?issue_id=${ingest.body.issue_id}`)).body.data[0];
  const res = await api.post(`/v1/review-queue/${item.id}/resolve`, {
    decision: { narrative: 'The queue stalled after a failover.' },
    note: 'asked the reporter',
  });
  assert.is(res.status, 200, res.text);
  assert.equal(res.body.decision, { narrative: 'The queue stalled after a failover.', note: 'asked the reporter' });
  const issue = await api.get(`/v1/issues/${ingest.body.issue_id}`);
  assert.is(issue.body.engine_status, 'eligible');
  assert.is(issue.body.narrative, 'The queue stalled after a failover.');
});

test.run();
