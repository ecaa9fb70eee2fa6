/**
 * Stage 9, predict: projections of the fitted hazards, and how good such projections have been.
 *
 * Predictions (one per fitted pattern that is not dormant, horizon H = hazard config `prediction_horizon_days`, s = days
 * since the last occurrence at as-of):
 * - p_recurrence = P(T ≤ s + H | T > s) (recurrenceProbability, delta-method interval);
 * - expected_time_to_next_days = E[T - s | T > s], the mean residual life (meanResidualLife,
 *   delta-method interval of the mean; it is not a prediction interval of the time itself).
 * Both on the model's clock when stage 8 kept a trend (engine/hazard/trend.ts: clockAge, clockHorizon,
 * and meanResidualDays, which maps the residual back to days).
 *
 * Backtest by rolling origin over the workspace: origins o_j = as_of - j·H for j = 1 … `backtest_origins`.
 * At each origin every pattern of the run is refitted on its occurrences strictly before o (the open gap
 * censored at o); one with at least `min_gaps` gaps and a fit predicts p = P(recurrence in [o, o + H))
 * and a predictive interval of the count in that window (forecastOccurrences, seeded), scored against
 * its occurrences in [o, o + H); a pattern dormant at the origin abstains (counted, with how many of
 * those recurred all the same). Only origins whose whole horizon is observed (o + H ≤ as_of) may be
 * scored (rollingBacktest leaves any other unscored); these origins all are, by construction. Scores: Brier score; Brier skill against the base rate,
 * the observed frequency of recurrence over the same scored forecasts (sample climatology, Wilks
 * 2011 §8.4.2); calibration bins (10 equal-width); interval coverage of the count intervals.
 */
import { deriveSeed } from '../rng.ts';
import { DAY_MS } from '../time.ts';
import { brierSkillScore, calibrationBins, intervalCoverage } from '../hazard/brier.ts';
import { rollingBacktest, type BacktestAbstention, type BacktestForecast } from '../hazard/backtest.ts';
import type { HazardModelName } from '../hazard/fit.ts';
import { recurrenceProbability } from '../hazard/recurrenceProbability.ts';
import { clockAge, clockHorizon, meanResidualDays } from '../hazard/trend.ts';
import { provenance, type Provenance, type StageContext } from './context.ts';
import type { SnapshotOutput } from './01_snapshot.ts';
import { derivedUuid, type PatternsOutput } from './07_patterns.ts';
import { clockOf, fitOf, occurrenceTimes, type Estimate, type HazardOutput } from './08_hazard.ts';

export interface Prediction {
  /** Deterministic from the run and the pattern. */
  id: string;
  pattern_id: string;
  model: HazardModelName;
  /** Horizon in days from as-of. */
  horizon_days: number;
  /** Probability (0-1) of at least one occurrence within the horizon, given since_last_days, with interval. */
  p_recurrence: Estimate;
  /** Expected days from as-of to the next occurrence (mean residual life), with the interval of that mean. */
  expected_time_to_next_days: Estimate;
  /** Days from the last occurrence to as-of. */
  since_last_days: number;
  last_occurrence_at: string;
  /** The run's as-of time (ISO). */
  as_of: string;
  /** Level of the intervals. */
  interval_level: number;
  provenance: Provenance;
}

export interface BacktestScores {
  /** Forecasts scored (pattern × origin pairs). */
  n_scored: number;
  /** Distinct patterns with at least one scored forecast. */
  n_patterns: number;
  /** Observed frequency of recurrence within the horizon among the scored forecasts (0-1). */
  base_rate: number;
  /** Mean squared error of the forecast probabilities (0 perfect, lower is better). */
  brier: number;
  /** Brier score of always forecasting `base_rate`. */
  brier_reference: number;
  /** 1 - brier / brier_reference (> 0 beats the base rate); null when the reference is 0. */
  skill: number | null;
  /** Share (0-1) of actual counts inside their predictive count interval; null with nothing scored. */
  coverage: number | null;
  /** 10 equal-width bins of the forecast probability. */
  calibration: CalibrationBinOutput[];
}

export interface CalibrationBinOutput {
  /** Bin [lower, upper) of forecast probability (the last bin includes 1). */
  lower: number;
  upper: number;
  /** Forecasts in the bin. */
  count: number;
  /** Mean forecast probability and observed frequency of recurrence in the bin; null when empty. */
  mean_forecast: number | null;
  observed_rate: number | null;
}

/** Pattern × origin pairs the backtest did not forecast because the pattern was dormant at the origin. */
export interface BacktestAbstentions {
  count: number;
  /** How many of them recurred within the horizon all the same. */
  recurred: number;
}

export interface BacktestOrigin {
  /** ISO time of the origin. */
  origin_at: string;
  /** o + H ≤ as_of: only such origins are scored. */
  fully_observed: boolean;
  abstained: BacktestAbstentions;
  /** Scores of this origin's forecasts; null when not fully observed or nothing could be forecast. */
  scores: BacktestScores | null;
}

export interface BacktestGroup {
  /** Forecasts from patterns with at least this many observed gaps before the origin. */
  min_gaps: number;
  /** null when no forecast qualified. */
  scores: BacktestScores | null;
}

export interface BacktestOutput {
  horizon_days: number;
  interval_level: number;
  /** Origins in ascending time. */
  origins: BacktestOrigin[];
  /** All scored forecasts pooled; null when nothing was scored. */
  overall: BacktestScores | null;
  /** All origins' abstentions pooled (dormant patterns make no forecast; engine/hazard/dormancy.ts). */
  abstained: BacktestAbstentions;
  /** Pooled scores by history size: min_gaps of the config, then 10 (patterns with enough history). */
  by_history: BacktestGroup[];
  provenance: Provenance;
}

export interface PredictOutput {
  as_of: string;
  horizon_days: number;
  /** One per fitted pattern, in stage 7's order. */
  predictions: Prediction[];
  backtest: BacktestOutput;
}

/** Simulated paths per set of each backtest count forecast, within a budget of draws. */
const BACKTEST_PATHS = { maxPaths: 500, minPaths: 50, budget: 20_000 };
/** The history size reported besides the config's min_gaps: "patterns with enough history". */
const LONG_HISTORY_GAPS = 10;

/** Brier, skill against the sample base rate, calibration and coverage of a set of scored forecasts; null when empty. */
export function scoreForecasts(forecasts: readonly BacktestForecast[]): BacktestScores | null {
  if (forecasts.length === 0) return null;
  const p = forecasts.map((f) => f.probability);
  const o = forecasts.map((f) => f.actual > 0);
  const skill = brierSkillScore(p, o);
  return {
    n_scored: forecasts.length,
    n_patterns: new Set(forecasts.map((f) => f.id)).size,
    base_rate: skill.baseRate,
    brier: skill.brier,
    brier_reference: skill.reference,
    skill: skill.skill,
    coverage: intervalCoverage(
      forecasts.map((f) => f.lower),
      forecasts.map((f) => f.upper),
      forecasts.map((f) => f.actual),
    ).coverage,
    calibration: calibrationBins(p, o, 10).map((b) => ({
      lower: b.lower,
      upper: b.upper,
      count: b.count,
      mean_forecast: b.meanForecast,
      observed_rate: b.observedRate,
    })),
  };
}

const abstentionsOf = (list: readonly BacktestAbstention[]): BacktestAbstentions => ({
  count: list.length,
  recurred: list.filter((a) => a.actual > 0).length,
});

export function predict(input: { snapshot: SnapshotOutput; patterns: PatternsOutput; hazard: HazardOutput }, ctx: StageContext): PredictOutput {
  const cfg = ctx.configs.hazard.document;
  const level = cfg.interval_level;
  const horizon = cfg.prediction_horizon_days;
  const byId = new Map(input.hazard.patterns.map((h) => [h.pattern_id, h]));

  const predictions: Prediction[] = [];
  for (const pattern of input.patterns.patterns) {
    const h = byId.get(pattern.id);
    // A dormant pattern's fit no longer describes it: no prediction (the engine abstains).
    if (!h || h.status !== 'fitted' || h.dormancy?.dormant) continue;
    const fit = fitOf(h, level);
    const clock = clockOf(h);
    const p = recurrenceProbability(fit, clockAge(clock, h.since_last_days), clockHorizon(clock, horizon), level);
    const next = meanResidualDays(fit, clock, h.since_last_days, level);
    predictions.push({
      id: derivedUuid(`${ctx.runId}:prediction:${pattern.id}`),
      pattern_id: pattern.id,
      model: h.model,
      horizon_days: horizon,
      p_recurrence: { estimate: p.estimate, lower: p.lower, upper: p.upper },
      expected_time_to_next_days: { estimate: next.estimate, lower: next.lower, upper: next.upper },
      since_last_days: h.since_last_days,
      last_occurrence_at: h.last_occurrence_at,
      as_of: ctx.asOf,
      interval_level: level,
      provenance: h.provenance,
    });
  }

  const asOfMs = Date.parse(ctx.asOf);
  const asOfDays = asOfMs / DAY_MS;
  const indexOf = new Map(input.snapshot.issues.map((issue, i) => [issue.id, i]));
  const series = input.patterns.patterns.map((pattern) => ({
    id: pattern.id,
    times: occurrenceTimes(input.snapshot, pattern.member_ids, asOfMs, indexOf).map((t) => t / DAY_MS),
  }));
  const origins = Array.from({ length: cfg.backtest_origins }, (_, j) => asOfDays - (j + 1) * horizon);
  const results = rollingBacktest(series, {
    origins,
    horizon,
    asOf: asOfDays,
    minGaps: cfg.min_gaps,
    level,
    seed: deriveSeed(ctx.seed, 'predict:backtest'),
    paths: BACKTEST_PATHS,
  });
  const pooled = results.flatMap((r) => r.forecasts);
  const groups = [...new Set([cfg.min_gaps, Math.max(cfg.min_gaps, LONG_HISTORY_GAPS)])];
  const scoredPatterns = new Set(pooled.map((f) => f.id));
  const scoredIssues = input.patterns.patterns.filter((p) => scoredPatterns.has(p.id)).flatMap((p) => p.member_ids);

  return {
    as_of: ctx.asOf,
    horizon_days: horizon,
    predictions,
    backtest: {
      horizon_days: horizon,
      interval_level: level,
      origins: results.map((r) => ({
        origin_at: new Date(r.origin * DAY_MS).toISOString(),
        fully_observed: r.fullyObserved,
        abstained: abstentionsOf(r.abstentions),
        scores: scoreForecasts(r.forecasts),
      })),
      overall: scoreForecasts(pooled),
      abstained: abstentionsOf(results.flatMap((r) => r.abstentions)),
      by_history: groups.map((minGaps) => ({ min_gaps: minGaps, scores: scoreForecasts(pooled.filter((f) => f.gaps >= minGaps)) })),
      provenance: provenance(ctx, 'predict', scoredIssues, null),
    },
  };
}
