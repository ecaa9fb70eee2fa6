/**
 * Stage 9, predict: projections of the fitted hazards, and how good such projections have been.
 *
 * Predictions (one per fitted pattern, horizon H = hazard config `prediction_horizon_days`, s = days
 * since the last occurrence at as-of):
 * - p_recurrence = P(T ≤ s + H | T > s) (recurrenceProbability, delta-method interval);
 * - expected_time_to_next_days = E[T - s | T > s], the mean residual life (meanResidualLife,
 *   delta-method interval of the mean; it is not a prediction interval of the time itself).
 *
 * Backtest by rolling origin over the workspace: origins o_j = as_of - j·H for j = 1 … `backtest_origins`.
 * At each origin every pattern of the run is refitted on its occurrences strictly before o (the open gap
 * censored at o); one with at least `min_gaps` gaps and a fit predicts p = P(recurrence in [o, o + H))
 * and a predictive interval of the count in that window (forecastOccurrences, seeded), scored against
 * its occurrences in [o, o + H). Only origins whose whole horizon is observed (o + H ≤ as_of) are
 * scored; others are listed as not scored. Scores: Brier score; Brier skill against the base rate,
 * the observed frequency of recurrence over the same scored forecasts (sample climatology, Wilks
 * 2011 §8.4.2); calibration bins (10 equal-width); interval coverage of the count intervals.
 */
import type { CalibrationBin } from '../hazard/brier.ts';
import type { HazardModelName } from '../hazard/fit.ts';
import type { Provenance, StageContext } from './context.ts';
import type { SnapshotOutput } from './01_snapshot.ts';
import type { PatternsOutput } from './07_patterns.ts';
import type { Estimate, HazardOutput } from './08_hazard.ts';

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
  calibration: CalibrationBin[];
}

export interface BacktestOrigin {
  /** ISO time of the origin. */
  origin_at: string;
  /** o + H ≤ as_of: only such origins are scored. */
  fully_observed: boolean;
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

export function predict(_input: { snapshot: SnapshotOutput; patterns: PatternsOutput; hazard: HazardOutput }, _ctx: StageContext): PredictOutput {
  throw new Error('in progress');
}
