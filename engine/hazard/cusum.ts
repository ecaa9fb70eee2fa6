/**
 * Did a fix hold? A one-sided Poisson CUSUM (Page 1954; Lucas 1985) on the per-period occurrence
 * counts after the fix: S₀ = 0, S_t = max(0, S_{t-1} + x_t - k), signal at the first t with S_t ≥ h.
 * `inControlRate` λ₀ is the rate the fix is expected to leave and `outOfControlRate` λ₁ > λ₀ the rate
 * of a regression (for verification: λ₀ = the post-fix target rate, λ₁ = the pre-fix rate, so a signal
 * means the pattern is back at its old rate; k is symmetric in the two rates). k and h come from
 * cusumDesign (Lucas' k, h the smallest with in-control ARL ≥ targetArl0 by Brook & Evans); the path is
 * computed on the same integer lattice, so the stated ARLs are exact for it.
 *
 * Verdict: `regressed` when the CUSUM has signalled (at any time: a regression is never hidden for
 * lack of data); otherwise `insufficient_data` while fewer than `minPeriods` periods are observed
 * (default ⌈2·ARL₁⌉, by when a regression would most likely have signalled), else `holding`.
 */
import { cusumDesign, type CusumDesign } from './cusumDesign.ts';

export type CusumVerdict = 'insufficient_data' | 'holding' | 'regressed';

export interface PoissonCusumOptions {
  inControlRate: number;
  outOfControlRate: number;
  /** In-control average run length to guarantee, in periods (default 370). */
  targetArl0?: number;
  minPeriods?: number;
  /** Largest Markov chain used by the design (default 400). */
  maxStates?: number;
}

export interface PoissonCusumResult extends CusumDesign {
  verdict: CusumVerdict;
  /** S_t for each observed period. */
  path: number[];
  /** 1-based period of the first signal, or null. */
  signalPeriod: number | null;
  periodsObserved: number;
  minPeriods: number;
}

export function poissonCusum(counts: readonly number[], options: PoissonCusumOptions): PoissonCusumResult {
  counts.forEach((x, i) => {
    if (!Number.isInteger(x) || x < 0) throw new RangeError(`poissonCusum: counts[${i}] must be an integer >= 0, got ${x}`);
  });
  const design = cusumDesign(options.inControlRate, options.outOfControlRate, options.targetArl0 ?? 370, options.maxStates ?? 400);
  const minPeriods = options.minPeriods ?? Math.max(1, Math.ceil(2 * design.arl1));
  if (!Number.isInteger(minPeriods) || minPeriods < 1) throw new RangeError(`poissonCusum: minPeriods must be an integer >= 1, got ${minPeriods}`);
  const { m, referenceSteps: K, thresholdSteps: H } = design;
  const path: number[] = [];
  let state = 0;
  let signalPeriod: number | null = null;
  for (let t = 0; t < counts.length; t++) {
    state = Math.max(0, state + m * counts[t] - K);
    path.push(state / m);
    if (signalPeriod === null && state >= H) signalPeriod = t + 1;
  }
  const verdict: CusumVerdict = signalPeriod !== null ? 'regressed' : counts.length < minPeriods ? 'insufficient_data' : 'holding';
  return { ...design, verdict, path, signalPeriod, periodsObserved: counts.length, minPeriods };
}
