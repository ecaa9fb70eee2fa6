import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { demoToken, eventually, startTestApp, type TestApp } from '../../helpers/app.ts';
import type { Client } from '../../helpers/http.ts';
import { generateIssues } from '../../../bench/data/synthetic.ts';

let t: TestApp;
let api: Client;
test.before(async () => {
  t = await startTestApp({ worker: true });
  api = t.platform.as(await demoToken(t));
});
test.after(async () => t.close());

test('engine run end to end', async () => {
  const records = generateIssues(300, 3, 4).map((g) => ({ external_id: g.external_id, title: g.title, narrative: g.narrative, source: 'syn', severity: g.severity, occurred_at: g.occurred_at }));
  const ing = await api.post('/v1/ingest/batch', { records }, { headers: { 'idempotency-key': 'i1' } });
  assert.is(ing.status, 202, ing.text);
  const res = await api.post('/v1/engine/runs', {}, { headers: { 'idempotency-key': 'r1' } });
  assert.is(res.status, 202, res.text);
  const run = await eventually(async () => {
    const r = await api.get(`/v1/engine/runs/${res.body.run_id}`);
    return ['succeeded', 'failed'].includes(r.body.status) ? r : undefined;
  }, 60_000, 'run');
  assert.is(run.body.status, 'succeeded', JSON.stringify(run.body));
  console.log(JSON.stringify(run.body.summary), run.body.manifest.stages.map((s: any) => `${s.stage}:${s.duration_ms}`).join(' '));
  const pats = await api.get('/v1/patterns');
  console.log(pats.body.data.map((p: any) => `${p.name} ${p.issue_count} ${p.risk_score}`));
  assert.ok(pats.body.data.length >= 3);
  const replay = await api.post(`/v1/engine/runs/${res.body.run_id}/replay`);
  assert.is(replay.status, 200, replay.text);
  assert.is(replay.body.identical, true, replay.text);
  const issue = (await api.get('/v1/issues?has_pattern=true&limit=1')).body.data[0];
  const rc = await api.get(`/v1/issues/${issue.id}/root-cause`);
  assert.is(rc.status, 200, rc.text);
  console.log(rc.body.status, rc.body.root_cause);
  const res2 = await api.post('/v1/engine/runs', {}, { headers: { 'idempotency-key': 'r2' } });
  const run2 = await eventually(async () => {
    const r = await api.get(`/v1/engine/runs/${res2.body.run_id}`);
    return ['succeeded', 'failed'].includes(r.body.status) ? r : undefined;
  }, 60_000, 'run2');
  assert.is(run2.body.status, 'succeeded', JSON.stringify(run2.body));
  console.log(JSON.stringify(run2.body.summary));
  const pats2 = await api.get('/v1/patterns');
  assert.equal(pats2.body.data.map((p: any) => p.id).sort(), pats.body.data.map((p: any) => p.id).sort());
});

test.run();
