/**
 * A fitted recurrence model in R survreg's log-location-scale form: log T = μ + σ W with W standard
 * (minimum) extreme value, so S(t) = exp(-(t/λ)^κ) with scale λ = exp(μ) and shape κ = 1/σ; the
 * exponential is σ = 1. Standard errors come from the inverse observed information of (μ, log σ);
 * those of κ and λ by the delta method (SE(κ) = κ·SE(log σ), SE(λ) = λ·SE(μ)), and their intervals are
 * the Wald intervals of log σ and μ mapped through exp (so they stay positive).
 */
import { normalQuantile } from './normalQuantile.ts';

export type HazardModelName = 'weibull' | 'exponential';

export interface HazardFit {
  fitted: true;
  model: HazardModelName;
  /** Location of log T: R's (Intercept). */
  mu: number;
  /** log σ: R's Log(scale). 0 for the exponential. */
  logSigma: number;
  /** Covariance of (μ, log σ) as [var μ, cov, var log σ]; the exponential holds log σ fixed (zeros). */
  covariance: [number, number, number];
  /** κ = 1/σ. */
  shape: number;
  /** λ = exp(μ), in the unit of the durations. */
  scale: number;
  se: { mu: number; logSigma: number; shape: number; scale: number };
  /** Two-sided intervals at `level` for κ and λ. */
  interval: { level: number; shape: [number, number]; scale: [number, number] };
  /** Log-likelihood on the time scale (density of T, as R reports it). */
  logLik: number;
  parameters: 1 | 2;
  /** -2 logLik + 2 parameters. */
  aic: number;
  n: number;
  events: number;
  iterations: number;
}

export type NotFittedReason = 'insufficient_events' | 'no_variation' | 'no_convergence';

/** The model cannot be estimated from these data; no curve may be drawn from it. */
export interface HazardNotFitted {
  fitted: false;
  model: HazardModelName;
  reason: NotFittedReason;
  message: string;
  n: number;
  events: number;
}

export type HazardFitResult = HazardFit | HazardNotFitted;

export interface FitEstimate {
  model: HazardModelName;
  mu: number;
  logSigma: number;
  covariance: [number, number, number];
  logLik: number;
  n: number;
  events: number;
  iterations: number;
}

export function checkLevel(level: number, where: string): void {
  if (!(level > 0 && level < 1)) throw new RangeError(`${where}: level must be in (0, 1), got ${level}`);
}

/** Guards the curve, prediction and forecast functions against a not-fitted result. */
export function checkFitted(fit: HazardFit, where: string): void {
  if (!fit || fit.fitted !== true) throw new TypeError(`${where}: needs a fitted model, got a not-fitted result`);
}

/** Completes an estimate with κ, λ, their delta-method SEs and intervals, and the AIC. */
export function describeFit(estimate: FitEstimate, level: number): HazardFit {
  checkLevel(level, 'describeFit');
  const { mu, logSigma, covariance } = estimate;
  const z = normalQuantile(0.5 + level / 2);
  const seMu = Math.sqrt(covariance[0]);
  const seLogSigma = Math.sqrt(covariance[2]);
  const shape = Math.exp(-logSigma);
  const scale = Math.exp(mu);
  const parameters = estimate.model === 'weibull' ? 2 : 1;
  return {
    fitted: true,
    model: estimate.model,
    mu,
    logSigma,
    covariance,
    shape,
    scale,
    se: { mu: seMu, logSigma: seLogSigma, shape: shape * seLogSigma, scale: scale * seMu },
    interval: {
      level,
      shape: [Math.exp(-logSigma - z * seLogSigma), Math.exp(-logSigma + z * seLogSigma)],
      scale: [Math.exp(mu - z * seMu), Math.exp(mu + z * seMu)],
    },
    logLik: estimate.logLik,
    parameters,
    aic: -2 * estimate.logLik + 2 * parameters,
    n: estimate.n,
    events: estimate.events,
    iterations: estimate.iterations,
  };
}
