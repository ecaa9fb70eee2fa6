/**
 * Zero-start average run length of the upper Poisson CUSUM S_t = max(0, S_{t-1} + x_t - k), signalling
 * when S_t ≥ h, for counts x_t ~ Poisson(rate), by the Markov chain of Brook & Evans (1972,
 * Biometrika 59, "An approach to the probability distribution of CUSUM run length"). On the lattice
 * S = i/m with k = K/m and h = H/m the chain is exact (as in Lucas 1985, who rounds k to a rational):
 * the transient states are i = 0 … H-1, state i moves to max(0, i + m·x - K), and with R the transient
 * transition matrix the run lengths L from each state solve (I - R) L = 1; the ARL is L₀. Dense
 * Gaussian elimination in the subtraction-free form of Grassmann, Taksar & Heyman (1985), O(H³), so an
 * in-control ARL stays accurate (and positive) when a signal is rarer than 1e-16 per period; the cost
 * does not grow with the rate. Checked against R's surveillance::arlCusum (Hawkins 1992) in the tests.
 */
import { poissonCdf, poissonPmf, poissonSurvival } from './poissonTails.ts';

export interface CusumLattice {
  /** Lattice points per count: S is a multiple of 1/m. */
  m: number;
  /** k·m: the reference value in lattice steps. */
  referenceSteps: number;
  /** h·m: the decision interval in lattice steps. */
  thresholdSteps: number;
}

export function cusumArl(rate: number, lattice: CusumLattice): number {
  const { m, referenceSteps: K, thresholdSteps: H } = lattice;
  if (!(rate > 0) || !Number.isFinite(rate)) throw new RangeError(`cusumArl: rate must be a finite number > 0, got ${rate}`);
  if (!Number.isInteger(m) || m < 1) throw new RangeError(`cusumArl: m must be an integer >= 1, got ${m}`);
  if (!Number.isInteger(K) || K < 0) throw new RangeError(`cusumArl: referenceSteps must be an integer >= 0, got ${K}`);
  if (!Number.isInteger(H) || H < 1) throw new RangeError(`cusumArl: thresholdSteps must be an integer >= 1, got ${H}`);
  // Only counts in [xLo, xMax] move a transient state to another one: below xLo every state falls to 0,
  // above xMax every state signals. (Summing the pmf from 0 would cost O(rate) for a large rate.)
  const xMax = Math.floor((H - 1 + K) / m);
  const xLo = K >= H - 1 ? Math.floor((K - H + 1) / m) : 0;
  const window = xMax - xLo + 1;
  const mass = new Float64Array(window);
  const cdf = new Float64Array(window); // P(X ≤ xLo + d)
  for (let d = 0; d < window; d++) {
    mass[d] = poissonPmf(xLo + d, rate);
    cdf[d] = d > 0 ? cdf[d - 1] + mass[d] : poissonCdf(xLo, rate);
  }
  // Signal probabilities q_i = P(X ≥ ⌈(H + K - i)/m⌉) summed from the upper tail, never as 1 - P(stay):
  // in control they can be far below the 1e-16 that 1 - P(stay) resolves.
  const beyond = poissonSurvival(xMax + 1, rate);
  const tail = new Float64Array(window + 1); // P(X ≥ xLo + d)
  tail[window] = beyond;
  for (let d = window - 1; d >= 0; d--) tail[d] = tail[d + 1] + mass[d];
  // A = I - R off the diagonal (row-major; entries ≤ 0) and the row sums q of I - R.
  const a = new Float64Array(H * H);
  const q = new Float64Array(H);
  for (let i = 0; i < H; i++) {
    const row = i * H;
    q[i] = tail[Math.ceil((H + K - i) / m) - xLo];
    const lastToZero = K >= i ? Math.floor((K - i) / m) : -1;
    if (lastToZero >= 0 && i !== 0) a[row] -= cdf[lastToZero - xLo];
    for (let x = Math.max(lastToZero + 1, xLo); x <= xMax; x++) {
      const j = i + m * x - K;
      if (j >= H) break;
      if (j !== i) a[row + j] -= mass[x - xLo];
    }
  }
  // Gaussian elimination in the Grassmann-Taksar-Heyman way (no pivoting, no subtraction): each pivot is
  // its row's signal probability plus the magnitudes of its remaining off-diagonal entries, and the
  // eliminations only add non-negative terms to q, b and the off-diagonal magnitudes.
  const b = new Float64Array(H).fill(1);
  const diag = new Float64Array(H);
  for (let col = 0; col < H; col++) {
    const pivotRow = col * H;
    let pivot = q[col];
    for (let c = col + 1; c < H; c++) pivot -= a[pivotRow + c];
    if (pivot === 0) return Infinity; // the CUSUM can never reach h from here
    diag[col] = pivot;
    for (let r = col + 1; r < H; r++) {
      const factor = a[r * H + col] / pivot; // ≤ 0
      if (factor === 0) continue;
      for (let c = col + 1; c < H; c++) if (c !== r) a[r * H + c] -= factor * a[pivotRow + c];
      q[r] -= factor * q[col];
      b[r] -= factor * b[col];
    }
  }
  const l = new Float64Array(H);
  for (let r = H - 1; r >= 0; r--) {
    let s = b[r];
    for (let c = r + 1; c < H; c++) s -= a[r * H + c] * l[c];
    l[r] = s / diag[r];
  }
  return l[0];
}
