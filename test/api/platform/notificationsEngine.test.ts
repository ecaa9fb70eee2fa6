/**
 * The engine's notifications: a run's new patterns (pattern_detected), its predictions
 * (new_prediction), the crest alerts it raised (high_confidence_prediction) and its proposed fixes
 * (recommendation_pushed); the next run finds the patterns again (pattern_confirmed) and repeats none
 * of the others. Risk thresholds apply per member.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { demoToken, eventually, startTestApp, type TestApp } from '../../helpers/app.ts';
import { fresh } from '../../helpers/errors.ts';
import type { Client } from '../../helpers/http.ts';
import { addMember, type TestMember } from '../../helpers/members.ts';
import { forecastFixture } from '../../helpers/forecastFixture.ts';

let t: TestApp;
let api: Client;
let picky: TestMember;
test.before(async () => {
  t = await startTestApp({ worker: true });
  api = t.platform.as(await demoToken(t));
  picky = await addMember(t.app, t.demo.workspaceId, 'picky@example.com');
});
test.after(async () => t.close());

async function runEngine(): Promise<any> {
  const res = await api.post('/v1/engine/runs', {}, fresh());
  assert.is(res.status, 202, res.text);
  return eventually(
    async () => {
      const run = await api.get(`/v1/engine/runs/${res.body.run_id}`);
      if (run.body.status === 'failed') throw new Error(`run failed: ${run.body.error_detail}`);
      return run.body.status === 'succeeded' ? run.body : undefined;
    },
    90_000,
    'the engine run',
  );
}

const subjects = async (userId: string, kind: string) =>
  (await t.app.pool.query(`select subject_id from notifications where user_id = $1 and kind = $2 order by subject_id`, [userId, kind])).rows.map(
    (r) => r.subject_id as string,
  );
const settled = (runId: string) =>
  eventually(
    async () => {
      const { rows } = await t.app.pool.query(`select status from job_runs where kind = 'notification__route' and payload->>'run_id' = $1`, [runId]);
      return rows[0]?.status === 'succeeded' ? true : undefined;
    },
    30_000,
    'the routing job of the run',
  );

test('a run notifies its findings once; the next run confirms the patterns and repeats nothing', async () => {
  assert.is((await api.patch('/v1/me/notifications', { min_risk_score_for_alert: 0 })).status, 200);
  assert.is((await t.platform.patch('/v1/me/notifications', { min_risk_score_for_alert: 100 }, { token: picky.token })).status, 200);
  const { records } = await forecastFixture(Math.floor(Date.now() / 60_000) * 60_000);
  assert.is((await api.post('/v1/ingest/batch', { records }, fresh())).status, 202);

  const run1 = await runEngine();
  await settled(run1.id);
  const me = t.demo.userId;
  const patterns = (
    await t.app.pool.query(`select id::text from patterns where workspace_id = $1 and issue_count > 0 order by id`, [t.demo.workspaceId])
  ).rows.map((r) => r.id);
  assert.ok(patterns.length >= 2);
  assert.equal(await subjects(me, 'pattern_detected'), patterns);
  assert.equal(await subjects(me, 'pattern_confirmed'), []);
  const predicted = (await t.app.pool.query(`select pattern_id::text as id from predictions where run_id = $1 order by pattern_id`, [run1.id])).rows.map(
    (r) => r.id,
  );
  assert.equal(await subjects(me, 'new_prediction'), predicted);
  const alerts = (await t.app.pool.query(`select id::text from pattern_alerts where run_id = $1 and status = 'open' order by id`, [run1.id])).rows.map(
    (r) => r.id,
  );
  assert.is(alerts.length, run1.summary.forecasts.alerts_raised);
  assert.ok(alerts.length >= 1);
  assert.equal(await subjects(me, 'high_confidence_prediction'), alerts);
  const proposed = (
    await t.app.pool.query(`select id::text from recommendations where workspace_id = $1 and status = 'proposed' order by id`, [t.demo.workspaceId])
  ).rows.map((r) => r.id);
  assert.equal(await subjects(me, 'recommendation_pushed'), proposed);
  // A member whose threshold no pattern reaches hears of none of it.
  // A member with a threshold of 100 hears only of patterns that reach it.
  const risky = (
    await t.app.pool.query(`select id::text from patterns where workspace_id = $1 and issue_count > 0 and risk_score >= 100 order by id`, [t.demo.workspaceId])
  ).rows.map((r) => r.id);
  assert.ok(risky.length < patterns.length);
  assert.equal(await subjects(picky.userId, 'pattern_detected'), risky);

  const run2 = await runEngine();
  await settled(run2.id);
  assert.equal(await subjects(me, 'pattern_confirmed'), patterns, 'found again by the next run');
  assert.equal(await subjects(me, 'pattern_detected'), patterns, 'not detected twice');
  assert.equal(await subjects(me, 'high_confidence_prediction'), alerts, 'alerts are not raised twice');
  assert.equal(await subjects(me, 'new_prediction'), predicted);
  // The in-app inbox holds them (pattern kinds are in-app by default).
  const unread = (await api.get('/v1/me/notifications/unread-count')).body.count;
  const inApp = (await t.app.pool.query(`select count(*)::int as n from notifications where user_id = $1 and in_app and read_at is null`, [me])).rows[0].n;
  assert.is(unread, inApp);
});

test.run();
