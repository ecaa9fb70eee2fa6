/**
 * Spherical k-means on L2-normalised rows (cosine similarity; Dhillon & Modha 2001) on typed arrays:
 * seeded k-means++ seeding, then Lloyd iterations. (ml-kmeans, with its number[][] API and distance
 * callback, measured 3-7x slower on the restarts x k grid of the cluster stage.)
 */
import type { Rng } from '../rng.ts';

export interface Dense {
  n: number;
  d: number;
  /** n × d row-major, rows L2-normalised. */
  data: Float64Array;
}

export function normalizeRows(data: Float64Array, n: number, d: number): Float64Array {
  const out = new Float64Array(data.length);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let j = 0; j < d; j++) s += data[i * d + j] ** 2;
    const inv = s > 0 ? 1 / Math.sqrt(s) : 0;
    for (let j = 0; j < d; j++) out[i * d + j] = data[i * d + j] * inv;
  }
  return out;
}

export function rowsOf(x: Dense, indices: number[]): Dense {
  const data = new Float64Array(indices.length * x.d);
  indices.forEach((idx, i) => data.set(x.data.subarray(idx * x.d, idx * x.d + x.d), i * x.d));
  return { n: indices.length, d: x.d, data };
}

/**
 * Above this many rows `seedingDistances` would hold too much: n² numbers, 72 MB at 3,000 rows (the
 * cluster config's default sample). A packed triangle, half of it, read a row across the other rows'
 * storage and saved only a third of the seeding's time against four fifths.
 */
export const SEEDING_DISTANCES_LIMIT = 3000;

/**
 * The squared cosine distances max(0, 1 - x_i·x_j)² of k-means++ between every two rows (n × n,
 * row-major), for seeding many times on one sample: every k and restart of selectK draws its
 * candidates from the same rows (on the 100,000 Hadoop-like issues ~14,000 rows of distances were
 * computed, ~3,500 of them distinct, stability's bootstraps included). Each dot product is the same
 * sum, in the same order, of the same products as kmeansPlusPlus computes (a product does not depend
 * on its operands' order): the same numbers.
 * Undefined above SEEDING_DISTANCES_LIMIT rows.
 */
export function seedingDistances(x: Dense): Float64Array | undefined {
  const { n, d, data } = x;
  if (n > SEEDING_DISTANCES_LIMIT) return undefined;
  const out = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    const ro = i * d;
    for (let r = i; r < n; r++) {
      const o = r * d;
      let dot = 0;
      for (let j = 0; j < d; j++) dot += data[o + j] * data[ro + j];
      const dist = Math.max(0, 1 - dot);
      out[i * n + r] = dist * dist;
      out[r * n + i] = dist * dist;
    }
  }
  return out;
}

/**
 * Seeded greedy k-means++ seeding (Arthur & Vassilvitskii 2007; the greedy variant of scikit-learn
 * with 2 + ln k trials per centre) with cosine distance 1 - x·c: each next centre is the best, by
 * the resulting potential, of several candidates drawn proportionally to the squared distance to the
 * nearest chosen centre. `pairs` (seedingDistances of `x`), when given, holds every row's squared
 * distances already: the same numbers, copied instead of computed.
 */
export function kmeansPlusPlus(x: Dense, k: number, rng: Rng, pairs?: Float64Array): Float64Array {
  const { n, d, data } = x;
  const centroids = new Float64Array(k * d);
  const nearest = new Float64Array(n).fill(Infinity);
  const trials = 2 + Math.floor(Math.log(k));
  const distancesTo = (row: number, out: Float64Array) => {
    if (pairs) {
      // The table is symmetric and full: row `row` holds its distances to every row, contiguous.
      out.set(pairs.subarray(row * n, row * n + n));
      return;
    }
    const ro = row * d;
    for (let i = 0; i < n; i++) {
      const o = i * d;
      let dot = 0;
      for (let j = 0; j < d; j++) dot += data[o + j] * data[ro + j];
      const dist = Math.max(0, 1 - dot);
      out[i] = dist * dist;
    }
  };
  const first = rng.int(n);
  centroids.set(data.subarray(first * d, first * d + d), 0);
  distancesTo(first, nearest);
  const candidate = new Float64Array(n);
  const best = new Float64Array(n);
  for (let c = 1; c < k; c++) {
    let total = 0;
    for (let i = 0; i < n; i++) total += nearest[i];
    let bestPotential = Infinity;
    let bestRow = 0;
    for (let t = 0; t < trials; t++) {
      let r = rng.next() * total;
      let row = n - 1;
      for (let i = 0; i < n; i++) {
        r -= nearest[i];
        if (r <= 0) {
          row = i;
          break;
        }
      }
      distancesTo(row, candidate);
      let potential = 0;
      for (let i = 0; i < n; i++) potential += Math.min(nearest[i], candidate[i]);
      if (potential < bestPotential) {
        bestPotential = potential;
        bestRow = row;
        best.set(candidate);
      }
    }
    centroids.set(data.subarray(bestRow * d, bestRow * d + d), c * d);
    for (let i = 0; i < n; i++) if (best[i] < nearest[i]) nearest[i] = best[i];
  }
  return centroids;
}

export interface Assignment {
  labels: Int32Array;
  /** cosine similarity of each row to its centroid */
  similarity: Float64Array;
  centroids: Float64Array;
  k: number;
  iterations: number;
}

/** Normalised mean direction of each cluster; an emptied cluster keeps its previous centroid. */
function recomputeCentroids(x: Dense, labels: Int32Array, k: number, previous: Float64Array): Float64Array {
  const d = x.d;
  const sums = new Float64Array(k * d);
  const counts = new Int32Array(k);
  for (let i = 0; i < x.n; i++) {
    const c = labels[i];
    if (c < 0) continue;
    counts[c]++;
    const o = i * d;
    const so = c * d;
    for (let j = 0; j < d; j++) sums[so + j] += x.data[o + j];
  }
  for (let c = 0; c < k; c++) if (counts[c] === 0) sums.set(previous.subarray(c * d, (c + 1) * d), c * d);
  return normalizeRows(sums, k, d);
}

// Far above the rounding error of a dot product of unit vectors (about d · 2⁻⁵³), far below any real gap.
const BOUND_MARGIN = 1e-10;

/** Above this many row × centroid bounds (32 MB) Lloyd keeps only the one bound per row. */
export const CENTROID_BOUNDS_LIMIT = 1 << 22;

/**
 * Assigns each row to the most similar centroid, with Hamerly's (2010) bound for cosine similarity:
 * `upper[i]` bounds row i's similarity to every centroid but its own. A row whose similarity to its
 * own centroid still exceeds that bound keeps its label without the k dot products; any other row is
 * compared with every centroid (the first best wins) and gets the runner-up similarity as its new
 * bound. The labels and similarities are therefore those of a full assignment.
 *
 * With `bounds` (Elkan 2003, row × centroid: bounds[i·k + c] + shift[c] ≥ row i's similarity to
 * centroid c, where shift[c] is how far centroid c has moved in all, so that a move is one addition), a
 * row that is compared with every centroid skips the centroids whose bound is below the best
 * similarity found so far (less the margin): such a centroid can be neither the best nor tie with it.
 * The best is the first centroid of the largest similarity, as without bounds, and the new `upper[i]`
 * is the largest similarity or bound of the others: a bound still, so the labels and similarities
 * are the same numbers as a full assignment's (the rounding of a bound's sums, ~1e-14 after a
 * hundred iterations, is far below the margin).
 */
function assignBounded(
  x: Dense,
  centroids: Float64Array,
  k: number,
  labels: Int32Array,
  similarity: Float64Array,
  upper: Float64Array,
  bounds: Float64Array | null,
  shift: Float64Array,
): number {
  let changed = 0;
  const { n, d, data } = x;
  for (let i = 0; i < n; i++) {
    const o = i * d;
    const own = labels[i];
    const bo = i * k;
    let ownSim = -Infinity;
    if (own >= 0) {
      const co = own * d;
      let s = 0;
      for (let j = 0; j < d; j++) s += data[o + j] * centroids[co + j];
      if (s > upper[i] + BOUND_MARGIN) {
        similarity[i] = s;
        if (bounds) bounds[bo + own] = s - shift[own];
        continue;
      }
      ownSim = s;
    }
    let best = -1;
    let bestSim = -Infinity;
    let second = -Infinity;
    if (bounds) {
      // Start from the own centroid's similarity (computed above, the same number): others are skipped against it.
      if (own >= 0) {
        best = own;
        bestSim = ownSim;
        bounds[bo + own] = ownSim - shift[own];
      }
      for (let c = 0; c < k; c++) {
        if (c === own) continue;
        const bound = bounds[bo + c] + shift[c];
        if (bound + BOUND_MARGIN < bestSim) {
          if (bound > second) second = bound;
          continue;
        }
        const co = c * d;
        let s = 0;
        for (let j = 0; j < d; j++) s += data[o + j] * centroids[co + j];
        bounds[bo + c] = s - shift[c];
        if (s > bestSim || (s === bestSim && c < best)) {
          if (bestSim > second) second = bestSim;
          bestSim = s;
          best = c;
        } else if (s > second) second = s;
      }
    } else {
      for (let c = 0; c < k; c++) {
        const co = c * d;
        let s = 0;
        for (let j = 0; j < d; j++) s += data[o + j] * centroids[co + j];
        if (s > bestSim) {
          second = bestSim;
          bestSim = s;
          best = c;
        } else if (s > second) second = s;
      }
    }
    if (own !== best) changed++;
    labels[i] = best;
    similarity[i] = bestSim;
    upper[i] = second;
  }
  return changed;
}

/** How far each centroid moved (into `moves`), and the largest: no row's similarity to a centroid changed by more (|x| ≤ 1). */
function centroidMoves(before: Float64Array, after: Float64Array, k: number, d: number, moves: Float64Array): number {
  let largest = 0;
  for (let c = 0; c < k; c++) {
    let s = 0;
    for (let j = c * d; j < (c + 1) * d; j++) s += (after[j] - before[j]) ** 2;
    moves[c] = Math.sqrt(s);
    largest = Math.max(largest, moves[c]);
  }
  return largest;
}

/** Lloyd iterations until fewer than `tolerance` of the points change cluster (then one last assignment). */
export function lloyd(x: Dense, initial: Float64Array, k: number, maxIterations: number, tolerance = 0, scratch?: Float64Array): Assignment {
  const labels = new Int32Array(x.n).fill(-1);
  const similarity = new Float64Array(x.n);
  const upper = new Float64Array(x.n).fill(Infinity);
  let centroids = normalizeRows(initial, k, x.d);
  // `scratch`, when large enough, holds the bounds (restarts reuse one buffer rather than allocate megabytes each).
  const bounds =
    scratch && scratch.length >= x.n * k
      ? scratch.subarray(0, x.n * k).fill(Infinity)
      : x.n * k <= CENTROID_BOUNDS_LIMIT
        ? new Float64Array(x.n * k).fill(Infinity)
        : null;
  const moves = new Float64Array(k);
  const shift = new Float64Array(k);
  let iterations = 0;
  for (; iterations < maxIterations; iterations++) {
    const changed = assignBounded(x, centroids, k, labels, similarity, upper, bounds, shift);
    if (iterations > 0 && changed <= tolerance * x.n) break;
    const next = recomputeCentroids(x, labels, k, centroids);
    const moved = centroidMoves(centroids, next, k, x.d, moves);
    for (let i = 0; i < x.n; i++) upper[i] += moved;
    for (let c = 0; c < k; c++) shift[c] += moves[c];
    centroids = next;
  }
  return { labels, similarity, centroids, k, iterations };
}
