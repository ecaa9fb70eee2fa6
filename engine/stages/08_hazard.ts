/**
 * Stage 8, hazard: per pattern, a recurrence model of the gaps between its occurrences.
 *
 * The occurrence times of a pattern are the `occurred_at` of its members (members without one are
 * ignored here). Gaps between consecutive occurrences are observed durations; the open gap from the
 * last occurrence to the run's as-of time is right-censored (censoredGaps). Simultaneous occurrences
 * give no gap (dropped ties). A Weibull and an exponential are fitted by maximum likelihood and the
 * model is chosen by AIC (selectModel; the likelihood-ratio test is reported alongside). The pace of a
 * pattern may drift over its history: the trend-renewal process (engine/hazard/trend.ts: the same
 * renewal model on an operational clock with a power-law trend, Crow-AMSAA's) replaces the renewal
 * model when its trend pays for its parameter by AIC, and then the model's ages and horizons are on
 * that clock (which runs at the speed of days at as-of), while every output horizon stays in days.
 *
 * Not fitted (never a fabricated curve), with the API reasons of `404 not_fitted`:
 * - `no_timestamps`: no member has `occurred_at`;
 * - `insufficient_events`: fewer observed gaps than the hazard config's `min_gaps`, or no model could
 *   be estimated from them. The maths' own reasons map to it: `insufficient_events` (no observed gap)
 *   directly; `no_variation` (every gap equal) and `no_convergence` of the Weibull only make the
 *   exponential the choice, and should both models fail (`no_convergence`) the data do not carry
 *   enough events to estimate a model, so the API reason is `insufficient_events` too. The maths'
 *   reason is kept in `detail`.
 *
 * Dormant: a fitted pattern whose silence since its last occurrence the model gives less than a 1%
 * chance (engine/hazard/dormancy.ts) keeps its fit and curves (its history) but gets no forecast and
 * no p_alert, so no crest alert: the model no longer describes it. The next occurrence ends dormancy
 * (the next run sees a short silence).
 *
 * A fitted pattern gets its curves on a grid of `curve_points` times (days), the forecast of
 * occurrences over each horizon (forecastOccurrences, seeded from the run seed and the pattern id) and
 * p_alert = P(recurrence within `alert_horizon_days` | days since the last occurrence)
 * (recurrenceProbability). Crest alerts list the patterns whose p_alert estimate is at least
 * `alert_threshold`.
 */
import { deriveSeed } from '../rng.ts';
import { DAY_MS } from '../time.ts';
import { censoredGaps } from '../hazard/censoredGaps.ts';
import { clockAge, clockHorizon, fitTrendRenewal, NO_TREND, type TrendClock } from '../hazard/trend.ts';
import { evenGrid, hazardCurves } from '../hazard/curves.ts';
import { dormancyOf, type Dormancy } from '../hazard/dormancy.ts';
import { describeFit, type HazardFit, type HazardModelName, type NotFittedReason } from '../hazard/fit.ts';
import { forecastOccurrences } from '../hazard/forecast.ts';
import { forecastPaths } from '../hazard/forecastPaths.ts';
import { recurrenceProbability } from '../hazard/recurrenceProbability.ts';
import { membersLink, provenance, type Provenance, type StageContext } from './context.ts';
import type { SnapshotOutput } from './01_snapshot.ts';
import { derivedUuid, type PatternsOutput } from './07_patterns.ts';

/** A point estimate with a two-sided interval at the output's `interval_level`. */
export interface Estimate {
  estimate: number;
  lower: number;
  upper: number;
}

export interface HazardParameters {
  /** Weibull shape κ = 1/σ (dimensionless; 1 for the exponential, held fixed). */
  shape: number;
  /** Weibull scale λ = exp(μ), in days (the exponential's mean gap). */
  scale: number;
  /** Standard error of the shape (delta method; 0 for the exponential). */
  shape_se: number;
  /** Standard error of the scale, in days (delta method). */
  scale_se: number;
  /** Interval of the shape at `interval_level` (Wald on log σ, mapped back). */
  shape_interval: [number, number];
  /** Interval of the scale in days at `interval_level` (Wald on μ, mapped back). */
  scale_interval: [number, number];
  /** μ = log λ (λ in days): R survreg's (Intercept). */
  mu: number;
  /** log σ: R survreg's Log(scale); 0 for the exponential. */
  log_sigma: number;
  /** Covariance of (μ, log σ) as [var μ, cov, var log σ] (inverse observed information). */
  covariance: [number, number, number];
}

/** The renewal model's selection; on the model's clock (durations in days at the pace of as-of) when `trend.kept`. */
export interface ModelSelectionInfo {
  criterion: 'aic';
  /** AIC of each model (-2 log-likelihood + 2 parameters); null when that model was not fitted. */
  aic_weibull: number | null;
  aic_exponential: number | null;
  /** Likelihood-ratio test of shape = 1 (χ²₁); null unless both models were fitted. */
  lrt_statistic: number | null;
  lrt_p_value: number | null;
  /** Why the Weibull was not fitted ('no_variation' | 'no_convergence' | 'insufficient_events'), or null. */
  weibull_not_fitted_reason: NotFittedReason | null;
  /** Log-likelihood of the chosen model (time scale, days). */
  log_likelihood: number;
}

/** The trend of a pattern's pace (engine/hazard/trend.ts): a power-law clock Λ with Λ'(as-of) = 1. */
export interface TrendOutput {
  /** Whether the trend-renewal model was chosen (its AIC below the renewal model's); false: the renewal model, no trend. */
  kept: boolean;
  /** Crow-AMSAA estimate of the power β of the pace ((t - t₀)/D)^(β-1): < 1 slowing down, > 1 speeding up. */
  beta: number;
  /** D: days from the first occurrence to as-of. */
  span_days: number;
  /** AIC of the trend-renewal model (null when it could not be fitted) and of the renewal model, both on the time scale of days. */
  aic_trend: number | null;
  aic_renewal: number | null;
}

export interface HazardCurvesOutput {
  /**
   * Gap durations t in days (time since an occurrence): `curve_points` evenly spaced times up to the
   * longer of the longest observed duration (gaps and the open gap) and the longest forecast horizon.
   * With a kept trend (`trend.kept`), t is on the model's clock: days at the pace of the as-of time.
   */
  times_days: number[];
  /** S(t) = P(gap > t), with pointwise intervals at `interval_level`. */
  survival: number[];
  survival_lower: number[];
  survival_upper: number[];
  /** h(t): instantaneous recurrence rate, per day, with pointwise intervals. */
  hazard: number[];
  hazard_lower: number[];
  hazard_upper: number[];
}

export interface HorizonForecastOutput {
  /** Horizon in days from the as-of time. */
  horizon_days: number;
  /** Expected number of occurrences in (as_of, as_of + horizon] given the time since the last one. */
  expected: number;
  /** Monte Carlo standard error of `expected` (occurrences). */
  monte_carlo_error: number;
  /** Predictive interval of the count (integers), parameter and process uncertainty, at `interval_level`. */
  lower: number;
  upper: number;
  /**
   * P(at least one occurrence within the horizon | since_last_days), 0-1: recurrenceProbability, the
   * quantity p_alert and stage 9's p_recurrence give at their horizons (one computation, one value).
   */
  probability_any: number;
}

export interface PatternHazardFitted {
  pattern_id: string;
  status: 'fitted';
  model: HazardModelName;
  parameters: HazardParameters;
  selection: ModelSelectionInfo;
  /** Observed (uncensored) gaps between consecutive occurrences. */
  n_gaps: number;
  /** Right-censored durations: 1 (the open gap to as-of) or 0 (an occurrence exactly at as-of). */
  n_censored: number;
  /** Members with `occurred_at` (occurrences). */
  n_occurrences: number;
  /** Zero-length gaps of simultaneous occurrences, left out of the fit. */
  dropped_ties: number;
  first_occurrence_at: string;
  last_occurrence_at: string;
  /** Days from the last occurrence to as-of (the age of the open gap). */
  since_last_days: number;
  curves: HazardCurvesOutput;
  /** Whether the silence since the last occurrence is one the model could produce (engine/hazard/dormancy.ts). */
  dormancy: Dormancy;
  /** The trend considered for the pace (absent in outputs stored before it was); `kept` says whether the model uses it. */
  trend?: TrendOutput;
  /**
   * One entry per forecast horizon (hazard config `forecast_horizons_days` ∪ `prediction_horizon_days`),
   * ascending; empty when the pattern is dormant (the forecast is withheld).
   */
  forecast: HorizonForecastOutput[];
  /** P(recurrence within `alert_horizon_days` | since_last_days), probability 0-1 with interval; null when dormant. */
  p_alert: Estimate | null;
  provenance: Provenance;
}

export interface PatternHazardNotFitted {
  pattern_id: string;
  status: 'not_fitted';
  /** The API reason of 404 not_fitted. */
  reason: 'no_timestamps' | 'insufficient_events';
  /** Human-readable cause, naming the maths' reason where one applies (e.g. "2 gaps, fewer than min_gaps 3"). */
  detail: string;
  /** Observed gaps (0 with no timestamps). */
  n_gaps: number;
  /** Members with `occurred_at`. */
  n_occurrences: number;
  /** The hazard config's minimum number of gaps. */
  min_gaps: number;
  provenance: Provenance;
}

export type PatternHazard = PatternHazardFitted | PatternHazardNotFitted;

export interface CrestAlert {
  /** Deterministic from the run and the pattern. */
  id: string;
  pattern_id: string;
  /** p_alert estimate (0-1) that reached the threshold. */
  probability: number;
  /** Its interval at `interval_level`. */
  lower: number;
  upper: number;
  /** The hazard config's `alert_threshold`. */
  threshold: number;
  /** The hazard config's `alert_horizon_days`. */
  horizon_days: number;
  /** Days since the pattern's last occurrence at as-of. */
  since_last_days: number;
  last_occurrence_at: string;
  /** The run's as-of time (ISO). */
  as_of: string;
  provenance: Provenance;
}

export interface HazardOutput {
  as_of: string;
  /** Level of every interval in this output (hazard config `interval_level`). */
  interval_level: number;
  /** The horizon of every p_alert (hazard config `alert_horizon_days`); absent in outputs stored before it was recorded. */
  alert_horizon_days?: number;
  /** One entry per pattern of stage 7, in its order. */
  patterns: PatternHazard[];
  /** Fitted patterns whose p_alert estimate ≥ alert_threshold, ordered by probability descending, then pattern id. */
  alerts: CrestAlert[];
}

/** Simulated paths per set of the forecast (forecastOccurrences runs two sets), within a budget of draws. */
const FORECAST_PATHS = { maxPaths: 2000, minPaths: 100, budget: 100_000 };

/** The forecast horizons of a hazard config: `forecast_horizons_days` ∪ `prediction_horizon_days`, ascending. */
function forecastHorizons(cfg: { forecast_horizons_days: number[]; prediction_horizon_days: number }): number[] {
  return [...new Set([...cfg.forecast_horizons_days, cfg.prediction_horizon_days])].sort((a, b) => a - b);
}

/**
 * The occurrence times (epoch ms, ascending) of each pattern: its members' `occurred_at` up to as-of
 * (a later one, an occurrence the cut-off has not reached, is left out).
 */
export function occurrenceTimes(snapshot: SnapshotOutput, memberIds: readonly string[], asOfMs: number, indexOf: ReadonlyMap<string, number>): number[] {
  const times: number[] = [];
  for (const id of memberIds) {
    const at = snapshot.issues[indexOf.get(id)!]?.occurred_at;
    if (!at) continue;
    const t = Date.parse(at);
    if (t <= asOfMs) times.push(t);
  }
  return times.sort((a, b) => a - b);
}

/** The parameters block of a fit. */
function parametersOf(fit: HazardFit): HazardParameters {
  return {
    shape: fit.shape,
    scale: fit.scale,
    shape_se: fit.se.shape,
    scale_se: fit.se.scale,
    shape_interval: fit.interval.shape,
    scale_interval: fit.interval.scale,
    mu: fit.mu,
    log_sigma: fit.logSigma,
    covariance: fit.covariance,
  };
}

/** The clock of a fitted pattern's model (NO_TREND without a kept trend, and for outputs stored before trends). */
export function clockOf(h: PatternHazardFitted): TrendClock {
  return h.trend?.kept ? { beta: h.trend.beta, span: h.trend.span_days } : NO_TREND;
}

/** The fit behind a fitted pattern's output (for projections at other horizons, on clockOf's clock). */
export function fitOf(h: PatternHazardFitted, level: number): HazardFit {
  const p = h.parameters;
  return describeFit(
    {
      model: h.model,
      mu: p.mu,
      logSigma: p.log_sigma,
      covariance: p.covariance,
      logLik: h.selection.log_likelihood,
      n: h.n_gaps + h.n_censored,
      events: h.n_gaps,
      iterations: 0,
    },
    level,
  );
}

export function hazard(input: { snapshot: SnapshotOutput; patterns: PatternsOutput }, ctx: StageContext): HazardOutput {
  const cfg = ctx.configs.hazard.document;
  const level = cfg.interval_level;
  const asOfMs = Date.parse(ctx.asOf);
  const asOfDays = asOfMs / DAY_MS;
  const horizons = forecastHorizons(cfg);
  const indexOf = new Map(input.snapshot.issues.map((issue, i) => [issue.id, i]));

  const patterns: PatternHazard[] = input.patterns.patterns.map((pattern) => {
    const prov = provenance(ctx, 'hazard', pattern.member_ids, membersLink(pattern.id));
    const times = occurrenceTimes(input.snapshot, pattern.member_ids, asOfMs, indexOf);
    const notFitted = (reason: PatternHazardNotFitted['reason'], detail: string, nGaps: number): PatternHazardNotFitted => ({
      pattern_id: pattern.id,
      status: 'not_fitted',
      reason,
      detail,
      n_gaps: nGaps,
      n_occurrences: times.length,
      min_gaps: cfg.min_gaps,
      provenance: prov,
    });
    if (times.length === 0) return notFitted('no_timestamps', 'no member has occurred_at', 0);
    const gaps = censoredGaps(
      times.map((t) => t / DAY_MS),
      asOfDays,
    );
    const nGaps = gaps.event.filter(Boolean).length;
    if (nGaps < cfg.min_gaps) return notFitted('insufficient_events', `${nGaps} gaps between occurrences, fewer than min_gaps ${cfg.min_gaps}`, nGaps);
    const model = fitTrendRenewal(
      times.map((t) => t / DAY_MS),
      asOfDays,
      { level },
    );
    const { selection, clock } = model;
    const fit = model.chosen;
    if (!fit.fitted) return notFitted('insufficient_events', `no model could be estimated (${fit.reason}: ${fit.message})`, nGaps);

    const since = gaps.sinceLast;
    // The model's age of the open gap and its horizons, on its clock (days without a trend).
    const age = clockAge(clock, since);
    const gridEnd = gaps.time.reduce((a, b) => Math.max(a, b), horizons.at(-1)!);
    const curves = hazardCurves(fit, evenGrid(gridEnd, cfg.curve_points), level);
    // A silence the model cannot produce: it no longer describes the pattern, so no forecast is made from it.
    const dormancy = dormancyOf(fit, age);
    const alert = dormancy.dormant ? null : recurrenceProbability(fit, age, clockHorizon(clock, cfg.alert_horizon_days), level);
    return {
      pattern_id: pattern.id,
      status: 'fitted',
      model: fit.model,
      parameters: parametersOf(fit),
      selection: {
        criterion: 'aic',
        aic_weibull: selection.aic.weibull,
        aic_exponential: selection.aic.exponential,
        lrt_statistic: selection.likelihoodRatio?.statistic ?? null,
        lrt_p_value: selection.likelihoodRatio?.pValue ?? null,
        weibull_not_fitted_reason: selection.weibullReason,
        log_likelihood: fit.logLik,
      },
      n_gaps: nGaps,
      n_censored: gaps.event.length - nGaps,
      n_occurrences: times.length,
      dropped_ties: gaps.droppedTies,
      first_occurrence_at: new Date(times[0]).toISOString(),
      last_occurrence_at: new Date(times.at(-1)!).toISOString(),
      since_last_days: since,
      curves: {
        times_days: curves.times,
        survival: curves.survival,
        survival_lower: curves.survivalLower,
        survival_upper: curves.survivalUpper,
        hazard: curves.hazard,
        hazard_lower: curves.hazardLower,
        hazard_upper: curves.hazardUpper,
      },
      dormancy,
      trend: {
        kept: model.trended,
        beta: model.beta,
        span_days: clock === NO_TREND ? asOfDays - times[0] / DAY_MS : clock.span,
        aic_trend: model.aicTrend,
        aic_renewal: model.aicRenewal,
      },
      forecast: dormancy.dormant
        ? []
        : forecastOccurrences(fit, {
            sinceLast: age,
            horizons: horizons.map((h) => clockHorizon(clock, h)),
            seed: deriveSeed(ctx.seed, `hazard:${pattern.id}`),
            paths: forecastPaths(fit, clockHorizon(clock, horizons.at(-1)!), FORECAST_PATHS),
            level,
          }).horizons.map((h, i) => ({
            horizon_days: horizons[i],
            expected: h.expected,
            monte_carlo_error: h.monteCarloError,
            lower: h.lower,
            upper: h.upper,
            // The same quantity as p_alert and stage 9's p_recurrence at equal horizons, so computed the same way.
            probability_any: recurrenceProbability(fit, age, clockHorizon(clock, horizons[i]), level).estimate,
          })),
      p_alert: alert && { estimate: alert.estimate, lower: alert.lower, upper: alert.upper },
      provenance: prov,
    };
  });

  const alerts: CrestAlert[] = [];
  for (const p of patterns) {
    if (p.status !== 'fitted' || p.p_alert === null || p.p_alert.estimate < cfg.alert_threshold) continue;
    alerts.push({
      id: derivedUuid(`${ctx.runId}:alert:${p.pattern_id}`),
      pattern_id: p.pattern_id,
      probability: p.p_alert.estimate,
      lower: p.p_alert.lower,
      upper: p.p_alert.upper,
      threshold: cfg.alert_threshold,
      horizon_days: cfg.alert_horizon_days,
      since_last_days: p.since_last_days,
      last_occurrence_at: p.last_occurrence_at,
      as_of: ctx.asOf,
      provenance: p.provenance,
    });
  }
  alerts.sort((a, b) => b.probability - a.probability || (a.pattern_id < b.pattern_id ? -1 : 1));
  return { as_of: ctx.asOf, interval_level: level, alert_horizon_days: cfg.alert_horizon_days, patterns, alerts };
}
