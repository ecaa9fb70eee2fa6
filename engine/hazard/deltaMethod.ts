/**
 * Delta method for a function g(μ, log σ) of a fit: Var ĝ ≈ ∇gᵀ V ∇g with V the covariance of
 * (μ, log σ) (Casella & Berger 2002, §5.5.4). Intervals are formed on a scale where ĝ is closer to
 * normal (log, complementary log-log) and mapped back, so they respect the range of the quantity.
 */
import type { HazardFit } from './fit.ts';

export function deltaStandardError(fit: Pick<HazardFit, 'covariance'>, gradMu: number, gradLogSigma: number): number {
  const [vMu, cov, vLogSigma] = fit.covariance;
  // The exponential has var log σ = 0, and then a gradient in log σ (possibly infinite) does not matter.
  const logSigmaTerm = vLogSigma === 0 ? 0 : gradLogSigma * (2 * cov * gradMu + vLogSigma * gradLogSigma);
  return Math.sqrt(Math.max(0, gradMu * gradMu * vMu + logSigmaTerm));
}

/** A point estimate with a two-sided interval at `level`. */
export interface IntervalEstimate {
  estimate: number;
  lower: number;
  upper: number;
  level: number;
}
