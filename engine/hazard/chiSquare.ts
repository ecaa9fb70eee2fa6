/**
 * Chi-square distribution with ν degrees of freedom: F(x) = P(ν/2, x/2) and the upper tail
 * 1 - F(x) = Q(ν/2, x/2), the regularised incomplete gamma functions (Abramowitz & Stegun 26.4.19).
 * For ν = 1 this is erf(√(x/2)). The upper tail is the p-value of a likelihood-ratio statistic.
 */
import { regularizedGammaP, regularizedGammaQ } from './regularizedGamma.ts';

function check(x: number, df: number): void {
  if (Number.isNaN(x)) throw new RangeError('chiSquare: x is NaN');
  if (!(df > 0) || !Number.isFinite(df)) throw new RangeError(`chiSquare: degrees of freedom must be a finite number > 0, got ${df}`);
}

/** P(X ≤ x) for X ~ χ²(df). */
export function chiSquareCdf(x: number, df: number): number {
  check(x, df);
  return x <= 0 ? 0 : regularizedGammaP(df / 2, x / 2);
}

/** P(X > x) for X ~ χ²(df), accurate far into the tail (no 1 - F cancellation). */
export function chiSquareSurvival(x: number, df: number): number {
  check(x, df);
  return x <= 0 ? 1 : regularizedGammaQ(df / 2, x / 2);
}
