/**
 * Mean silhouette (Rousseeuw 1987) with cosine distance 1 - x·y on normalised rows, computed on a
 * sample: s(i) = (b - a) / max(a, b), a = mean distance to its own cluster, b = smallest mean
 * distance to another cluster. Singletons score 0.
 */
import type { Dense } from './kmeans.ts';

export function silhouette(x: Dense, labels: Int32Array | number[], k: number): number {
  return silhouetteOfDistances(cosineDistances(x), x.n, labels, k);
}

/** The cosine distances 1 - x_i·x_j of all pairs of rows (n × n, row-major), for scoring many labelings of one sample. */
export function cosineDistances(x: Dense): Float64Array {
  const { n, d, data } = x;
  const out = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    const oi = i * d;
    for (let j = i + 1; j < n; j++) {
      const oj = j * d;
      let dot = 0;
      for (let t = 0; t < d; t++) dot += data[oi + t] * data[oj + t];
      out[i * n + j] = 1 - dot;
      out[j * n + i] = 1 - dot;
    }
  }
  return out;
}

/** `silhouette` from precomputed `cosineDistances`: the same sums in the same order, so the same number. */
export function silhouetteOfDistances(distances: Float64Array, n: number, labels: Int32Array | number[], k: number): number {
  const counts = new Float64Array(k);
  for (let i = 0; i < n; i++) counts[labels[i]]++;
  let total = 0;
  const sums = new Float64Array(k);
  for (let i = 0; i < n; i++) {
    sums.fill(0);
    const row = i * n;
    for (let j = 0; j < n; j++) if (j !== i) sums[labels[j]] += distances[row + j];
    const own = labels[i];
    if (counts[own] <= 1) continue;
    const a = sums[own] / (counts[own] - 1);
    let b = Infinity;
    for (let c = 0; c < k; c++) if (c !== own && counts[c] > 0) b = Math.min(b, sums[c] / counts[c]);
    if (!Number.isFinite(b)) continue;
    total += (b - a) / Math.max(a, b);
  }
  return total / n;
}
