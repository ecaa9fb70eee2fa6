/**
 * One Poisson(λ) draw from a seeded generator. λ < 30: inversion by sequential search of the CDF
 * (Devroye 1986, §X.3), exact; λ ≥ 30: Hörmann's transformed rejection with squeeze, PTRS
 * (Hörmann 1993, "The transformed rejection method for generating Poisson random variables"), exact.
 */
import type { Rng } from '../rng.ts';
import { logGamma } from './regularizedGamma.ts';

export function poissonSample(rng: Rng, lambda: number): number {
  if (!(lambda >= 0) || !Number.isFinite(lambda)) throw new RangeError(`poissonSample: lambda must be a finite number >= 0, got ${lambda}`);
  if (lambda === 0) return 0;
  if (lambda < 30) {
    const u = rng.next();
    let x = 0;
    let p = Math.exp(-lambda);
    let cdf = p;
    // The cap only guards against u landing in the rounding gap at the far tail.
    while (u > cdf && x < 1000) {
      x++;
      p *= lambda / x;
      cdf += p;
    }
    return x;
  }
  const sqrtLambda = Math.sqrt(lambda);
  const logLambda = Math.log(lambda);
  const b = 0.931 + 2.53 * sqrtLambda;
  const a = -0.059 + 0.02483 * b;
  const invAlpha = 1.1239 + 1.1328 / (b - 3.4);
  const vr = 0.9277 - 3.6224 / (b - 2);
  for (;;) {
    const u = rng.next() - 0.5;
    const v = rng.next();
    const us = 0.5 - Math.abs(u);
    const k = Math.floor(((2 * a) / us + b) * u + lambda + 0.43);
    if (us >= 0.07 && v <= vr) return k;
    if (k < 0 || (us < 0.013 && v > us)) continue;
    if (Math.log(v) + Math.log(invAlpha) - Math.log(a / (us * us) + b) <= -lambda + k * logLambda - logGamma(k + 1)) return k;
  }
}
