/**
 * Engine stages 8-10 (hazard, predict, recommend) on small hand-made patterns whose numbers can be
 * checked by hand: equal gaps make the Weibull shape unbounded, so the exponential is fitted, with
 * rate d/Σt (d observed gaps, Σt all durations including the open gap), p = 1 - exp(-h·d/Σt), a
 * memoryless mean time to the next occurrence Σt/d and the interval of log λ with variance 1/d.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeOutput } from '../../engine/manifest.ts';
import { censoredGaps } from '../../engine/hazard/censoredGaps.ts';
import type { HazardFit } from '../../engine/hazard/fit.ts';
import { normalQuantile } from '../../engine/hazard/normalQuantile.ts';
import { recurrenceProbability } from '../../engine/hazard/recurrenceProbability.ts';
import { selectModel } from '../../engine/hazard/selectModel.ts';
import { snapshot, type SnapshotInput, type SnapshotOutput } from '../../engine/stages/01_snapshot.ts';
import type { PatternOutput, PatternsOutput } from '../../engine/stages/07_patterns.ts';
import { issueDigest } from '../../engine/stages/context.ts';
import { hazard, type HazardOutput, type PatternHazardFitted, type PatternHazardNotFitted } from '../../engine/stages/08_hazard.ts';
import { predict, scoreForecasts } from '../../engine/stages/09_predict.ts';
import { recommend, type RecommendOutput } from '../../engine/stages/10_recommend.ts';
import { testConfigs, testContext, type ConfigOverrides } from '../helpers/engineInput.ts';
import { buildFacts } from '../../engine/report/facts.ts';
import { checkNarrative, conflictingFacts } from '../../engine/report/factCheck.ts';
import { builtInTemplate, renderTemplate } from '../../engine/report/templates.ts';

const DAY = 86_400_000;
const AS_OF = '2024-03-06T00:00:00.000Z';
const T0 = Date.parse(AS_OF) - 35 * DAY; // day 0; as-of is day 35
const at = (day: number) => new Date(T0 + day * DAY).toISOString();
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const close = (actual: number, expected: number, tolerance: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual} vs ${expected} (± ${tolerance})`);

type Severity = 'critical' | 'high' | 'medium' | 'low';
interface Member {
  day: number | null;
  severity?: Severity;
}

/** Issues numbered from `first`, one per member. */
function issuesOf(first: number, members: Member[]): SnapshotInput['issues'] {
  return members.map((m, i) => ({
    id: id(first + i),
    title: `Issue ${first + i}`,
    narrative: 'narrative',
    severity: m.severity ?? 'medium',
    source: 'jira',
    occurred_at: m.day === null ? null : at(m.day),
    created_at: at(0),
  }));
}

function pattern(n: number, memberIds: string[], rootCause: string | null, risk = 40): PatternOutput {
  return {
    id: id(9000 + n),
    previous_id: null,
    match_score: null,
    label: n,
    name: `pattern ${n}`,
    path: 'prose',
    template: null,
    examples: [],
    top_terms: [],
    terms: [],
    member_ids: [...memberIds].sort(),
    issue_count: memberIds.length,
    first_seen_at: null,
    last_seen_at: null,
    domain: null,
    root_cause: rootCause,
    rollup: { status: rootCause ? 'decided' : 'abstained', root_cause: rootCause, share: rootCause ? 0.75 : 0.4, decided: 4, abstained: 0, causes: [] },
    stability: { jaccard: 0.9, status: 'stable' },
    human: null,
    risk_score: risk,
    risk_components: { severity: 0.55, recency: 0.5, volume: 0.3 },
    provenance: { run_id: 'r', stage: 'patterns', config_versions: {}, issue_count: 0, issue_digest: issueDigest([]), issues_url: null },
  };
}

/**
 * A: occurrences on days 0, 10, 20, 30 (as-of day 35): gaps 10, 10, 10 and the open gap 5 → exponential, λ = 35/3 days.
 *    Severities high, high, medium, medium; one more member without occurred_at (ignored by the hazard).
 * B: no member has occurred_at.
 * C: days 5, 15, 25: 2 gaps, fewer than min_gaps 3.
 * D: days 0, 10, 20, 30 but rate as A; root cause abstained.
 * E: days -365, -265, -165, -65: gaps 100 and the open gap 100 → p over 30 days small (no alert). Root cause outside the taxonomy.
 */
function fixture(): { snapshot: SnapshotOutput; patterns: PatternsOutput } {
  const a = issuesOf(1, [{ day: 0, severity: 'high' }, { day: 10, severity: 'high' }, { day: 20 }, { day: 30 }, { day: null }]);
  const b = issuesOf(100, [{ day: null }, { day: null }, { day: null }]);
  const c = issuesOf(200, [{ day: 5 }, { day: 15 }, { day: 25 }]);
  const d = issuesOf(300, [{ day: 0 }, { day: 10 }, { day: 20 }, { day: 30 }]);
  const e = issuesOf(400, [{ day: -365 }, { day: -265 }, { day: -165 }, { day: -65 }]);
  const snap = snapshot(
    { workspace_id: id(1000), event_sequence: 20, previous_run_id: null, issues: [...a, ...b, ...c, ...d, ...e], decisions: [], previous_patterns: [] },
    testContext(),
  );
  const ids = (list: SnapshotInput['issues']) => list.map((i) => i.id);
  const patterns = [
    pattern(1, ids(a), 'timeout'),
    pattern(2, ids(b), 'timeout'),
    pattern(3, ids(c), 'timeout'),
    pattern(4, ids(d), null),
    pattern(5, ids(e), 'made_up_cause'),
  ];
  return { snapshot: snap, patterns: { patterns, pattern_ids: [], retired: [], review: [] } };
}

const ctxWith = (overrides: ConfigOverrides = {}, seed = 42) =>
  testContext({ asOf: AS_OF, seed, configs: testConfigs({ hazard: { min_gaps: 3 }, ...overrides }) });
const ctx = ctxWith();
const input = fixture();
const out: HazardOutput = hazard(input, ctx);
const fitted = (n: number) => out.patterns.find((p) => p.pattern_id === id(9000 + n)) as PatternHazardFitted;
const notFitted = (n: number) => out.patterns.find((p) => p.pattern_id === id(9000 + n)) as PatternHazardNotFitted;
const z90 = normalQuantile(0.95);

test('hazard: equal gaps give the exponential with λ = Σt/d, and its standard error', () => {
  const a = fitted(1);
  assert.is(a.status, 'fitted');
  assert.is(a.model, 'exponential');
  assert.is(a.selection.weibull_not_fitted_reason, 'no_variation');
  assert.is(a.n_gaps, 3);
  assert.is(a.n_censored, 1);
  assert.is(a.n_occurrences, 4); // the member without occurred_at is ignored
  close(a.parameters.scale, 35 / 3, 1e-9, 'scale');
  assert.is(a.parameters.shape, 1);
  close(a.parameters.scale_se, (35 / 3) * Math.sqrt(1 / 3), 1e-9, 'SE of the scale (λ·√(1/d))');
  close(a.since_last_days, 5, 1e-9, 'days since the last occurrence');
  assert.is(a.first_occurrence_at, at(0));
  assert.is(a.last_occurrence_at, at(30));
  // The exponential hazard is flat at 1/λ; the grid runs to the longest forecast horizon (90 d > 10 d).
  assert.is(a.curves.times_days.length, ctx.configs.hazard.document.curve_points);
  close(a.curves.times_days.at(-1)!, 90, 1e-9, 'grid end');
  for (const h of a.curves.hazard) close(h, 3 / 35, 1e-12, 'hazard');
  close(a.curves.survival[0], Math.exp(-a.curves.times_days[0] / (35 / 3)), 1e-12, 'S(t)');
  assert.ok(a.curves.survival_lower[10] < a.curves.survival[10] && a.curves.survival[10] < a.curves.survival_upper[10]);
});

test('hazard: the forecast of a Poisson process (expected h·d/Σt) over each horizon, with integer intervals', () => {
  const a = fitted(1);
  assert.equal(
    a.forecast.map((f) => f.horizon_days),
    [7, 30, 90],
  ); // prediction horizon 30 is one of them
  for (const f of a.forecast) {
    close(f.expected, (f.horizon_days * 3) / 35, 4 * f.monte_carlo_error + 1e-9, `expected over ${f.horizon_days} d`);
    assert.ok(Number.isInteger(f.lower) && Number.isInteger(f.upper) && f.lower <= f.expected && f.expected <= f.upper);
  }
});

test('hazard: p_alert = 1 - exp(-30·d/Σt) with the interval of log ΔH; an alert at or above the threshold only', () => {
  const a = fitted(1);
  const rate = 3 / 35;
  close(a.p_alert!.estimate, 1 - Math.exp(-30 * rate), 1e-12, 'p_alert');
  close(a.p_alert!.lower, 1 - Math.exp(-30 * rate * Math.exp(-z90 * Math.sqrt(1 / 3))), 1e-12, 'lower');
  close(a.p_alert!.upper, 1 - Math.exp(-30 * rate * Math.exp(z90 * Math.sqrt(1 / 3))), 1e-12, 'upper');
  const e = fitted(5);
  close(e.p_alert!.estimate, 1 - Math.exp((-30 * 3) / (300 + 100)), 1e-12, 'p_alert of E'); // Σt = 3 gaps of 100 + the open gap 100
  // A (0.924) and D (same data) alert; E (0.218) does not.
  assert.equal(
    out.alerts.map((x) => x.pattern_id),
    [id(9001), id(9004)],
  );
  const alert = out.alerts[0];
  assert.is(alert.threshold, 0.8);
  assert.is(alert.horizon_days, 30);
  assert.is(alert.as_of, AS_OF);
  assert.is(alert.probability, a.p_alert!.estimate);
  assert.is(alert.last_occurrence_at, at(30));
  // Lower the threshold below E's probability and E alerts too; raise it above A's and none does.
  assert.is(hazard(input, ctxWith({ hazard: { min_gaps: 3, alert_threshold: 0.2 } })).alerts.length, 3);
  assert.is(hazard(input, ctxWith({ hazard: { min_gaps: 3, alert_threshold: 0.93 } })).alerts.length, 0);
});

test('hazard: irregular gaps in days are fitted as selectModel fits them (here the Weibull, shape < 1)', () => {
  const days = [0, 0.1, 0.3, 10, 10.2, 10.25, 20, 20.1, 30, 30.4, 30.5, 33]; // bursts: AIC 41.9 (Weibull, shape 0.53) vs 49.5
  const members = issuesOf(
    500,
    days.map((day) => ({ day })),
  );
  const snap = snapshot({ workspace_id: id(1000), event_sequence: 12, previous_run_id: null, issues: members, decisions: [], previous_patterns: [] }, ctx);
  const only = {
    patterns: [
      pattern(
        6,
        members.map((m) => m.id),
        'timeout',
      ),
    ],
    pattern_ids: [],
    retired: [],
    review: [],
  };
  const f = hazard({ snapshot: snap, patterns: only }, ctx).patterns[0] as PatternHazardFitted;
  const expected = selectModel(censoredGaps(days, 35), { level: 0.9 });
  assert.is(f.model, 'weibull');
  assert.is(expected.chosen.model, 'weibull');
  const fit = expected.chosen as HazardFit;
  close(f.parameters.shape, fit.shape, 1e-9, 'shape');
  close(f.parameters.scale, fit.scale, 1e-9, 'scale (days)');
  assert.ok(f.parameters.shape < 1);
  // Days from ISO times differ from the exact days in the last bits only.
  f.parameters.shape_interval.forEach((x, i) => close(x, fit.interval.shape[i], 1e-9, 'shape interval'));
  close(f.selection.aic_weibull!, expected.aic.weibull!, 1e-9, 'AIC');
  close(f.selection.lrt_p_value!, expected.likelihoodRatio!.pValue, 1e-9, 'LRT p-value');
  close(f.since_last_days, 2, 1e-9, 'since last');
  close(f.p_alert!.estimate, recurrenceProbability(fit, 2, 30, 0.9).estimate, 1e-12, 'p_alert');
});

test('hazard: not fitted, with the API reasons and no curve', () => {
  const b = notFitted(2);
  assert.equal([b.status, b.reason, b.n_gaps, b.n_occurrences], ['not_fitted', 'no_timestamps', 0, 0]);
  const c = notFitted(3);
  assert.equal([c.status, c.reason, c.n_gaps, c.n_occurrences, c.min_gaps], ['not_fitted', 'insufficient_events', 2, 3, 3]);
  assert.match(c.detail, /2 gaps.*min_gaps 3/);
  for (const p of [b, c]) assert.not.ok('curves' in p || 'forecast' in p);
  // With min_gaps 2 the same pattern is fitted.
  const relaxed = hazard(input, ctxWith({ hazard: { min_gaps: 2 } }));
  assert.is(relaxed.patterns.find((p) => p.pattern_id === id(9003))!.status, 'fitted');
});

test('hazard: occurrences after as-of are left out; provenance names the members', () => {
  const later = hazard(input, testContext({ asOf: at(25), configs: testConfigs({ hazard: { min_gaps: 2 } }) }));
  const a = later.patterns.find((p) => p.pattern_id === id(9001)) as PatternHazardFitted;
  assert.is(a.n_occurrences, 3); // days 0, 10, 20
  assert.is(a.last_occurrence_at, at(20));
  // Bounded provenance: count, digest of the members and the link that lists them.
  assert.is(fitted(1).provenance.issue_count, input.patterns.patterns[0].member_ids.length);
  assert.is(fitted(1).provenance.issue_digest, issueDigest(input.patterns.patterns[0].member_ids));
  assert.is(fitted(1).provenance.issues_url, `/v1/issues?pattern_id=${input.patterns.patterns[0].id}`);
  assert.is(fitted(1).provenance.stage, 'hazard');
  assert.is(fitted(1).provenance.run_id, ctx.runId);
});

test('hazard: the same input gives bit-identical output; another seed changes only the simulated forecasts', () => {
  assert.equal(encodeOutput(hazard(fixture(), ctxWith())), encodeOutput(out));
  const other = hazard(fixture(), ctxWith({}, 43));
  const a = other.patterns.find((p) => p.pattern_id === id(9001)) as PatternHazardFitted;
  assert.equal(a.parameters, fitted(1).parameters);
  assert.equal(a.p_alert, fitted(1).p_alert);
  assert.is.not(JSON.stringify(a.forecast), JSON.stringify(fitted(1).forecast));
});

const predicted = predict({ ...input, hazard: out }, ctx);

test('predict: p_recurrence within 30 days and the mean time to the next occurrence, memoryless', () => {
  assert.equal(
    predicted.predictions.map((p) => p.pattern_id),
    [id(9001), id(9004), id(9005)],
  );
  const a = predicted.predictions[0];
  assert.is(a.horizon_days, 30);
  assert.is(a.as_of, AS_OF);
  close(a.p_recurrence.estimate, 1 - Math.exp((-30 * 3) / 35), 1e-12, 'p_recurrence');
  const lambda = 35 / 3;
  close(a.expected_time_to_next_days.estimate, lambda, 1e-9, 'E[T - s | T > s] = λ');
  close(a.expected_time_to_next_days.lower, lambda * Math.exp(-z90 * Math.sqrt(1 / 3)), 1e-6, 'lower');
  close(a.expected_time_to_next_days.upper, lambda * Math.exp(z90 * Math.sqrt(1 / 3)), 1e-6, 'upper');
  assert.is(a.since_last_days, 5);
  // Ids derive from the run and the pattern.
  assert.is(predict({ ...input, hazard: out }, ctx).predictions[0].id, a.id);
  assert.is.not(predict({ ...input, hazard: out }, testContext({ asOf: AS_OF, runId: id(77), configs: ctx.configs })).predictions[0].id, a.id);
});

test('predict: the backtest origins step back one horizon each from as-of; each refits on the data before it', () => {
  const bt = predicted.backtest;
  const cfg = ctx.configs.hazard.document;
  assert.is(bt.origins.length, cfg.backtest_origins);
  bt.origins.forEach((o, j) => {
    assert.is(o.origin_at, new Date(Date.parse(AS_OF) - (cfg.backtest_origins - j) * 30 * DAY).toISOString());
    assert.ok(o.fully_observed);
  });
  // Origins are days -145, -115, -85, -55, -25 and 5. Only E has 3 gaps before an origin, from day -55 on
  // (A, C and D have at most one occurrence before day 5): gaps 100, 100, 100 and the open gap 10, 40,
  // 70 days, none recurring within 30 days.
  const p = [310, 340, 370].map((exposure) => 1 - Math.exp((-30 * 3) / exposure));
  assert.equal(
    bt.origins.map((o) => o.scores?.n_scored ?? 0),
    [0, 0, 0, 1, 1, 1],
  );
  const overall = bt.overall!;
  assert.equal([overall.n_scored, overall.n_patterns, overall.base_rate, overall.brier_reference, overall.skill], [3, 1, 0, 0, null]);
  close(overall.brier, (p[0] ** 2 + p[1] ** 2 + p[2] ** 2) / 3, 1e-12, 'Brier');
  assert.is(overall.coverage, 1); // the count intervals include 0
  assert.equal(
    overall.calibration.map((b) => b.count),
    [0, 0, 3, 0, 0, 0, 0, 0, 0, 0],
  );
  assert.equal(
    bt.by_history.map((g) => [g.min_gaps, g.scores?.n_scored ?? 0]),
    [
      [3, 3],
      [10, 0],
    ],
  );
  assert.is(bt.provenance.issue_count, input.patterns.patterns[4].member_ids.length);
  assert.is(bt.provenance.issue_digest, issueDigest(input.patterns.patterns[4].member_ids));
});

test('predict: scoreForecasts pools Brier, skill against the base rate, calibration and inclusive interval coverage', () => {
  assert.is(scoreForecasts([]), null);
  const scores = scoreForecasts([
    { id: 'a', gaps: 3, probability: 0.8, lower: 1, upper: 3, actual: 1 }, // covered at the lower end
    { id: 'a', gaps: 4, probability: 0.2, lower: 0, upper: 2, actual: 3 }, // above the interval
    { id: 'b', gaps: 3, probability: 0.6, lower: 0, upper: 2, actual: 2 }, // covered at the upper end
    { id: 'c', gaps: 5, probability: 0.1, lower: 1, upper: 2, actual: 0 }, // below the interval
  ])!;
  assert.equal([scores.n_scored, scores.n_patterns, scores.base_rate, scores.coverage], [4, 3, 0.75, 0.5]);
  close(scores.brier, (0.2 ** 2 + 0.8 ** 2 + 0.4 ** 2 + 0.1 ** 2) / 4, 1e-12, 'Brier');
  close(scores.brier_reference, 0.1875, 1e-12, 'Brier of the base rate');
  close(scores.skill!, 1 - scores.brier / 0.1875, 1e-12, 'skill');
  assert.equal(
    scores.calibration.map((b) => b.count),
    [0, 1, 1, 0, 0, 0, 1, 0, 1, 0],
  );
});

const recommended: RecommendOutput = recommend({ ...input, hazard: out, predict: predicted }, ctx);
const rateCard = ctx.configs['rate-card'].document;

test('recommend: financials from the rate card and the forecast', () => {
  const fa = recommended.financials[0];
  // high: 8000 + 1 h × 5000; medium: 2000 + 0.25 h × 5000; members high, high, medium, medium, medium.
  const costs = [13_000, 13_000, 3_250, 3_250, 3_250];
  assert.is(fa.currency, 'USD');
  assert.is(fa.cost_to_date, 35_750);
  assert.is(fa.occurrences_to_date, 5);
  close(fa.cost_per_occurrence, 35_750 / 5, 1e-9, 'cost per occurrence');
  assert.is(
    costs.reduce((a, b) => a + b),
    fa.cost_to_date,
  );
  assert.is(fa.basis, 'hazard');
  fitted(1).forecast.forEach((f, i) => {
    const h = fa.horizons[i];
    assert.is(h.horizon_days, f.horizon_days);
    close(h.expected_cost.estimate, f.expected * 7_150, 1e-6, 'expected cost');
    close(h.expected_cost.lower, f.lower * 7_150, 1e-6, 'lower');
    close(h.expected_cost.upper, f.upper * 7_150, 1e-6, 'upper');
  });
  const fb = recommended.financials[1];
  assert.equal([fb.basis, fb.horizons, fb.cost_to_date], ['none', [], 3 * 3_250]);
});

test('recommend: a business case from the playbook over the longest horizon', () => {
  const r = recommended.recommendations[0];
  assert.is(r.status, 'proposed');
  assert.is(r.abstain_reason, null);
  assert.is(r.root_cause, 'timeout');
  const playbook = ctx.configs.taxonomy.document.root_causes.find((c) => c.id === 'timeout')!.playbook;
  assert.equal(r.playbook, playbook);
  const bc = r.business_case!;
  const window = recommended.financials[0].horizons.at(-1)!;
  assert.is(bc.horizon_days, 90);
  close(bc.avoided_cost.estimate, playbook.expected_reduction * window.expected_cost.estimate, 1e-6, 'avoided cost');
  close(bc.avoided_cost.upper, playbook.expected_reduction * window.expected_cost.upper, 1e-6, 'avoided upper');
  assert.is(bc.fix_cost, playbook.effort_hours * rateCard.engineering_hourly_rate); // 24 h × 120
  close(bc.roi!, (bc.avoided_cost.estimate - 2_880) / 2_880, 1e-9, 'roi');
  close(bc.payback_days!, 2_880 / (bc.avoided_cost.estimate / 90), 1e-9, 'payback');
  close(bc.confidence, (0.75 * 3) / (3 + 10), 1e-6, 'confidence');
});

test('recommend: abstention when the root cause abstained, has no playbook, or the pattern has no fit', () => {
  const [, b, , d, e] = recommended.recommendations;
  assert.equal([d.status, d.abstain_reason, d.root_cause, d.playbook, d.business_case], ['abstained', 'root_cause_abstained', null, null, null]);
  assert.equal([e.status, e.abstain_reason, e.playbook, e.business_case], ['abstained', 'no_playbook', null, null]);
  assert.equal([b.status, b.abstain_reason, b.business_case], ['abstained', 'not_fitted', null]);
  assert.is(b.playbook?.title, 'Make waits bounded and observable');
});

test('recommend: the refined risk score by its documented formula; the part-1 score without a fit', () => {
  const a = recommended.risk_scores[0];
  assert.is(a.basis, 'hazard');
  const e30 = recommended.financials[0].horizons.find((h) => h.horizon_days === 30)!.expected_cost.estimate;
  const critical = 25_000 + 4 * 5_000;
  close(a.expected_cost!, e30, 1e-9, 'expected cost over 30 days');
  const c = a.components as { p_recurrence: number; severity: number; cost: number };
  close(c.p_recurrence, 1 - Math.exp((-30 * 3) / 35), 1e-6, 'p');
  assert.is(c.severity, 0.55);
  close(c.cost, e30 / (e30 + critical), 1e-6, 'cost');
  assert.is(a.risk_score, Math.round(100 * (0.4 * c.p_recurrence + 0.3 * c.severity + 0.3 * c.cost)));
  const b = recommended.risk_scores[1];
  assert.equal([b.basis, b.risk_score, b.components, b.expected_cost], ['patterns', 40, { severity: 0.55, recency: 0.5, volume: 0.3 }, null]);
  // Bit-identical on the same input.
  assert.equal(encodeOutput(recommend({ ...input, hazard: out, predict: predicted }, ctx)), encodeOutput(recommended));
});

test('one fact per quantity: the brief of a fitted pattern holds one recurrence probability per horizon, narrative and table alike', () => {
  const irregular = [0, 0.1, 0.3, 10, 10.2, 10.25, 20, 20.1, 30, 30.4, 30.5, 33]; // the Weibull: Monte Carlo and the formula differ
  const members = issuesOf(
    600,
    irregular.map((day) => ({ day })),
  );
  const snap = snapshot({ workspace_id: id(1000), event_sequence: 12, previous_run_id: null, issues: members, decisions: [], previous_patterns: [] }, ctx);
  const own = {
    snapshot: snap,
    patterns: {
      patterns: [
        pattern(
          7,
          members.map((m) => m.id),
          'timeout',
        ),
      ],
      pattern_ids: [],
      retired: [],
      review: [],
    },
  };
  const h = hazard(own, ctx);
  const p = predict({ ...own, hazard: h }, ctx);
  const r = recommend({ ...own, hazard: h, predict: p }, ctx);
  const patternId = id(9007);
  const facts = buildFacts(
    'pattern_brief',
    {
      run: { id: ctx.runId, as_of: AS_OF, engine_version: 'test', output_digest: 'd', config_versions: {} },
      stages: [],
      patterns: own.patterns.patterns,
      hazard: h,
      predict: p,
      recommend: r,
      members: { [patternId]: members.map((m) => m.id) },
      occurrences: { [patternId]: members.map((m) => m.occurred_at!) },
      rootCauseNames: {},
    },
    patternId,
  ) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  const row30 = facts.hazard.forecast.find((f: { horizon_days: { value: number } }) => f.horizon_days.value === 30);
  assert.is(row30.probability_any.value, facts.prediction.p_recurrence.estimate.value);
  assert.is(facts.hazard.p_alert.estimate.value, facts.prediction.p_recurrence.estimate.value); // alert horizon 30 too
  assert.equal(conflictingFacts(facts), []);
  const narrative = renderTemplate(builtInTemplate(facts as never), facts as never);
  assert.ok(checkNarrative(narrative, facts).ok, narrative);
});

test('dormant: a pattern silent for far longer than its gaps keeps its fit but gets no forecast, alert, prediction or case; the brief says so', () => {
  // Every 3 days for 60 days, then silent for a year before as-of.
  const members = issuesOf(
    700,
    Array.from({ length: 21 }, (_, i) => ({ day: -425 + 3 * i })),
  );
  const snap = snapshot({ workspace_id: id(1000), event_sequence: 21, previous_run_id: null, issues: members, decisions: [], previous_patterns: [] }, ctx);
  const own = {
    snapshot: snap,
    patterns: {
      patterns: [
        pattern(
          8,
          members.map((m) => m.id),
          'timeout',
        ),
      ],
      pattern_ids: [],
      retired: [],
      review: [],
    },
  };
  const h = hazard(own, ctx);
  const fit = h.patterns[0] as PatternHazardFitted;
  assert.is(fit.status, 'fitted');
  assert.ok(fit.dormancy.dormant && fit.dormancy.silence_probability < fit.dormancy.level, JSON.stringify(fit.dormancy));
  assert.ok(fit.curves.survival.length > 0 && fit.n_gaps === 20, 'the history stays');
  assert.equal([fit.forecast, fit.p_alert, h.alerts], [[], null, []]);
  const p = predict({ ...own, hazard: h }, ctx);
  assert.equal(p.predictions, []);
  const r = recommend({ ...own, hazard: h, predict: p }, ctx);
  assert.equal(
    [r.recommendations[0].abstain_reason, r.recommendations[0].business_case, r.financials[0].basis, r.financials[0].horizons],
    ['dormant', null, 'none', []],
  );
  const patternId = id(9008);
  const facts = buildFacts(
    'pattern_brief',
    {
      run: { id: ctx.runId, as_of: AS_OF, engine_version: 'test', output_digest: 'd', config_versions: {} },
      stages: [],
      patterns: own.patterns.patterns,
      hazard: h,
      predict: p,
      recommend: r,
      members: { [patternId]: members.map((m) => m.id) },
      occurrences: { [patternId]: members.map((m) => m.occurred_at!) },
      rootCauseNames: {},
    },
    patternId,
  );
  const narrative = renderTemplate(builtInTemplate(facts), facts);
  assert.match(narrative, /\*\*Dormant:\*\* under this model a silence this long has a probability below 1%/);
  assert.not.match(narrative, /Probability of any|probability of a recurrence within/);
  assert.ok(checkNarrative(narrative, facts).ok, JSON.stringify(checkNarrative(narrative, facts)));
  // The backtest's abstentions are in the backtest report's facts and narrative.
  const backtestFacts = buildFacts('backtest_accuracy', {
    run: { id: ctx.runId, as_of: AS_OF, engine_version: 'test', output_digest: 'd', config_versions: {} },
    stages: [],
    patterns: own.patterns.patterns,
    hazard: h,
    predict: { ...p, backtest: { ...p.backtest, abstained: { count: 4, recurred: 1 } } },
    recommend: r,
    members: {},
    occurrences: {},
    rootCauseNames: {},
  });
  const backtestNarrative = renderTemplate(builtInTemplate(backtestFacts), backtestFacts);
  assert.match(backtestNarrative, /made no forecast: 4 abstentions, of which 1 recurred/);
  assert.ok(checkNarrative(backtestNarrative, backtestFacts).ok);
  // A pattern that recurs as usual is not dormant.
  assert.not.ok(fitted(1).dormancy.dormant);
});

test.run();
