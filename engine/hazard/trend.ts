/**
 * A recurrence model whose pace may drift: the trend-renewal process (TRP; Lindqvist, Elvebakk &
 * Heggland 2003, "The trend-renewal process for statistical analysis of repairable systems",
 * Technometrics 45(1):31-44). The occurrence times t₁ < t₂ < … are mapped through an increasing
 * operational clock Λ, and the gaps on that clock, Λ(tᵢ) - Λ(tᵢ₋₁), follow the renewal model of the
 * engine (Weibull or exponential, selectModel). With Λ the identity this is the renewal model fitted
 * until now; with exponential gaps it is the non-homogeneous Poisson process of intensity λ = Λ'.
 *
 * Trend: the power law of the Crow-AMSAA model (Crow 1974, "Reliability analysis for complex,
 * repairable systems"; the Weibull process), measured from the first occurrence t₀ and normalised
 * to the pace at the as-of time T (D = T - t₀):
 *   λ(t) = ((t - t₀)/D)^(β-1),   Λ(t) = (D/β)·((t - t₀)/D)^β,   so λ(T) = 1.
 * β < 1: occurrences slow down over the history; β = 1: no trend; β > 1: they speed up. Because
 * λ(T) = 1, the operational clock runs at the speed of days at the as-of time, and the renewal
 * parameters read as gaps at the current pace.
 *
 * Likelihood (conditional on the first occurrence; the open gap to T right-censored):
 *   ℓ(β, θ) = Σᵢ [log λ(tᵢ) + log f_θ(Λ(tᵢ) - Λ(tᵢ₋₁))] + log S_θ(Λ(T) - Λ(tₙ)),
 * the renewal log-likelihood of the clock's gaps plus the Jacobian Σ log λ(tᵢ). Estimation in two
 * steps: β̃ = n / Σ log(D/(tᵢ - t₀)), the closed-form MLE of the time-truncated Crow-AMSAA process
 * (n occurrences after t₀; kept within [0.1, 10]), which is the TRP's MLE when the gaps are
 * exponential; then the renewal family that selectModel chooses without a trend (Weibull or
 * exponential) is re-fitted on the clock of β̃, so the trend adds exactly one parameter to that
 * model. The trend is kept only when it pays for that parameter by AIC (-2ℓ + 2(p + 1) against
 * -2ℓ + 2p; Akaike 1974), as selectModel chooses. For Weibull gaps ℓ(β̃, θ̂(β̃)) is a lower bound
 * of the TRP's maximum, so the comparison is conservative (the trend must pay even so). The joint
 * profile MLE of β was measured too (golden-section search over the Weibull refits): the same
 * backtest skill within ±0.01, at 30 times the cost (docs/benchmarks.md, issue 28). Simultaneous
 * occurrences give no gap and are dropped, as in censoredGaps.
 *
 * Forecasts stay those of the renewal model, on the clock: P(an occurrence in (T, T + h] | silence s)
 * is recurrenceProbability at the clock age Λ(T) - Λ(T - s) and the clock horizon Λ(T + h) - Λ(T),
 * the count forecast likewise (Λ is increasing, so counts in the clock window are counts in the day
 * window), and dormancy tests the clock age. The renewal parameters' covariance is taken at β̂ (it
 * does not carry the uncertainty of β̂).
 */
import { censoredGaps, type CensoredGaps } from './censoredGaps.ts';
import { deltaStandardError, type IntervalEstimate } from './deltaMethod.ts';
import { checkFitted, checkLevel, type HazardFit, type HazardFitResult } from './fit.ts';
import { meanResidualLife } from './meanResidualLife.ts';
import { normalQuantile } from './normalQuantile.ts';
import { selectModel, type ModelSelection } from './selectModel.ts';

/** The operational clock of a trend: Λ(t) = (D/β)((t - t₀)/D)^β with D = span, t₀ = asOf - span. */
export interface TrendClock {
  beta: number;
  /** D = T - t₀: from the first occurrence to the as-of time, in the unit of the times (days). */
  span: number;
}

/** The identity clock (no trend). */
export const NO_TREND: TrendClock = { beta: 1, span: 1 };

/** Λ(T) - Λ(T - s): the clock age of a silence of s (0 ≤ s ≤ D) at the as-of time. */
export function clockAge(clock: TrendClock, sinceLast: number): number {
  const { beta, span } = clock;
  if (beta === 1) return sinceLast;
  if (sinceLast >= span) return span / beta;
  // (D/β)(1 - (1 - s/D)^β), computed without cancellation for a short silence.
  return (-span / beta) * Math.expm1(beta * Math.log1p(-sinceLast / span));
}

/** Λ(T + h) - Λ(T): the clock length of the next h time units. */
export function clockHorizon(clock: TrendClock, horizon: number): number {
  const { beta, span } = clock;
  if (beta === 1) return horizon;
  return (span / beta) * Math.expm1(beta * Math.log1p(horizon / span));
}

/** The time units after T at which the clock has advanced by r: the inverse of clockHorizon. */
export function daysAfter(clock: TrendClock, r: number): number {
  const { beta, span } = clock;
  if (beta === 1) return r;
  return span * Math.expm1(Math.log1p((beta * r) / span) / beta);
}

export interface TrendSelection {
  /** The renewal model of the chosen clock (the identity when the trend is not kept). */
  chosen: HazardFitResult;
  /** selectModel on the chosen clock's gaps (AIC of each renewal model, likelihood-ratio test). */
  selection: ModelSelection;
  /** The clock of the chosen model: NO_TREND unless the trend is kept. */
  clock: TrendClock;
  /** Whether the trend is kept (its AIC is lower than the renewal model's). */
  trended: boolean;
  /** β̃ (whether the trend is kept or not; 1 when it was not considered), and the AIC of both candidates. */
  beta: number;
  aicTrend: number | null;
  aicRenewal: number | null;
  /** Log-likelihood of the chosen model in the time unit of the occurrences (renewal plus Jacobian). */
  logLik: number | null;
  /** Gaps in the time unit of the occurrences (as censoredGaps gives them). */
  gaps: CensoredGaps;
  /** The clock age of the open gap at the as-of time. */
  clockSinceLast: number;
}

export interface TrendOptions {
  /** Level of the renewal parameters' intervals (default 0.95). */
  level?: number;
  /** Consider the trend at all (default true); false gives the renewal model alone. */
  trend?: boolean;
}

/** β̃ is kept within [0.1, 10]: a pace that changes by more than that power over the history is not extrapolated. */
const BETA_RANGE: [number, number] = [0.1, 10];

/** Gaps on the clock of β, and Σ log((tᵢ - t₀)/D) over the occurrences that end a gap. */
function clockGaps(times: readonly number[], asOf: number, beta: number): { data: { time: number[]; event: boolean[] }; sumLogPosition: number } {
  const t0 = times[0];
  const span = asOf - t0;
  const clockAt = (t: number) => (span / beta) * Math.exp(beta * Math.log((t - t0) / span));
  const time: number[] = [];
  const event: boolean[] = [];
  let sumLogPosition = 0;
  let previous = 0;
  for (let i = 1; i < times.length; i++) {
    if (!(times[i] > times[i - 1])) continue;
    const at = clockAt(times[i]);
    time.push(at - previous);
    event.push(true);
    sumLogPosition += Math.log((times[i] - t0) / span);
    previous = at;
  }
  const last = times[times.length - 1];
  if (asOf > last) {
    time.push(clockAge({ beta, span }, asOf - last));
    event.push(false);
  }
  return { data: { time, event }, sumLogPosition };
}

/**
 * Chooses between the renewal model (selectModel on the gaps) and the trend-renewal process, for
 * occurrence times (ascending or not, all ≤ asOf) and the as-of time, in one unit (days in the stages).
 */
export function fitTrendRenewal(occurrences: readonly number[], asOf: number, options: TrendOptions = {}): TrendSelection {
  const level = options.level ?? 0.95;
  checkLevel(level, 'fitTrendRenewal');
  const gaps = censoredGaps(occurrences, asOf);
  const renewalSelection = selectModel(gaps, { level });
  const renewal = renewalSelection.chosen;
  const times = [...occurrences].sort((a, b) => a - b);
  const span = asOf - times[0];
  const base = {
    chosen: renewal,
    selection: renewalSelection,
    clock: NO_TREND,
    trended: false,
    beta: 1,
    aicTrend: null,
    aicRenewal: renewal.fitted ? renewal.aic : null,
    logLik: renewal.fitted ? renewal.logLik : null,
    gaps,
    clockSinceLast: gaps.sinceLast,
  };
  if (options.trend === false || !renewal.fitted || !(span > 0)) return base;

  // β̃: the Crow-AMSAA MLE of the occurrence process, n / Σ log(D/(tᵢ - t₀)) over the occurrences that end a gap.
  let sumLog = 0;
  let n = 0;
  for (let i = 1; i < times.length; i++) {
    if (!(times[i] > times[i - 1])) continue;
    sumLog += Math.log(span / (times[i] - times[0]));
    n++;
  }
  if (!(sumLog > 0)) return base;
  const beta = Math.min(BETA_RANGE[1], Math.max(BETA_RANGE[0], n / sumLog));
  // The renewal family chosen without a trend, so the trend adds exactly one parameter to that model.
  const family = renewal.model;
  const clock: TrendClock = { beta, span };
  const { data, sumLogPosition } = clockGaps(times, asOf, beta);
  const trendSelection = selectModel(data, { level });
  const trendFit = family === 'exponential' ? trendSelection.exponential : trendSelection.weibull;
  if (!trendFit.fitted) return base;
  const logLik = trendFit.logLik + (beta - 1) * sumLogPosition;
  const aicTrend = -2 * logLik + 2 * (trendFit.parameters + 1);
  if (!(aicTrend < renewal.aic)) return { ...base, beta, aicTrend };
  return {
    chosen: trendFit,
    selection: { ...trendSelection, chosen: trendFit },
    clock,
    trended: true,
    beta,
    aicTrend,
    aicRenewal: renewal.aic,
    logLik,
    gaps,
    clockSinceLast: clockAge(clock, gaps.sinceLast),
  };
}

/**
 * Gauss-Laguerre nodes and weights for ∫₀^∞ g(x) e^{-x} dx ≈ Σ wᵢ g(xᵢ) (Press et al., Numerical
 * Recipes, 3rd ed., §4.6, gaulag with α = 0): Newton on the Laguerre polynomial Lₙ from the usual
 * starting guesses.
 */
export function gaussLaguerre(n: number): { nodes: Float64Array; weights: Float64Array } {
  if (!Number.isInteger(n) || n < 1 || n > 200) throw new RangeError(`gaussLaguerre: n must be an integer in [1, 200], got ${n}`);
  const nodes = new Float64Array(n);
  const weights = new Float64Array(n);
  let z = 0;
  for (let i = 0; i < n; i++) {
    if (i === 0) z = 3 / (1 + 2.4 * n);
    else if (i === 1) z += 15 / (1 + 2.5 * n);
    else {
      const ai = i - 1;
      z += ((1 + 2.55 * ai) / (1.9 * ai)) * (z - nodes[i - 2]);
    }
    let p1 = 1;
    let p2 = 0;
    let pp = 0;
    for (let iter = 0; iter < 100; iter++) {
      p1 = 1;
      p2 = 0;
      for (let j = 0; j < n; j++) {
        const p3 = p2;
        p2 = p1;
        p1 = ((2 * j + 1 - z) * p2 - j * p3) / (j + 1);
      }
      pp = (n * p1 - n * p2) / z;
      const z1 = z;
      z = z1 - p1 / pp;
      if (Math.abs(z - z1) <= 1e-14 * Math.max(1, z)) break;
    }
    nodes[i] = z;
    weights[i] = -1 / (pp * n * p2);
  }
  return { nodes, weights };
}

const LAGUERRE = gaussLaguerre(64);

/** log E[u(R)]: R the clock residual at clock age s (inverse transform of E ~ Exp(1)), u = daysAfter. */
function logMeanResidualDays(mu: number, logSigma: number, s: number, clock: TrendClock): number {
  const a = Math.exp(logSigma); // 1/κ
  const scale = Math.exp(mu);
  const x = s > 0 ? Math.exp((Math.log(s) - mu) / a) : 0;
  let sum = 0;
  for (let i = 0; i < LAGUERRE.nodes.length; i++) {
    const e = LAGUERRE.nodes[i];
    const r = x > 0 ? s * Math.expm1(a * Math.log1p(e / x)) : scale * e ** a;
    sum += LAGUERRE.weights[i] * daysAfter(clock, r);
  }
  return Math.log(sum);
}

/**
 * Expected time units to the next occurrence given a silence of `sinceLast` at the as-of time, under
 * the renewal fit on `clock`: E[u(R)] with R the residual clock time (R = s((1 + E/x)^{1/κ} - 1),
 * x = (s/λ)^κ, E ~ Exp(1), the inverse transform forecastOccurrences draws from) and u = daysAfter,
 * by 64-point Gauss-Laguerre quadrature over E. Without a trend it is meanResidualLife (closed form).
 * The interval is the delta-method Wald interval of its log in (μ, log σ) at β̂ (central differences).
 */
export function meanResidualDays(fit: HazardFit, clock: TrendClock, sinceLast: number, level = 0.95): IntervalEstimate {
  checkFitted(fit, 'meanResidualDays');
  checkLevel(level, 'meanResidualDays');
  if (clock.beta === 1) return meanResidualLife(fit, sinceLast, level);
  const s = clockAge(clock, sinceLast);
  const value = logMeanResidualDays(fit.mu, fit.logSigma, s, clock);
  const step = 1e-6;
  const gradMu = (logMeanResidualDays(fit.mu + step, fit.logSigma, s, clock) - logMeanResidualDays(fit.mu - step, fit.logSigma, s, clock)) / (2 * step);
  const gradLogSigma =
    fit.covariance[2] === 0
      ? 0
      : (logMeanResidualDays(fit.mu, fit.logSigma + step, s, clock) - logMeanResidualDays(fit.mu, fit.logSigma - step, s, clock)) / (2 * step);
  const se = deltaStandardError(fit, gradMu, gradLogSigma);
  const q = normalQuantile(0.5 + level / 2);
  return { estimate: Math.exp(value), lower: Math.exp(value - q * se), upper: Math.exp(value + q * se), level };
}
