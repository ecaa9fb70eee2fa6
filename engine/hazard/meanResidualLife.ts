/**
 * Expected time to the next recurrence given `sinceLast` time without one, the mean residual life
 * m(s) = E[T - s | T > s] = ∫ₛ^∞ S(u) du / S(s). For the Weibull the integral is closed-form
 * (substitute v = (u/λ)^κ): m(s) = λ Γ(1 + 1/κ) Q(1/κ, x) eˣ with x = (s/λ)^κ and Q the upper
 * regularised incomplete gamma (Abramowitz & Stegun 6.5.3); for x ≥ 1/κ + 1 this is a·s·CF(a, x)
 * (a = 1/κ, CF the Lentz continued fraction), which stays finite where S(s) underflows. The
 * exponential gives m(s) = λ. Checked against R's integrate() in the tests. The interval is the
 * delta-method Wald interval of log m, with its gradient in (μ, log σ) by central differences.
 */
import { deltaStandardError, type IntervalEstimate } from './deltaMethod.ts';
import { checkFitted, checkLevel, type HazardFit } from './fit.ts';
import { normalQuantile } from './normalQuantile.ts';
import { gammaContinuedFraction, gammaSeries, logGamma } from './regularizedGamma.ts';

function logMeanResidualLife(mu: number, logSigma: number, s: number): number {
  const a = Math.exp(logSigma); // 1/κ
  if (s === 0) return mu + logGamma(1 + a);
  const logX = (Math.log(s) - mu) / a;
  const x = Math.exp(logX);
  if (x >= a + 1) return Math.log(a * s * gammaContinuedFraction(a, x));
  const q = -Math.expm1(-x + a * logX - logGamma(a) + Math.log(gammaSeries(a, x)));
  return mu + logGamma(1 + a) + x + Math.log(q);
}

export function meanResidualLife(fit: HazardFit, sinceLast: number, level = 0.95): IntervalEstimate {
  checkFitted(fit, 'meanResidualLife');
  checkLevel(level, 'meanResidualLife');
  if (!(sinceLast >= 0) || !Number.isFinite(sinceLast)) throw new RangeError(`meanResidualLife: sinceLast must be a finite number >= 0, got ${sinceLast}`);
  const value = logMeanResidualLife(fit.mu, fit.logSigma, sinceLast);
  const step = 1e-6;
  const gradMu = (logMeanResidualLife(fit.mu + step, fit.logSigma, sinceLast) - logMeanResidualLife(fit.mu - step, fit.logSigma, sinceLast)) / (2 * step);
  const gradLogSigma =
    fit.covariance[2] === 0
      ? 0
      : (logMeanResidualLife(fit.mu, fit.logSigma + step, sinceLast) - logMeanResidualLife(fit.mu, fit.logSigma - step, sinceLast)) / (2 * step);
  const se = deltaStandardError(fit, gradMu, gradLogSigma);
  const q = normalQuantile(0.5 + level / 2);
  return { estimate: Math.exp(value), lower: Math.exp(value - q * se), upper: Math.exp(value + q * se), level };
}
