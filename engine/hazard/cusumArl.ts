/**
 * Zero-start average run length of the upper Poisson CUSUM S_t = max(0, S_{t-1} + x_t - k), signalling
 * when S_t ≥ h, for counts x_t ~ Poisson(rate), by the Markov chain of Brook & Evans (1972,
 * Biometrika 59, "An approach to the probability distribution of CUSUM run length"). On the lattice
 * S = i/m with k = K/m and h = H/m the chain is exact (as in Lucas 1985, who rounds k to a rational):
 * the transient states are i = 0 … H-1, state i moves to max(0, i + m·x - K), and with R the transient
 * transition matrix the run lengths L from each state solve (I - R) L = 1; the ARL is L₀. Dense
 * Gaussian elimination with partial pivoting, O(H³). Checked against R's surveillance::arlCusum
 * (Hawkins 1992) in the tests.
 */
import { logGamma } from './regularizedGamma.ts';

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
  const xMax = Math.floor((H - 1 + K) / m);
  const pmf = new Float64Array(xMax + 1);
  const cdf = new Float64Array(xMax + 1);
  const logRate = Math.log(rate);
  for (let x = 0; x <= xMax; x++) {
    pmf[x] = Math.exp(-rate + x * logRate - logGamma(x + 1));
    cdf[x] = (x > 0 ? cdf[x - 1] : 0) + pmf[x];
  }
  // A = I - R, row-major.
  const a = new Float64Array(H * H);
  for (let i = 0; i < H; i++) {
    const row = i * H;
    a[row + i] = 1;
    const lastToZero = K >= i ? Math.floor((K - i) / m) : -1;
    if (lastToZero >= 0) a[row] -= cdf[Math.min(lastToZero, xMax)];
    for (let x = lastToZero + 1; x <= xMax; x++) {
      const j = i + m * x - K;
      if (j >= H) break;
      a[row + j] -= pmf[x];
    }
  }
  const b = new Float64Array(H).fill(1);
  for (let col = 0; col < H; col++) {
    let pivot = col;
    for (let r = col + 1; r < H; r++) if (Math.abs(a[r * H + col]) > Math.abs(a[pivot * H + col])) pivot = r;
    if (a[pivot * H + col] === 0) return Infinity; // the CUSUM can never reach h from here
    if (pivot !== col) {
      for (let c = 0; c < H; c++) {
        const tmp = a[col * H + c];
        a[col * H + c] = a[pivot * H + c];
        a[pivot * H + c] = tmp;
      }
      const tmp = b[col];
      b[col] = b[pivot];
      b[pivot] = tmp;
    }
    const diag = a[col * H + col];
    for (let r = col + 1; r < H; r++) {
      const factor = a[r * H + col] / diag;
      if (factor === 0) continue;
      for (let c = col; c < H; c++) a[r * H + c] -= factor * a[col * H + c];
      b[r] -= factor * b[col];
    }
  }
  const l = new Float64Array(H);
  for (let r = H - 1; r >= 0; r--) {
    let s = b[r];
    for (let c = r + 1; c < H; c++) s -= a[r * H + c] * l[c];
    l[r] = s / a[r * H + r];
  }
  return l[0];
}
