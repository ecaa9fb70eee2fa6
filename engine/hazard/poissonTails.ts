/**
 * Poisson(λ) tail probabilities without cancellation: P(X ≤ n) and P(X ≥ n), each summed over the side
 * of n away from the mode, where the terms shrink (pmf(x ± 1) = pmf(x)·λ/(x+1) or pmf(x)·x/λ), and
 * taken as 1 minus the other side only when it is at least about one half. So a tail far below 1e-16
 * keeps its relative accuracy, and the work is O(√λ) terms, not O(λ) (a sum from 0 is O(λ)).
 */
import { logGamma } from './regularizedGamma.ts';

function checkRate(rate: number): void {
  if (!(rate > 0) || !Number.isFinite(rate)) throw new RangeError(`poissonTails: rate must be a finite number > 0, got ${rate}`);
}

/** P(X = x) for an integer x ≥ 0, from logs (no overflow of λ^x or x!). */
export function poissonPmf(x: number, rate: number): number {
  return Math.exp(-rate + x * Math.log(rate) - logGamma(x + 1));
}

/** Σ pmf(x) from x = n away from the mode (up: x = n, n+1, …; down: x = n, n-1, …, 0) while the terms still count. */
function sumAwayFromMode(n: number, rate: number, up: boolean): number {
  let term = poissonPmf(n, rate);
  let sum = 0;
  for (let x = n; term > 0 && x >= 0; x += up ? 1 : -1) {
    sum += term;
    if (term <= sum * 1e-17) break;
    term *= up ? rate / (x + 1) : x / rate;
  }
  return sum;
}

/** P(X ≤ n) for an integer n (0 when n < 0). */
export function poissonCdf(n: number, rate: number): number {
  checkRate(rate);
  if (n < 0) return 0;
  return n < rate ? sumAwayFromMode(n, rate, false) : 1 - sumAwayFromMode(n + 1, rate, true);
}

/** P(X ≥ n) for an integer n (1 when n ≤ 0). */
export function poissonSurvival(n: number, rate: number): number {
  checkRate(rate);
  if (n <= 0) return 1;
  return n > rate ? sumAwayFromMode(n, rate, true) : 1 - sumAwayFromMode(n - 1, rate, false);
}
