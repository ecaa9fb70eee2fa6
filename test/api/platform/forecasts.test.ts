/**
 * Engine part 2 end to end over real HTTP, a real worker and Postgres: issues whose occurrence times
 * give each pattern a known hazard outcome (test/helpers/forecastFixture.ts), an engine run through
 * stage 10, then every endpoint of patterns' hazard, financials, counterfactuals and root causes,
 * crest alerts, predictions and backtests, recommendations, the implemented transition and its CUSUM
 * verification: holding, then regressed once new occurrences after the fix reach the pattern, with
 * one event; ingest and the daily sweep enqueue verification; replay stays identical.
 */
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseCrontab } from 'graphile-worker';
import { stageNames } from '../../../engine/pipeline.ts';
import { occurrenceCost } from '../../../engine/finance/occurrenceCost.ts';
import { defaultRateCard } from '../../../engine/config/rateCard.ts';
import { defaultCluster } from '../../../engine/config/cluster.ts';
import { crontab } from '../../../jobs/tasks/index.ts';
import { demoToken, eventually, startTestApp, type TestApp } from '../../helpers/app.ts';
import { assertError, assertValidation, fresh } from '../../helpers/errors.ts';
import type { Client } from '../../helpers/http.ts';
import { serviceAccountToken } from '../../helpers/identities.ts';
import { listAll } from '../../helpers/isolation.ts';
import { createPattern, assignPattern } from '../../helpers/eventFixtures.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';
import {
  DAY,
  FIXTURE_THEMES,
  forecastFixture,
  RECURRING_UNTIL_DAYS,
  recurrencesOf,
  TAIL_OCCURRENCES,
  type FixtureRecord,
  type FixtureTheme,
} from '../../helpers/forecastFixture.ts';
import { issueDigest } from '../../../engine/stages/context.ts';

let t: TestApp;
let api: Client;
let receiver: Receiver; // a webhook subscribed to the engine's two outbound kinds
test.before(async () => {
  t = await startTestApp({ worker: true });
  api = t.platform.as(await demoToken(t));
  receiver = await startReceiver();
  const hook = await api.post('/v1/webhooks', { url: `${receiver.url}/engine`, event_types: ['alert.raised', 'recommendation.regressed'] });
  assert.is(hook.status, 201, hook.text);
  // One cluster per theme: this file tests forecasts over known patterns, not the choice of k (which
  // may split a theme differently once it grows: test/engine covers it).
  const cluster = await api.post('/v1/configs/cluster/versions', { ...defaultCluster, k_min: FIXTURE_THEMES.length, k_max: FIXTURE_THEMES.length }, fresh());
  assert.is(cluster.status, 201, cluster.text);
  assert.is((await api.post(`/v1/configs/cluster/versions/${cluster.body.id}/activate`, undefined, fresh())).status, 200);
});
test.after(async () => {
  await receiver.close();
  await t.close();
});
const delivered = (type: string, count: number) =>
  eventually(
    async () => {
      const got = receiver.received.filter((r) => r.body?.type === type).map((r) => r.body.data);
      return got.length >= count ? got : undefined;
    },
    20_000,
    `${count} ${type} deliveries`,
  );

const { now, records, themeOf } = await forecastFixture(Math.floor(Date.now() / 60_000) * 60_000);
const FIX_AT = new Date(now - (RECURRING_UNTIL_DAYS - 5) * DAY).toISOString();

let run1: any;
const patternOf = {} as Record<FixtureTheme, any>;
const membersOf = {} as Record<FixtureTheme, FixtureRecord[]>;
const recOf = {} as Record<FixtureTheme, any>;

async function runEngine(body: Record<string, unknown> = {}): Promise<any> {
  const res = await api.post('/v1/engine/runs', body, fresh());
  assert.is(res.status, 202, res.text);
  return eventually(
    async () => {
      const run = await api.get(`/v1/engine/runs/${res.body.run_id}`);
      if (run.body.status === 'failed') throw new Error(`run failed: ${run.body.error_detail}`);
      return run.body.status === 'succeeded' ? run.body : undefined;
    },
    60_000,
    'the engine run',
  );
}

const feed = async (aggregateType: string) => listAll(api, `/v1/workspaces/current/events?aggregate_type=${aggregateType}`);
const outbound = async (eventType: string) =>
  (
    await t.app.pool.query<{ payload: Record<string, unknown> }>(
      'select payload from outbound_events where workspace_id = $1 and event_type = $2 order by created_at',
      [t.demo.workspaceId, eventType],
    )
  ).rows.map((r) => r.payload);
const verification = (id: string) => api.get(`/v1/recommendations/${id}/verification`);
const costOf = (r: FixtureRecord) => occurrenceCost(defaultRateCard, r.severity);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const close = (a: number, b: number, tolerance = 1e-9) => Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(b));

test('a run through stage 10 stores hazard fits, predictions, a backtest, financials, recommendations and crest alerts', async () => {
  const ingested = await api.post('/v1/ingest/batch', { records }, fresh());
  assert.is(ingested.status, 202, ingested.text);
  run1 = await runEngine();
  assert.equal(run1.steps_completed, stageNames);
  assert.equal(run1.manifest.stages.map((s: any) => s.stage).slice(-3), ['hazard', 'predict', 'recommend']);
  // Two recurring patterns are fitted and alert; the patterns without timestamps or with one gap are not.
  assert.equal(run1.summary.forecasts, {
    hazards: 2,
    dormant: 0,
    predictions: 2,
    recommendations: 4,
    implemented_kept: 0,
    alerts_raised: 2,
    alerts_resolved: 0,
  });

  const byExternalId = new Map(records.map((r) => [r.external_id, r]));
  for (const p of await listAll(api, '/v1/patterns')) {
    const members = (await listAll(api, `/v1/issues?pattern_id=${p.id}`)).map((i) => byExternalId.get(i.external_id as string)!);
    const theme = themeOf.get(members[0].external_id)!;
    assert.ok(
      members.every((m) => themeOf.get(m.external_id) === theme),
      `pattern ${p.name} is one theme`,
    );
    patternOf[theme] = p;
    membersOf[theme] = members;
  }
  assert.equal(Object.keys(patternOf).sort(), [...FIXTURE_THEMES].sort());
  // What the run said of each pattern's recurrence, on the list and on one pattern.
  assert.equal(
    FIXTURE_THEMES.map((theme) => patternOf[theme].recurrence),
    ['recurring', 'recurring', 'not_fitted', 'not_fitted'],
  );
  assert.is((await api.get(`/v1/patterns/${patternOf.memory.id}`)).body.recurrence, 'recurring');
  const hazard = (await api.get(`/v1/patterns/${patternOf.memory.id}/hazard`)).body;
  assert.equal([hazard.dormancy.dormant, hazard.dormancy.level, hazard.forecast.length > 0, hazard.p_alert !== null], [false, 0.01, true, true]);
  const described = (await t.platform.get('/openapi.json')).body;
  assert.ok(JSON.stringify(described).includes('dormant'), 'the description names dormancy');
});

test('GET /v1/patterns/{id}/hazard: model, parameters with uncertainty, curves and forecast, with provenance', async () => {
  const p = patternOf.disk_full;
  const res = await api.get(`/v1/patterns/${p.id}/hazard`);
  assert.is(res.status, 200, res.text);
  const h = res.body;
  assert.is(h.pattern_id, p.id);
  assert.is(h.run_id, run1.id);
  assert.is(h.status, 'fitted');
  assert.is(h.as_of, run1.manifest.as_of);
  assert.is(h.interval_level, 0.9);
  assert.ok(['weibull', 'exponential'].includes(h.model));
  assert.ok(h.parameters.shape > 0 && h.parameters.scale > 0 && h.parameters.scale_se > 0, JSON.stringify(h.parameters));
  assert.ok(h.parameters.scale_interval[0] < h.parameters.scale && h.parameters.scale < h.parameters.scale_interval[1]);
  assert.is(h.selection.criterion, 'aic');

  const members = membersOf.disk_full;
  const times = members.map((m) => Date.parse(m.occurred_at!)).sort((a, b) => a - b);
  assert.is(h.n_occurrences, members.length);
  assert.is(h.n_gaps + h.dropped_ties, members.length - 1);
  assert.is(h.n_censored, 1);
  assert.is(h.first_occurrence_at, new Date(times[0]).toISOString());
  assert.is(h.last_occurrence_at, new Date(times.at(-1)!).toISOString());
  assert.ok(close(h.since_last_days, (Date.parse(h.as_of) - times.at(-1)!) / DAY, 1e-6));

  const c = h.curves;
  assert.is(c.times_days.length, 60);
  for (const key of ['survival', 'survival_lower', 'survival_upper', 'hazard', 'hazard_lower', 'hazard_upper']) assert.is(c[key].length, 60, key);
  c.survival.forEach((s: number, i: number) => {
    assert.ok(s >= 0 && s <= 1 && c.survival_lower[i] <= s + 1e-12 && s <= c.survival_upper[i] + 1e-12, `S(${c.times_days[i]})`);
    if (i) assert.ok(s <= c.survival[i - 1] + 1e-12, 'S is non-increasing');
  });
  assert.equal(
    h.forecast.map((f: any) => f.horizon_days),
    [7, 30, 90],
  );
  for (const f of h.forecast) assert.ok(f.lower <= f.expected && f.expected <= f.upper + 1e-9 && Number.isInteger(f.lower), JSON.stringify(f));
  assert.ok(h.forecast[0].expected < h.forecast[2].expected);
  assert.ok(h.p_alert.estimate >= 0.8 && h.p_alert.lower <= h.p_alert.estimate && h.p_alert.estimate <= h.p_alert.upper);
  // Bounded provenance (issue 17): the members by count and digest, listed at the link.
  const listed = await listAll(api, `/v1/issues?pattern_id=${p.id}`);
  assert.equal(h.provenance, {
    run_id: run1.id,
    stage: 'hazard',
    config_versions: run1.manifest.config_versions,
    issue_count: listed.length,
    issue_digest: issueDigest(listed.map((i) => i.id as string)),
    issues_url: `/v1/issues?pattern_id=${p.id}`,
  });
});

test('GET /v1/patterns/{id}/hazard: 404 not_fitted with the reason; before any run from the members; 404 not_found', async () => {
  const noTimes = await api.get(`/v1/patterns/${patternOf.network.id}/hazard`);
  assert.is(noTimes.status, 404, noTimes.text);
  assert.is(noTimes.body.error.code, 'not_fitted');
  assert.is(noTimes.body.error.trace_id, noTimes.headers.get('x-request-id'));
  assert.equal(noTimes.body.error.details, {
    ...noTimes.body.error.details,
    reason: 'no_timestamps',
    n_gaps: 0,
    n_occurrences: 0,
    min_gaps: 3,
    run_id: run1.id,
  });

  const oneGap = await api.get(`/v1/patterns/${patternOf.auth.id}/hazard`);
  assert.is(oneGap.body.error.code, 'not_fitted', oneGap.text);
  assert.equal(oneGap.body.error.details, {
    ...oneGap.body.error.details,
    reason: 'insufficient_events',
    n_gaps: 1,
    n_occurrences: membersOf.auth.length,
    min_gaps: 3,
    run_id: run1.id,
  });

  // A pattern no run has fitted: the reason its members give, and no run.
  const unfitted = await createPattern(t.app.pool, t.demo.workspaceId, { name: 'not yet fitted', issue_count: 0 });
  assertError(await api.get(`/v1/patterns/${unfitted.id}/hazard`), 404, 'not_fitted', { reason: 'no_timestamps', run_id: null });
  // An issue without narrative never reaches the engine, so the runs below leave this assignment alone.
  const dated = await api.post(
    '/v1/ingest/events',
    { external_id: 'dated', title: 'dated', source: 'manual', occurred_at: new Date(now - DAY).toISOString() },
    fresh(),
  );
  await assignPattern(t.app.pool, t.demo.workspaceId, dated.body.issue_id, unfitted.id);
  assertError(await api.get(`/v1/patterns/${unfitted.id}/hazard`), 404, 'not_fitted', { reason: 'insufficient_events', run_id: null });
  assertError(await api.get(`/v1/patterns/${unfitted.id}/financials`), 404, 'not_found');
  assertError(await api.get(`/v1/patterns/${unfitted.id}/root-causes`), 404, 'not_found');

  for (const id of [randomUUID(), 'not-a-uuid']) {
    for (const path of ['hazard', 'financials', 'counterfactuals?reduction=0.5', 'root-causes'])
      assertError(await api.get(`/v1/patterns/${id}/${path}`), 404, 'not_found');
  }
});

test('GET /v1/patterns/{id}/financials: rate-card costs to date and expected cost over the horizons', async () => {
  const members = membersOf.disk_full;
  const res = await api.get(`/v1/patterns/${patternOf.disk_full.id}/financials`);
  assert.is(res.status, 200, res.text);
  const f = res.body;
  assert.is(f.run_id, run1.id);
  assert.is(f.currency, 'USD');
  assert.is(f.basis, 'hazard');
  assert.is(f.occurrences_to_date, members.length);
  assert.ok(close(f.cost_to_date, sum(members.map(costOf))));
  assert.ok(close(f.cost_per_occurrence, f.cost_to_date / members.length));
  const hazard = (await api.get(`/v1/patterns/${patternOf.disk_full.id}/hazard`)).body;
  assert.equal(
    f.horizons.map((h: any) => h.horizon_days),
    [7, 30, 90],
  );
  f.horizons.forEach((h: any, i: number) => {
    assert.ok(close(h.expected_occurrences, hazard.forecast[i].expected));
    assert.ok(close(h.expected_cost.estimate, h.expected_occurrences * f.cost_per_occurrence, 1e-6), JSON.stringify(h));
    assert.ok(h.expected_cost.lower <= h.expected_cost.estimate && h.expected_cost.estimate <= h.expected_cost.upper);
  });
  assert.is(f.provenance.run_id, run1.id);

  const unfitted = (await api.get(`/v1/patterns/${patternOf.network.id}/financials`)).body;
  assert.equal([unfitted.basis, unfitted.horizons, unfitted.occurrences_to_date], ['none', [], membersOf.network.length]);
});

test('GET /v1/patterns/{id}/counterfactuals: a fix date or a rate reduction, validated', async () => {
  const path = `/v1/patterns/${patternOf.disk_full.id}/counterfactuals`;
  const exactlyOne = { fix_date: 'exactly one of fix_date and reduction is required' };
  assertValidation(await api.get(path), exactlyOne);
  assertValidation(await api.get(`${path}?fix_date=2024-01-01&reduction=0.5`), exactlyOne);
  assertValidation(await api.get(`${path}?reduction=0`), { reduction: 'must be greater than 0' });
  assertValidation(await api.get(`${path}?reduction=1.5`), { reduction: 'must be at most 1' });
  assertValidation(await api.get(`${path}?reduction=half`), { reduction: 'must be a decimal number' });
  assertValidation(await api.get(`${path}?fix_date=yesterday`), { fix_date: 'must be an ISO 8601 date or timestamp' });
  assertValidation(await api.get(`${path}?fix_date=${new Date(now + 2 * DAY).toISOString().slice(0, 10)}`), { fix_date: 'must not be in the future' });

  const members = membersOf.disk_full;
  const half = await api.get(`${path}?reduction=0.5`);
  assert.is(half.status, 200, half.text);
  const cost = sum(members.map(costOf));
  assert.is(half.body.fix_at, null);
  assert.is(half.body.reduction, 0.5);
  assert.is(half.body.occurrences_in_window, members.length);
  assert.ok(close(half.body.cost_in_window, cost));
  assert.is(half.body.occurrences_avoided.estimate, members.length / 2);
  assert.ok(close(half.body.cost_avoided.estimate, cost / 2));
  assert.ok(half.body.cost_avoided.lower < cost / 2 && cost / 2 < half.body.cost_avoided.upper);
  assert.is(half.body.members_without_occurred_at, 0);
  assert.is(half.body.provenance.issue_count, members.length);
  assert.is(half.body.provenance.issue_digest, issueDigest((await listAll(api, `/v1/issues?pattern_id=${patternOf.disk_full.id}`)).map((i) => i.id as string)));
  const activeRateCard = (await api.get('/v1/configs/rate-card')).body.active.id;
  assert.is(half.body.provenance.config_versions['rate-card'], activeRateCard);

  const fixDate = new Date(now - 300 * DAY).toISOString().slice(0, 10);
  const since = members.filter((m) => Date.parse(m.occurred_at!) >= Date.parse(fixDate));
  const fixed = (await api.get(`${path}?fix_date=${fixDate}`)).body;
  assert.is(fixed.fix_at, `${fixDate}T00:00:00.000Z`);
  assert.is(fixed.reduction, 1);
  assert.is(fixed.occurrences_in_window, since.length);
  assert.equal(fixed.occurrences_avoided, { estimate: since.length, lower: since.length, upper: since.length });
  assert.ok(close(fixed.cost_avoided.estimate, sum(since.map(costOf))));

  const untimed = (await api.get(`/v1/patterns/${patternOf.network.id}/counterfactuals?reduction=1`)).body;
  assert.equal([untimed.occurrences_in_window, untimed.members_without_occurred_at], [0, membersOf.network.length]);
});

test('GET /v1/patterns/{id}/root-causes: the rollup with names and the recommendation it led to', async () => {
  const res = await api.get(`/v1/patterns/${patternOf.disk_full.id}/root-causes`);
  assert.is(res.status, 200, res.text);
  const r = res.body;
  assert.is(r.run_id, run1.id);
  assert.is(r.status, 'decided');
  assert.equal(r.root_cause, { id: 'resource_exhaustion', name: 'Resource exhaustion' });
  assert.is(sum(r.causes.map((c: any) => c.count)), r.decided);
  assert.is(r.decided + r.abstained, membersOf.disk_full.length);
  assert.ok(r.share >= 0.5 && r.share <= 1);
  const rec = (await api.get(`/v1/recommendations?pattern_id=${patternOf.disk_full.id}`)).body.data[0];
  assert.equal(r.recommendation, { id: rec.id, status: 'proposed' });
});

test('crest alerts: one open alert per alerting pattern, listed, filtered, and an alert.raised event each', async () => {
  const alerts = await listAll(api, '/v1/alerts');
  assert.equal(alerts.map((a) => a.pattern_id).sort(), [patternOf.disk_full.id, patternOf.memory.id].sort());
  for (const a of alerts as any[]) {
    const hazard = (await api.get(`/v1/patterns/${a.pattern_id}/hazard`)).body;
    assert.equal([a.status, a.threshold, a.horizon_days, a.run_id, a.last_run_id, a.resolved_at], ['open', 0.8, 30, run1.id, run1.id, null]);
    assert.equal([a.probability, a.lower, a.upper], [hazard.p_alert.estimate, hazard.p_alert.lower, hazard.p_alert.upper]);
    assert.is(a.last_occurrence_at, hazard.last_occurrence_at);
    assert.equal((await api.get(`/v1/alerts/${a.id}`)).body, a);
  }
  const list = await api.get('/v1/alerts');
  assert.ok(Date.parse(list.body.data[0].raised_at) >= Date.parse(list.body.data[1].raised_at));
  const byProbability = (await api.get('/v1/alerts?sort=-probability')).body.data;
  assert.ok(byProbability[0].probability >= byProbability[1].probability);
  assert.equal((await api.get('/v1/alerts?status=resolved')).body.data, []);
  assert.equal(
    (await api.get(`/v1/alerts?pattern_id=${patternOf.memory.id}`)).body.data.map((a: any) => a.pattern_id),
    [patternOf.memory.id],
  );
  assertValidation(await api.get('/v1/alerts?status=closed'), { status: 'must be one of open, resolved' });
  assertError(await api.get(`/v1/alerts/${randomUUID()}`), 404, 'not_found');

  const raised = await feed('alert');
  assert.equal(raised.map((e) => [e.type, e.aggregate_id]).sort(), alerts.map((a) => ['alert.raised', a.id]).sort());
  for (const e of raised as any[])
    assert.equal([e.payload.pattern_id, e.payload.run_id, e.actor.type], [alerts.find((a) => a.id === e.aggregate_id)!.pattern_id, run1.id, 'engine']);
  // Also for webhooks.
  assert.equal((await outbound('alert.raised')).map((o) => o.alert_id).sort(), alerts.map((a) => a.id).sort());
  assert.equal((await delivered('alert.raised', alerts.length)).map((d) => d.alert_id).sort(), alerts.map((a) => a.id).sort());
});

test('predictions: list by p_recurrence, filters, pagination, one by id', async () => {
  const list = await api.get('/v1/predictions');
  assert.is(list.status, 200, list.text);
  const predictions = list.body.data;
  assert.equal(predictions.map((p: any) => p.pattern_id).sort(), [patternOf.disk_full.id, patternOf.memory.id].sort());
  assert.ok(predictions[0].p_recurrence.estimate >= predictions[1].p_recurrence.estimate);
  for (const p of predictions) {
    const hazard = (await api.get(`/v1/patterns/${p.pattern_id}/hazard`)).body;
    assert.equal([p.run_id, p.horizon_days, p.model, p.as_of, p.interval_level], [run1.id, 30, hazard.model, run1.manifest.as_of, 0.9]);
    // The alert horizon and the prediction horizon are both 30 days: the same conditional probability.
    assert.equal(p.p_recurrence, hazard.p_alert);
    assert.ok(p.expected_time_to_next_days.estimate > 0);
    assert.equal((await api.get(`/v1/predictions/${p.id}`)).body, p);
  }
  const first = await api.get('/v1/predictions?limit=1');
  assert.equal([first.body.data[0].id, first.body.page.has_more, first.body.page.total], [predictions[0].id, true, 2]);
  const second = await api.get(`/v1/predictions?limit=1&cursor=${encodeURIComponent(first.body.page.next_cursor)}`);
  assert.equal([second.body.data[0].id, second.body.page.next_cursor], [predictions[1].id, null]);
  const top = predictions[0].p_recurrence.estimate;
  assert.equal(
    (await api.get(`/v1/predictions?min_p=${top}`)).body.data.map((p: any) => p.id),
    [predictions[0].id],
  );
  assert.equal(
    (await api.get(`/v1/predictions?pattern_id=${predictions[1].pattern_id}`)).body.data.map((p: any) => p.id),
    [predictions[1].id],
  );
  const ascending = (await api.get('/v1/predictions?sort=expected_time_to_next_days')).body.data;
  assert.ok(ascending[0].expected_time_to_next_days.estimate <= ascending[1].expected_time_to_next_days.estimate);
  assertValidation(await api.get('/v1/predictions?min_p=high'), { min_p: 'must be a decimal number' });
  assertValidation(await api.get('/v1/predictions?min_p=2'), { min_p: 'must be at most 1' });
  assertValidation(await api.get('/v1/predictions?pattern_id=x'), { pattern_id: 'must be a pattern id' });
  assertError(await api.get(`/v1/predictions/${randomUUID()}`), 404, 'not_found');
});

test('GET /v1/predictions/backtests: each run’s rolling-origin backtest', async () => {
  const res = await api.get('/v1/predictions/backtests');
  assert.is(res.status, 200, res.text);
  const [b] = res.body.data;
  assert.equal([res.body.data.length, b.run_id, b.as_of, b.horizon_days, b.interval_level], [1, run1.id, run1.manifest.as_of, 30, 0.9]);
  assert.is(b.origins.length, 6);
  const origins = b.origins.map((o: any) => Date.parse(o.origin_at));
  assert.equal(
    origins,
    [...origins].sort((x: number, y: number) => x - y),
  );
  for (const o of b.origins) {
    assert.is(o.fully_observed, Date.parse(o.origin_at) + 30 * DAY <= Date.parse(b.as_of));
    if (o.scores) assert.is(o.scores.calibration.length, 10);
  }
  assert.ok(b.overall && b.overall.n_scored > 0, JSON.stringify(b.overall));
  assert.is(b.provenance.run_id, run1.id);
  assert.equal((await api.get(`/v1/predictions/backtests?run_id=${randomUUID()}`)).body.data, []);
  assertValidation(await api.get('/v1/predictions/backtests?run_id=latest'), { run_id: 'must be an engine run id' });
});

test('recommendations: proposed with a business case for fitted patterns, abstained for the others; filters', async () => {
  const recs = await listAll(api, '/v1/recommendations');
  assert.is(recs.length, 4);
  for (const theme of FIXTURE_THEMES) recOf[theme] = recs.find((r) => r.pattern_id === patternOf[theme].id);
  for (const theme of ['disk_full', 'memory'] as const) {
    const r = recOf[theme];
    assert.equal([r.status, r.abstain_reason, r.root_cause, r.run_id], ['proposed', null, 'resource_exhaustion', run1.id]);
    assert.equal([r.playbook.effort_hours, r.playbook.expected_reduction], [32, 0.6]);
    const bc = r.business_case;
    assert.is(bc.fix_cost, 32 * defaultRateCard.engineering_hourly_rate);
    assert.ok(close(bc.roi, (bc.avoided_cost.estimate - bc.fix_cost) / bc.fix_cost, 1e-9));
    assert.ok(bc.confidence > 0 && bc.confidence <= 1);
    assert.equal((await api.get(`/v1/recommendations/${r.id}`)).body, r);
  }
  for (const theme of ['network', 'auth'] as const)
    assert.equal([recOf[theme].status, recOf[theme].abstain_reason, recOf[theme].business_case], ['abstained', 'not_fitted', null]);
  // Best return first; abstained ones (no roi) last.
  const page = (await api.get('/v1/recommendations')).body.data;
  assert.ok(page[0].business_case.roi >= page[1].business_case.roi);
  assert.equal(
    page.slice(2).map((r: any) => r.status),
    ['abstained', 'abstained'],
  );
  assert.equal((await api.get('/v1/recommendations?status=abstained')).body.page.total, 2);
  assert.equal(
    (await api.get(`/v1/recommendations?pattern_id=${patternOf.memory.id}`)).body.data.map((r: any) => r.id),
    [recOf.memory.id],
  );
  assertValidation(await api.get('/v1/recommendations?status=done'), { status: 'must be one of proposed, abstained, implemented' });
  assertError(await api.get(`/v1/recommendations/${randomUUID()}`), 404, 'not_found');
});

test('POST /v1/recommendations/{id}/implemented: the transition, its event and a verification job; 409 from abstained or implemented', async () => {
  const readOnly = t.platform.as(await serviceAccountToken(api, ['recommendations:read']));
  assertError(await readOnly.post(`/v1/recommendations/${recOf.memory.id}/implemented`, { implemented_at: FIX_AT }), 403, 'forbidden', {
    required_scope: 'recommendations:write',
  });
  assertValidation(await api.post(`/v1/recommendations/${recOf.memory.id}/implemented`, {}), { implemented_at: 'is required' });
  assertValidation(await api.post(`/v1/recommendations/${recOf.memory.id}/implemented`, { implemented_at: 'last week' }), {
    implemented_at: 'must be an ISO 8601 timestamp or date',
  });
  assertValidation(await api.post(`/v1/recommendations/${recOf.memory.id}/implemented`, { implemented_at: new Date(now + 2 * DAY).toISOString() }), {
    implemented_at: 'must not be in the future',
  });
  assertError(await api.post(`/v1/recommendations/${recOf.network.id}/implemented`, { implemented_at: FIX_AT }), 409, 'conflict', { status: 'abstained' });
  assertError(await api.post(`/v1/recommendations/${randomUUID()}/implemented`, { implemented_at: FIX_AT }), 404, 'not_found');
  assertError(await verification(recOf.memory.id), 409, 'conflict', { status: 'proposed' });

  for (const theme of ['memory', 'disk_full'] as const) {
    const res = await api.post(`/v1/recommendations/${recOf[theme].id}/implemented`, { implemented_at: FIX_AT });
    assert.is(res.status, 200, res.text);
    assert.equal([res.body.id, res.body.status, res.body.implemented_at, res.body.implemented_by.type], [recOf[theme].id, 'implemented', FIX_AT, 'user']);
    assert.is((await api.get(`/v1/jobs/${res.body.verification_job_id}`)).body.kind, 'recommendation__verify');
    const { rows } = await t.app.pool.query<{ payload: unknown }>('select payload from job_runs where id = $1', [res.body.verification_job_id]);
    assert.equal(rows[0].payload, { workspace_id: t.demo.workspaceId, recommendation_id: recOf[theme].id });
    recOf[theme] = res.body;
  }
  assertError(await api.post(`/v1/recommendations/${recOf.memory.id}/implemented`, { implemented_at: FIX_AT }), 409, 'conflict', { status: 'implemented' });
  const events = (await feed('recommendation')).filter((e) => e.type === 'recommendation.implemented');
  assert.equal(events.map((e) => e.aggregate_id).sort(), [recOf.memory.id, recOf.disk_full.id].sort());
  assert.equal((events[0] as any).payload.implemented_at, FIX_AT);
});

test('GET /v1/recommendations/{id}/verification: holding, with the CUSUM path, k, h and the run-length assumption', async () => {
  for (const theme of ['memory', 'disk_full'] as const) {
    const v = await eventually(async () => {
      const res = await verification(recOf[theme].id);
      assert.is(res.status, 200, res.text);
      return res.body.status === 'pending' ? undefined : res.body;
    });
    assert.equal([v.status, v.reason, v.pattern_id, v.implemented_at, v.period_days], ['holding', null, patternOf[theme].id, FIX_AT, 7]);
    const weeks = Math.floor((Date.parse(v.as_of) - Date.parse(FIX_AT)) / (7 * DAY));
    assert.is(v.periods_observed, weeks);
    const c = v.cusum;
    // Since the fix only the sparse tail of the fixture (every two to three weeks): well below the in-control rate.
    const fixedAt = Date.parse(FIX_AT);
    const counts = new Array(weeks).fill(0);
    for (const m of membersOf[theme]) {
      const week = Math.floor((Date.parse(m.occurred_at!) - fixedAt) / (7 * DAY));
      if (week >= 0 && week < weeks) counts[week]++;
    }
    assert.equal(c.counts, counts);
    assert.ok(sum(counts) > 0 && sum(counts) <= TAIL_OCCURRENCES);
    let cusum = 0;
    assert.equal(
      c.path,
      counts.map((x) => (cusum = Math.max(0, cusum + x - c.k))),
    );
    assert.ok(c.k > c.in_control_rate && c.k < c.out_of_control_rate, JSON.stringify(c));
    assert.ok(close(c.in_control_rate, c.out_of_control_rate * (1 - 0.6), 1e-9));
    assert.ok(c.h > 0 && c.arl0 >= c.target_arl0 && c.target_arl0 === 370 && c.arl1 < weeks, JSON.stringify(c));
    assert.ok(v.periods_observed >= c.min_periods);
    assert.equal([c.signal_period, c.signal_at, v.regressed_at], [null, null, null]);
    assert.match(c.assumption, /Poisson counts per 7-day period/);
    assert.equal([v.provenance.stage, v.provenance.run_id, v.provenance.issue_ids.length], ['verify', run1.id, membersOf[theme].length]);
  }
});

let run2: any;
test('new occurrences after the fix, assigned by the next run, turn the verification to regressed with one event', async () => {
  const more = recurrencesOf(membersOf.disk_full, 50, Date.parse(FIX_AT) + DAY, now - 2 * DAY);
  const ingested = await api.post('/v1/ingest/batch', { records: more }, fresh());
  assert.is(ingested.status, 202, ingested.text);
  const before = await verification(recOf.disk_full.id);
  const memoryBefore = (await verification(recOf.memory.id)).body;
  run2 = await runEngine();
  assert.equal([run2.summary.forecasts.implemented_kept, run2.summary.forecasts.alerts_raised], [2, 0]);
  // The recurrences join the fixed pattern (the engine may leave an outlier or two unclustered).
  const inPattern = new Set((await listAll(api, `/v1/issues?pattern_id=${patternOf.disk_full.id}`)).map((i) => i.id as string));
  const joined = (ingested.body.issue_ids as string[]).filter((id) => inPattern.has(id)).length;
  assert.ok(joined >= 45, `${joined} of 50 recurrences in the pattern`);

  const v = await eventually(async () => {
    const res = (await verification(recOf.disk_full.id)).body;
    return res.status === 'regressed' ? res : undefined;
  });
  assert.ok(Date.parse(v.computed_at) > Date.parse(before.body.computed_at));
  assert.ok(sum(v.cusum.counts) >= 45, JSON.stringify(v.cusum.counts));
  assert.ok(v.cusum.signal_period >= 1 && v.cusum.path[v.cusum.signal_period - 1] >= v.cusum.h, JSON.stringify(v.cusum));
  assert.is(v.regressed_at, v.computed_at);
  const regressed = (await feed('recommendation')).filter((e) => e.type === 'recommendation.regressed');
  assert.equal(
    regressed.map((e) => e.aggregate_id),
    [recOf.disk_full.id],
  );
  assert.equal(regressed[0].payload, {
    pattern_id: patternOf.disk_full.id,
    implemented_at: FIX_AT,
    signal_at: v.cusum.signal_at,
    periods_observed: v.periods_observed,
  });
  assert.equal(await outbound('recommendation.regressed'), [{ recommendation_id: recOf.disk_full.id, ...(regressed[0].payload as object) }]);
  assert.equal(await delivered('recommendation.regressed', 1), [{ recommendation_id: recOf.disk_full.id, ...(regressed[0].payload as object) }]);

  // The run verified the other fix too: still holding. Implemented recommendations stay as implemented.
  const memory = await eventually(async () => {
    const res = (await verification(recOf.memory.id)).body;
    return Date.parse(res.computed_at) > Date.parse(memoryBefore.computed_at) ? res : undefined;
  });
  assert.is(memory.status, 'holding');
  for (const theme of ['memory', 'disk_full'] as const) {
    const r = (await api.get(`/v1/recommendations/${recOf[theme].id}`)).body;
    assert.equal([r.status, r.run_id, r.implemented_at], ['implemented', run1.id, FIX_AT]);
  }
  // The alert stays open (not raised twice), refreshed by the second run; the fit follows the data.
  const alert = (await api.get(`/v1/alerts?pattern_id=${patternOf.disk_full.id}`)).body.data;
  assert.equal(
    alert.map((a: any) => [a.status, a.run_id, a.last_run_id]),
    [['open', run1.id, run2.id]],
  );
  assert.is((await feed('alert')).length, 2);
  const hazard = (await api.get(`/v1/patterns/${patternOf.disk_full.id}/hazard`)).body;
  const members = await listAll(api, `/v1/issues?pattern_id=${patternOf.disk_full.id}`);
  assert.ok(members.length > membersOf.disk_full.length + 40, `${members.length} members`);
  assert.equal([hazard.run_id, hazard.n_occurrences], [run2.id, members.length]);
  assert.is((await api.get('/v1/predictions/backtests')).body.data.length, 2);
});

test('re-ingesting an issue of a pattern with an implemented fix enqueues its verification in the same request', async () => {
  const verifyJobs = async () =>
    (
      await t.app.pool.query(`select count(*)::int as n from job_runs where kind = 'recommendation__verify' and payload->>'recommendation_id' = $1`, [
        recOf.memory.id,
      ])
    ).rows[0].n;
  const jobsBefore = await verifyJobs();
  const member = membersOf.memory[0];
  const again = await api.post('/v1/ingest/events', { ...member, title: `${member.title} (again)` }, fresh());
  assert.is(again.status, 202, again.text);
  assert.is(await verifyJobs(), jobsBefore + 1);
  // POST /v1/issues with a known (source, external_id) updates the issue as ingest does: verified again too.
  await eventually(async () =>
    (await t.app.pool.query(`select 1 from job_runs where kind = 'recommendation__verify' and status = 'queued'`)).rowCount ? undefined : true,
  );
  const updated = await api.post('/v1/issues', { ...member, title: `${member.title} (updated)` });
  assert.equal([updated.status, updated.body.pattern_id], [200, patternOf.memory.id], updated.text);
  assert.is(await verifyJobs(), jobsBefore + 2);
  // An issue of a pattern without an implemented fix enqueues nothing.
  const total = async () => (await t.app.pool.query(`select count(*)::int as n from job_runs where kind = 'recommendation__verify'`)).rows[0].n;
  const totalBefore = await total();
  const other = membersOf.network[0];
  assert.is((await api.post('/v1/ingest/events', { ...other, title: `${other.title} (again)` }, fresh())).status, 202);
  assert.is(await total(), totalBefore);
});

test('the daily sweep (cron) verifies every implemented fix; a regression is not raised twice', async () => {
  const items = parseCrontab(crontab);
  assert.ok(
    items.some((i) => i.task === 'recommendation__verify_all'),
    crontab,
  );
  const before = (await verification(recOf.disk_full.id)).body;
  // What graphile-worker's cron adds: the task with a `_cron` payload.
  await t.app.pool.query(`select graphile_worker.add_job('recommendation__verify_all', json_build_object('_cron', json_build_object('ts', now()::text)))`);
  const sweep = await eventually(async () => {
    const { rows } = await t.app.pool.query<{ status: string; result: { implemented: number } }>(
      `select status, result from job_runs where kind = 'recommendation__verify_all'`,
    );
    return rows[0]?.status === 'succeeded' ? rows[0] : undefined;
  });
  assert.is(sweep.result.implemented, 2);
  const after = await eventually(async () => {
    const v = (await verification(recOf.disk_full.id)).body;
    return Date.parse(v.computed_at) > Date.parse(before.computed_at) ? v : undefined;
  });
  assert.equal([after.status, after.regressed_at], ['regressed', before.regressed_at]);
  assert.is((await feed('recommendation')).filter((e) => e.type === 'recommendation.regressed').length, 1);
});

test('a run that no longer finds the recurrence probability at the threshold resolves the alerts (alert.resolved)', async () => {
  // The same data under a hazard config that asks for a recurrence within 1 day with 99% probability.
  const hazard = (await api.get('/v1/configs/hazard')).body.active.document;
  const version = await api.post('/v1/configs/hazard/versions', { ...hazard, alert_horizon_days: 1, alert_threshold: 0.99 }, fresh());
  assert.is(version.status, 201, version.text);
  const run3 = await runEngine({ configs: { hazard: version.body.id } });
  assert.equal([run3.summary.forecasts.alerts_raised, run3.summary.forecasts.alerts_resolved], [0, 2]);
  const resolved = await listAll(api, '/v1/alerts?status=resolved');
  assert.is(resolved.length, 2);
  for (const a of resolved as any[]) assert.equal([a.resolved_run_id, a.last_run_id, typeof a.resolved_at], [run3.id, run2.id, 'string']);
  assert.equal((await api.get('/v1/alerts?status=open')).body.data, []);
  const events = (await feed('alert')).filter((e) => e.type === 'alert.resolved');
  assert.equal(events.map((e) => e.aggregate_id).sort(), resolved.map((a) => a.id).sort());
  // The run verified the fixes again: the regression is still one event.
  await eventually(async () => {
    const { rows } = await t.app.pool.query(
      `select count(*)::int as n from job_runs where kind = 'recommendation__verify' and status in ('queued', 'running')`,
    );
    return rows[0].n === 0 ? true : undefined;
  });
  assert.is((await feed('recommendation')).filter((e) => e.type === 'recommendation.regressed').length, 1);
});

test('replay of a run through stage 10 is identical', async () => {
  for (const run of [run1, run2]) {
    const res = await api.post(`/v1/engine/runs/${run.id}/replay`);
    assert.is(res.status, 200, res.text);
    assert.is(res.body.identical, true, JSON.stringify(res.body.diff_summary));
    assert.equal(
      res.body.diff_summary.stages.map((s: any) => s.stage),
      stageNames,
    );
  }
});

test('scopes: patterns:read, predictions:read and recommendations:read guard the reads', async () => {
  const patternsOnly = t.platform.as(await serviceAccountToken(api, ['patterns:read']));
  assert.is((await patternsOnly.get(`/v1/patterns/${patternOf.disk_full.id}/hazard`)).status, 200);
  assert.is((await patternsOnly.get('/v1/alerts')).status, 200);
  assertError(await patternsOnly.get('/v1/predictions'), 403, 'forbidden', { required_scope: 'predictions:read' });
  assertError(await patternsOnly.get('/v1/predictions/backtests'), 403, 'forbidden', { required_scope: 'predictions:read' });
  assertError(await patternsOnly.get(`/v1/recommendations/${recOf.memory.id}/verification`), 403, 'forbidden', { required_scope: 'recommendations:read' });
  const predictionsOnly = t.platform.as(await serviceAccountToken(api, ['predictions:read']));
  assertError(await predictionsOnly.get('/v1/alerts'), 403, 'forbidden', { required_scope: 'patterns:read' });
});

test.run();
