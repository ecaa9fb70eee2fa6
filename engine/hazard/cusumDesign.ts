/**
 * Design of an upper Poisson CUSUM to detect a rate change λ₀ → λ₁ (λ₁ > λ₀ per period): Lucas'
 * reference value k = (λ₁ - λ₀)/(ln λ₁ - ln λ₀) (Lucas 1985, Technometrics 27, "Counted data
 * CUSUM's"), which makes the CUSUM the sequential likelihood-ratio test between the two rates, and the
 * smallest decision interval h whose in-control ARL (Brook & Evans Markov chain, see cusumArl.ts) is at
 * least `targetArl0`. k and h live on a lattice of step 1/m (k rounded to K/m): a coarse pass
 * (m ≈ 10/k) locates h, then m ≈ max(50/k, 50/h) (k within 1%, h in steps of 2% or finer) unless
 * the chain would exceed `maxStates` states, in which case m shrinks to fit. The reported ARLs are exact for the rounded `kUsed` and h.
 */
import { cusumArl } from './cusumArl.ts';

export interface CusumDesign {
  inControlRate: number;
  outOfControlRate: number;
  /** Lucas' reference value. */
  k: number;
  /** k rounded to the lattice: the value the CUSUM uses. */
  kUsed: number;
  h: number;
  /** Lattice step 1/m. */
  resolution: number;
  m: number;
  referenceSteps: number;
  thresholdSteps: number;
  targetArl0: number;
  /** In-control ARL achieved (≥ targetArl0). */
  arl0: number;
  /** ARL at the out-of-control rate: mean periods to detect the change. */
  arl1: number;
}

/**
 * Smallest H ≤ limit with ARL₀(H) ≥ target, bracketing from `guess` (ARL₀ grows with H); null above
 * the limit. An astronomically large ARL makes I - R numerically singular and the solve meaningless
 * (negative or non-finite): that also counts as passing.
 */
function smallestThreshold(rate: number, m: number, K: number, target: number, guess: number, limit: number): number | null {
  const passes = (H: number) => {
    const arl = cusumArl(rate, { m, referenceSteps: K, thresholdSteps: H });
    return !(arl >= 0 && arl < target);
  };
  let lo = Math.max(0, Math.min(limit, Math.floor(guess)));
  let hi: number;
  if (lo >= 1 && passes(lo)) {
    hi = lo;
    let step = Math.max(1, Math.ceil(m / 4));
    for (;;) {
      lo = Math.max(0, hi - step);
      if (lo === 0 || !passes(lo)) break;
      hi = lo;
      step *= 2;
    }
  } else {
    let step = Math.max(1, Math.ceil(m / 4));
    for (;;) {
      hi = Math.min(limit, lo + step);
      if (passes(hi)) break;
      if (hi === limit) return null;
      lo = hi;
      step *= 2;
    }
  }
  // Invariant: lo fails (or is 0), hi passes.
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (passes(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

export function cusumDesign(inControlRate: number, outOfControlRate: number, targetArl0 = 370, maxStates = 400): CusumDesign {
  const l0 = inControlRate;
  const l1 = outOfControlRate;
  if (!(l0 > 0) || !Number.isFinite(l0)) throw new RangeError(`cusumDesign: inControlRate must be a finite number > 0, got ${l0}`);
  if (!(l1 > l0) || !Number.isFinite(l1))
    throw new RangeError(`cusumDesign: outOfControlRate must be finite and greater than inControlRate (${l0}), got ${l1}`);
  if (!(targetArl0 > 1) || !Number.isFinite(targetArl0)) throw new RangeError(`cusumDesign: targetArl0 must be a finite number > 1, got ${targetArl0}`);
  if (!Number.isInteger(maxStates) || maxStates < 10) throw new RangeError(`cusumDesign: maxStates must be an integer >= 10, got ${maxStates}`);
  const k = (l1 - l0) / (Math.log(l1) - Math.log(l0));

  const attempt = (m: number, guessH: number) => {
    const K = Math.max(1, Math.round(k * m));
    const H = smallestThreshold(l0, m, K, targetArl0, guessH, maxStates);
    return H === null ? null : { m, K, H };
  };
  // Coarse pass: shrink m until h fits in maxStates states.
  let coarseM = Math.max(1, Math.round(10 / k));
  let coarse = attempt(coarseM, coarseM);
  while (!coarse && coarseM > 1) {
    coarseM = Math.max(1, Math.floor(coarseM / 4));
    coarse = attempt(coarseM, coarseM);
  }
  if (!coarse) throw new RangeError(`cusumDesign: no decision interval within ${maxStates} lattice states reaches ARL0 ${targetArl0}`);
  const coarseH = coarse.H / coarse.m;
  const fineM = Math.max(1, Math.min(Math.max(Math.round(50 / k), Math.round(50 / coarseH)), Math.floor(maxStates / (coarseH + 2 / coarse.m))));
  const chosen = (fineM > coarse.m && attempt(fineM, fineM * coarseH)) || coarse;
  const lattice = { m: chosen.m, referenceSteps: chosen.K, thresholdSteps: chosen.H };
  return {
    inControlRate: l0,
    outOfControlRate: l1,
    k,
    kUsed: chosen.K / chosen.m,
    h: chosen.H / chosen.m,
    resolution: 1 / chosen.m,
    m: chosen.m,
    referenceSteps: chosen.K,
    thresholdSteps: chosen.H,
    targetArl0,
    arl0: cusumArl(l0, lattice),
    arl1: cusumArl(l1, lattice),
  };
}
