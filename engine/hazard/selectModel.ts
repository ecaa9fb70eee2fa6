/**
 * Chooses between the exponential (constant hazard) and the Weibull fit of the same censored
 * durations. By AIC = -2ℓ + 2p (Akaike 1974; ties go to the simpler exponential), or by the
 * likelihood-ratio test of H₀: κ = 1 (nested models): Λ = 2(ℓ_W - ℓ_E) ~ χ²₁ under H₀, the Weibull
 * chosen when p < alpha. Both the AIC values and the test are always reported when both models fit.
 * When the Weibull cannot be fitted but the exponential can (every gap equal: `no_variation`), the
 * exponential is chosen and `weibullReason` says why; with no events neither fits and the result is
 * not fitted (`insufficient_events`).
 */
import { chiSquareSurvival } from './chiSquare.ts';
import { fitExponential } from './exponential.ts';
import type { HazardFitResult, NotFittedReason } from './fit.ts';
import type { SurvivalData } from './survivalData.ts';
import { fitWeibull } from './weibull.ts';

export interface SelectModelOptions {
  /** 'aic' (default) or 'lrt'. */
  criterion?: 'aic' | 'lrt';
  /** Significance level of the likelihood-ratio test when criterion = 'lrt' (default 0.05). */
  alpha?: number;
  /** Level of the parameter intervals (default 0.95). */
  level?: number;
}

export interface ModelSelection {
  /** The chosen fit, or the reason no model could be fitted. */
  chosen: HazardFitResult;
  weibull: HazardFitResult;
  exponential: HazardFitResult;
  criterion: 'aic' | 'lrt';
  aic: { weibull: number | null; exponential: number | null };
  /** Likelihood-ratio test of κ = 1; null unless both models were fitted. */
  likelihoodRatio: { statistic: number; df: 1; pValue: number } | null;
  /** Why the Weibull was not fitted, when it was not. */
  weibullReason: NotFittedReason | null;
}

export function selectModel(data: SurvivalData, options: SelectModelOptions = {}): ModelSelection {
  const criterion = options.criterion ?? 'aic';
  if (criterion !== 'aic' && criterion !== 'lrt') throw new RangeError(`selectModel: criterion must be 'aic' or 'lrt', got ${String(criterion)}`);
  const alpha = options.alpha ?? 0.05;
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`selectModel: alpha must be in (0, 1), got ${alpha}`);
  const level = options.level ?? 0.95;
  const weibull = fitWeibull(data, { level });
  const exponential = fitExponential(data, { level });
  const aic = { weibull: weibull.fitted ? weibull.aic : null, exponential: exponential.fitted ? exponential.aic : null };
  const weibullReason = weibull.fitted ? null : weibull.reason;
  if (!weibull.fitted || !exponential.fitted) {
    return { chosen: exponential.fitted ? exponential : weibull, weibull, exponential, criterion, aic, likelihoodRatio: null, weibullReason };
  }
  // ℓ_W ≥ ℓ_E at the optimum; a tiny negative difference is rounding.
  const statistic = Math.max(0, 2 * (weibull.logLik - exponential.logLik));
  const pValue = chiSquareSurvival(statistic, 1);
  const weibullWins = criterion === 'aic' ? weibull.aic < exponential.aic : pValue < alpha;
  return {
    chosen: weibullWins ? weibull : exponential,
    weibull,
    exponential,
    criterion,
    aic,
    likelihoodRatio: { statistic, df: 1, pValue },
    weibullReason,
  };
}
