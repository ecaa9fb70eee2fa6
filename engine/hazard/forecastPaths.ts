/**
 * How many Monte Carlo paths a forecast (forecastOccurrences) can afford. A path costs about
 * 1 + h / E[T] draws (the occurrences within the horizon h, E[T] = λ Γ(1 + 1/κ) the mean gap), so a
 * pattern that recurs many times within the horizon gets fewer paths, down to `minPaths`: its counts
 * are large and their relative Monte Carlo error small (a renewal count has sd/mean ≈ CV(T)/√E[N(h)],
 * the renewal central limit theorem, Cox 1962, "Renewal Theory", §3.3). Patterns that recur a few
 * times keep `maxPaths`. `budget` is the draws one set of paths may take.
 */
import { checkFitted, type HazardFit } from './fit.ts';
import { logGamma } from './regularizedGamma.ts';

export interface PathBudget {
  maxPaths: number;
  minPaths: number;
  budget: number;
}

export function forecastPaths(fit: HazardFit, horizon: number, { maxPaths, minPaths, budget }: PathBudget): number {
  checkFitted(fit, 'forecastPaths');
  if (!(horizon > 0) || !Number.isFinite(horizon)) throw new RangeError(`forecastPaths: horizon must be a finite number > 0, got ${horizon}`);
  if (!Number.isInteger(minPaths) || minPaths < 2 || !Number.isInteger(maxPaths) || maxPaths < minPaths) {
    throw new RangeError(`forecastPaths: need integers 2 <= minPaths <= maxPaths, got ${minPaths} and ${maxPaths}`);
  }
  const meanGap = Math.exp(fit.mu + logGamma(1 + Math.exp(fit.logSigma)));
  const drawsPerPath = 1 + horizon / meanGap;
  return Math.max(minPaths, Math.min(maxPaths, Math.floor(budget / drawsPerPath)));
}
