/**
 * The facts document of a report: deterministic JSON built only from the stored outputs of one
 * engine run (its patterns, hazard, predict and recommend stage outputs, the run's membership
 * relation and the occurrence times of its snapshot). Same run and kind, same bytes: keys sorted
 * (engine/manifest.ts's canonical encoding), lists in the stage outputs' order or sorted by id, no
 * clock. Quantities carry their unit (quantity.ts); chart data sits under `series`. Provenance goes
 * down to issue ids: every pattern the facts describe lists its member issue ids (sorted) with their
 * SHA-256 digest.
 */
import { encodeOutput, sha256 } from '../manifest.ts';
import type { PatternOutput } from '../stages/07_patterns.ts';
import type { HazardOutput, PatternHazard } from '../stages/08_hazard.ts';
import type { BacktestScores, PredictOutput } from '../stages/09_predict.ts';
import type { RecommendOutput } from '../stages/10_recommend.ts';
import { measuring, quantity as q, type Quantity } from './quantity.ts';

export const reportKinds = ['pattern_brief', 'workspace_risk', 'recommendation_case', 'backtest_accuracy'] as const;
export type ReportKind = (typeof reportKinds)[number];

/** Kinds about one pattern (they need `pattern_id`). */
export const patternKinds: readonly ReportKind[] = ['pattern_brief', 'recommendation_case'];

/** How many of the riskiest patterns a workspace risk report describes. */
export const TOP_PATTERNS = 10;

export interface ReportSources {
  run: { id: string; as_of: string; engine_version: string; output_digest: string; config_versions: Record<string, string> };
  /** Digests of the stage outputs read. */
  stages: Array<{ stage: string; digest: string }>;
  patterns: PatternOutput[];
  hazard: HazardOutput;
  predict: PredictOutput;
  recommend: RecommendOutput;
  /** Member issue ids of the patterns `patternsNeeded` named, from the run's membership relation. */
  members: Record<string, string[]>;
  /** Occurrence times (ISO) of those members, from the run's snapshot. */
  occurrences: Record<string, string[]>;
  rootCauseNames: Record<string, string>;
}

/** The patterns whose members and occurrences a report of `kind` needs (the riskiest first for workspace_risk). */
export function patternsNeeded(kind: ReportKind, patterns: PatternOutput[], recommend: RecommendOutput, patternId?: string): string[] {
  if (kind === 'pattern_brief' || kind === 'recommendation_case') return patternId ? [patternId] : [];
  if (kind === 'backtest_accuracy') return [];
  return riskiest(patterns, recommend).map((p) => p.id);
}

function riskiest(patterns: PatternOutput[], recommend: RecommendOutput): PatternOutput[] {
  const risk = new Map(recommend.risk_scores.map((r) => [r.pattern_id, r.risk_score]));
  return [...patterns]
    .sort((a, b) => (risk.get(b.id) ?? b.risk_score) - (risk.get(a.id) ?? a.risk_score) || b.issue_count - a.issue_count || (a.id < b.id ? -1 : 1))
    .slice(0, TOP_PATTERNS);
}

const estimate = (e: { estimate: number; lower: number; upper: number }, unit: Quantity['unit'], currency?: string) => ({
  estimate: q(e.estimate, unit, currency),
  lower: q(e.lower, unit, currency),
  upper: q(e.upper, unit, currency),
});
const date = (iso: string | null) => (iso ? q(iso, 'date') : null);

/**
 * The quantities the facts hold in more than one place (one pattern's recurrence probability and
 * expected occurrences per horizon): each is marked with what it measures, so that the fact check
 * fails a document in which two of them disagree.
 */
const recurrenceProbability = (patternId: string, horizonDays: number, value: number) =>
  measuring(`recurrence_probability:${patternId}:${horizonDays}d`, q(value, 'probability'));
const expectedOccurrences = (patternId: string, horizonDays: number, value: number) =>
  measuring(`expected_occurrences:${patternId}:${horizonDays}d`, q(value, 'number'));

/** Monthly occurrence counts ("pattern size over time"), months without occurrences included. */
export function occurrencesByMonth(times: string[]): Array<{ month: Quantity; count: Quantity }> {
  if (!times.length) return [];
  const counts = new Map<string, number>();
  for (const t of times) counts.set(t.slice(0, 7), (counts.get(t.slice(0, 7)) ?? 0) + 1);
  const sorted = [...counts.keys()].sort();
  const out: Array<{ month: Quantity; count: Quantity }> = [];
  let [y, m] = sorted[0].split('-').map(Number);
  const last = sorted.at(-1)!;
  for (;;) {
    const key = `${y}-${String(m).padStart(2, '0')}`;
    out.push({ month: q(key, 'month'), count: q(counts.get(key) ?? 0, 'count') });
    if (key === last) return out;
    m = m === 12 ? 1 : m + 1;
    if (m === 1) y++;
  }
}

function issuesOf(ids: string[]) {
  const sorted = [...ids].sort();
  return { count: q(sorted.length, 'count'), digest: sha256(sorted.join('\n')), issue_ids: sorted };
}

function patternFacts(p: PatternOutput, s: ReportSources) {
  const risk = s.recommend.risk_scores.find((r) => r.pattern_id === p.id);
  return {
    id: p.id,
    name: p.name,
    top_terms: p.top_terms,
    domain: p.domain,
    root_cause: p.root_cause ? { id: p.root_cause, name: s.rootCauseNames[p.root_cause] ?? p.root_cause } : null,
    root_cause_share: q(p.rollup.share, 'probability'),
    issue_count: q(p.issue_count, 'count'),
    first_seen_at: date(p.first_seen_at),
    last_seen_at: date(p.last_seen_at),
    risk_score: q(risk?.risk_score ?? p.risk_score, 'score'),
    stability: { status: p.stability.status, jaccard: p.stability.jaccard },
    issues: issuesOf(s.members[p.id] ?? []),
    occurrences_by_month: occurrencesByMonth(s.occurrences[p.id] ?? []),
  };
}

function hazardFacts(h: PatternHazard | undefined, level: number, alertHorizon: number | undefined) {
  if (!h) return null;
  if (h.status === 'not_fitted') {
    return {
      status: h.status,
      reason: h.reason,
      detail: h.detail,
      n_gaps: q(h.n_gaps, 'count'),
      n_occurrences: q(h.n_occurrences, 'count'),
      min_gaps: q(h.min_gaps, 'count'),
    };
  }
  return {
    status: h.status,
    model: h.model,
    interval_level: q(level, 'probability'),
    shape: q(h.parameters.shape, 'number'),
    scale_days: q(h.parameters.scale, 'days'),
    n_gaps: q(h.n_gaps, 'count'),
    n_occurrences: q(h.n_occurrences, 'count'),
    first_occurrence_at: date(h.first_occurrence_at),
    last_occurrence_at: date(h.last_occurrence_at),
    since_last_days: q(h.since_last_days, 'days'),
    // Outputs stored before dormancy was decided have no `dormancy`: they were not dormant.
    dormant: h.dormancy?.dormant ?? false,
    silence_probability: h.dormancy ? q(h.dormancy.silence_probability, 'probability') : null,
    dormancy_level: h.dormancy ? q(h.dormancy.level, 'probability') : null,
    p_alert: h.p_alert && {
      ...estimate(h.p_alert, 'probability'),
      // Runs stored before the output named its alert horizon: not marked.
      ...(alertHorizon === undefined ? {} : { estimate: recurrenceProbability(h.pattern_id, alertHorizon, h.p_alert.estimate) }),
    },
    forecast: h.forecast.map((f) => ({
      horizon_days: q(f.horizon_days, 'days'),
      expected: expectedOccurrences(h.pattern_id, f.horizon_days, f.expected),
      lower: q(f.lower, 'count'),
      upper: q(f.upper, 'count'),
      probability_any: recurrenceProbability(h.pattern_id, f.horizon_days, f.probability_any),
    })),
    series: h.curves,
  };
}

function patternDetail(patternId: string, s: ReportSources) {
  const p = s.patterns.find((x) => x.id === patternId);
  if (!p) throw new RangeError(`pattern ${patternId} is not a pattern of run ${s.run.id}`);
  const prediction = s.predict.predictions.find((x) => x.pattern_id === p.id);
  const financials = s.recommend.financials.find((x) => x.pattern_id === p.id);
  const rec = s.recommend.recommendations.find((x) => x.pattern_id === p.id);
  const alert = s.hazard.alerts.find((a) => a.pattern_id === p.id);
  const currency = financials?.currency ?? s.recommend.currency;
  return {
    pattern: patternFacts(p, s),
    hazard: hazardFacts(
      s.hazard.patterns.find((h) => h.pattern_id === p.id),
      s.hazard.interval_level,
      alert?.horizon_days ?? s.hazard.alert_horizon_days,
    ),
    prediction: prediction
      ? {
          horizon_days: q(prediction.horizon_days, 'days'),
          p_recurrence: {
            ...estimate(prediction.p_recurrence, 'probability'),
            estimate: recurrenceProbability(p.id, prediction.horizon_days, prediction.p_recurrence.estimate),
          },
          expected_time_to_next_days: estimate(prediction.expected_time_to_next_days, 'days'),
        }
      : null,
    financials: financials
      ? {
          currency,
          cost_per_occurrence: q(financials.cost_per_occurrence, 'currency', currency),
          occurrences_to_date: q(financials.occurrences_to_date, 'count'),
          cost_to_date: q(financials.cost_to_date, 'currency', currency),
          horizons: financials.horizons.map((h) => ({
            horizon_days: q(h.horizon_days, 'days'),
            expected_occurrences: expectedOccurrences(p.id, h.horizon_days, h.expected_occurrences),
            expected_cost: estimate(h.expected_cost, 'currency', currency),
          })),
        }
      : null,
    recommendation: rec
      ? {
          id: rec.id,
          status: rec.status,
          abstain_reason: rec.abstain_reason,
          root_cause: rec.root_cause ? { id: rec.root_cause, name: s.rootCauseNames[rec.root_cause] ?? rec.root_cause } : null,
          playbook: rec.playbook
            ? {
                title: rec.playbook.title,
                steps: rec.playbook.steps,
                effort_hours: q(rec.playbook.effort_hours, 'number'),
                expected_reduction: q(rec.playbook.expected_reduction, 'probability'),
              }
            : null,
          business_case: rec.business_case
            ? {
                horizon_days: q(rec.business_case.horizon_days, 'days'),
                avoided_cost: estimate(rec.business_case.avoided_cost, 'currency', currency),
                fix_cost: q(rec.business_case.fix_cost, 'currency', currency),
                roi: rec.business_case.roi === null ? null : q(rec.business_case.roi, 'ratio'),
                payback_days: rec.business_case.payback_days === null ? null : q(rec.business_case.payback_days, 'days'),
                confidence: q(rec.business_case.confidence, 'probability'),
              }
            : null,
        }
      : null,
    alert: alert
      ? {
          probability: recurrenceProbability(p.id, alert.horizon_days, alert.probability),
          lower: q(alert.lower, 'probability'),
          upper: q(alert.upper, 'probability'),
          threshold: q(alert.threshold, 'probability'),
          horizon_days: q(alert.horizon_days, 'days'),
        }
      : null,
  };
}

function workspaceRisk(s: ReportSources) {
  const fitted = s.hazard.patterns.filter((h) => h.status === 'fitted').length;
  const clustered = s.patterns.reduce((n, p) => n + p.issue_count, 0);
  const top = riskiest(s.patterns, s.recommend).map((p) => {
    const prediction = s.predict.predictions.find((x) => x.pattern_id === p.id);
    const risk = s.recommend.risk_scores.find((r) => r.pattern_id === p.id);
    const h = s.hazard.patterns.find((x) => x.pattern_id === p.id);
    return {
      ...patternFacts(p, s),
      p_recurrence: prediction ? recurrenceProbability(p.id, prediction.horizon_days, prediction.p_recurrence.estimate) : null,
      expected_cost: risk?.expected_cost != null ? q(risk.expected_cost, 'currency', s.recommend.currency) : null,
      forecast:
        h?.status === 'fitted'
          ? h.forecast.map((f) => ({
              horizon_days: q(f.horizon_days, 'days'),
              expected: expectedOccurrences(p.id, f.horizon_days, f.expected),
              lower: q(f.lower, 'count'),
              upper: q(f.upper, 'count'),
            }))
          : [],
    };
  });
  const expectedCost = s.recommend.risk_scores.reduce((sum, r) => sum + (r.expected_cost ?? 0), 0);
  return {
    totals: {
      patterns: q(s.patterns.length, 'count'),
      issues_in_patterns: q(clustered, 'count'),
      fitted_patterns: q(fitted, 'count'),
      open_alerts: q(s.hazard.alerts.length, 'count'),
      horizon_days: q(s.predict.horizon_days, 'days'),
      expected_cost: q(Math.round(expectedCost * 100) / 100, 'currency', s.recommend.currency),
      currency: s.recommend.currency,
    },
    top_patterns: top,
    alerts: s.hazard.alerts.map((a) => ({
      pattern_id: a.pattern_id,
      probability: q(a.probability, 'probability'),
      threshold: q(a.threshold, 'probability'),
      horizon_days: q(a.horizon_days, 'days'),
    })),
  };
}

function scores(sc: BacktestScores | null) {
  if (!sc) return null;
  return {
    n_scored: q(sc.n_scored, 'count'),
    n_patterns: q(sc.n_patterns, 'count'),
    base_rate: q(sc.base_rate, 'probability'),
    brier: q(sc.brier, 'number'),
    brier_reference: q(sc.brier_reference, 'number'),
    skill: sc.skill === null ? null : q(sc.skill, 'number'),
    coverage: sc.coverage === null ? null : q(sc.coverage, 'probability'),
    calibration: sc.calibration.map((b) => ({
      lower: q(b.lower, 'probability'),
      upper: q(b.upper, 'probability'),
      count: q(b.count, 'count'),
      mean_forecast: b.mean_forecast === null ? null : q(b.mean_forecast, 'probability'),
      observed_rate: b.observed_rate === null ? null : q(b.observed_rate, 'probability'),
    })),
  };
}

function backtest(s: ReportSources) {
  const b = s.predict.backtest;
  return {
    backtest: {
      horizon_days: q(b.horizon_days, 'days'),
      interval_level: q(b.interval_level, 'probability'),
      overall: scores(b.overall),
      // Dormant patterns make no forecast (backtests stored before dormancy have none).
      abstained: { count: q(b.abstained?.count ?? 0, 'count'), recurred: q(b.abstained?.recurred ?? 0, 'count') },
      origins: b.origins.map((o) => ({ origin_at: date(o.origin_at), fully_observed: o.fully_observed, scores: scores(o.scores) })),
      by_history: b.by_history.map((g) => ({ min_gaps: q(g.min_gaps, 'count'), scores: scores(g.scores) })),
      scored_patterns: [...new Set(s.predict.predictions.map((p) => p.pattern_id))].sort(),
    },
  };
}

export type Facts = Record<string, unknown> & { kind: ReportKind };

/** The facts of a report of `kind` over `sources` (`patternId` for the pattern kinds). */
export function buildFacts(kind: ReportKind, sources: ReportSources, patternId?: string): Facts {
  const head = { kind, run: { ...sources.run, stages: sources.stages } };
  switch (kind) {
    case 'pattern_brief':
    case 'recommendation_case':
      if (!patternId) throw new RangeError(`a ${kind} report needs a pattern`);
      return { ...head, ...patternDetail(patternId, sources) };
    case 'workspace_risk':
      return { ...head, ...workspaceRisk(sources) };
    case 'backtest_accuracy':
      return { ...head, ...backtest(sources) };
  }
}

/** The canonical bytes of a facts document and their SHA-256 (what "byte-identical" is measured on). */
export function encodeFacts(facts: Facts): { json: string; digest: string } {
  const bytes = encodeOutput(facts);
  return { json: bytes.toString('utf8'), digest: sha256(bytes) };
}
