/**
 * Conditional probability of a recurrence within `horizon` given `sinceLast` time without one:
 * P(T ≤ s + h | T > s) = 1 - S(s + h)/S(s) = 1 - exp(-ΔH), with ΔH = H(s + h) - H(s) = e^{z₂} - e^{z₁}
 * and zᵢ = (log tᵢ - μ)/σ. The interval is the delta-method Wald interval of log ΔH, mapped back
 * through the increasing map ΔH ↦ 1 - e^{-ΔH} (so it stays in [0, 1]):
 * ∂ log ΔH/∂μ = -1/σ, ∂ log ΔH/∂log σ = -(z₂e^{z₂} - z₁e^{z₁})/(e^{z₂} - e^{z₁}).
 * Computed in logs, so it neither overflows for large κ nor loses precision for a short horizon.
 */
import { deltaStandardError, type IntervalEstimate } from './deltaMethod.ts';
import { checkFitted, checkLevel, type HazardFit } from './fit.ts';
import { normalQuantile } from './normalQuantile.ts';

export function recurrenceProbability(fit: HazardFit, sinceLast: number, horizon: number, level = 0.95): IntervalEstimate {
  checkFitted(fit, 'recurrenceProbability');
  checkLevel(level, 'recurrenceProbability');
  if (!(sinceLast >= 0) || !Number.isFinite(sinceLast)) throw new RangeError(`recurrenceProbability: sinceLast must be a finite number >= 0, got ${sinceLast}`);
  if (!(horizon > 0) || !Number.isFinite(horizon)) throw new RangeError(`recurrenceProbability: horizon must be a finite number > 0, got ${horizon}`);
  const sigma = Math.exp(fit.logSigma);
  const z2 = (Math.log(sinceLast + horizon) - fit.mu) / sigma;
  let logDelta: number;
  let gradLogSigma: number;
  if (sinceLast === 0) {
    logDelta = z2;
    gradLogSigma = -z2;
  } else {
    const z1 = (Math.log(sinceLast) - fit.mu) / sigma;
    const oneMinusRatio = -Math.expm1(z1 - z2); // 1 - e^{z₁ - z₂} ∈ (0, 1]
    logDelta = z2 + Math.log(oneMinusRatio);
    gradLogSigma = -(z1 + (z2 - z1) / oneMinusRatio);
  }
  const se = deltaStandardError(fit, -1 / sigma, gradLogSigma);
  const q = normalQuantile(0.5 + level / 2);
  const probability = (logH: number) => -Math.expm1(-Math.exp(logH));
  return { estimate: probability(logDelta), lower: probability(logDelta - q * se), upper: probability(logDelta + q * se), level };
}
