/**
 * Choosing the number of clusters: seeded k-means for each k of a geometric grid between k_min and
 * k_max on a sample, scored by the mean silhouette of a sub-sample; then the neighbourhood of the best
 * k (between its grid neighbours) is evaluated again with the best of several restarts (by total
 * cosine similarity), and the best silhouette there wins.
 */
import { createRng, deriveSeed, sampleIndices } from '../rng.ts';
import { round } from '../round.ts';
import { kmeansPlusPlus, lloyd, rowsOf, type Assignment, type Dense } from './kmeans.ts';
import { cosineDistances, silhouetteOfDistances } from './silhouette.ts';

export interface KSelection {
  k: number;
  assignment: Assignment;
  scores: Array<{ k: number; silhouette: number }>;
}

export function geometricGrid(kMin: number, kMax: number, ratio = 1.35): number[] {
  const grid: number[] = [];
  for (let k = kMin; k <= kMax; k = Math.max(k + 1, Math.round(k * ratio))) grid.push(k);
  if (grid.at(-1) !== kMax && kMax >= kMin) grid.push(kMax);
  return grid;
}

/** Best of `restarts` seeded runs of k-means on `x`. */
export function bestKmeans(x: Dense, k: number, seed: number, restarts: number, maxIterations: number): Assignment {
  let best: Assignment | null = null;
  let bestObjective = -Infinity;
  for (let r = 0; r < restarts; r++) {
    const rng = createRng(deriveSeed(seed, `k${k}r${r}`));
    const result = lloyd(x, kmeansPlusPlus(x, k, rng), k, maxIterations, 0.001);
    let objective = 0;
    for (let i = 0; i < x.n; i++) objective += result.similarity[i];
    if (objective > bestObjective) {
      bestObjective = objective;
      best = result;
    }
  }
  return best!;
}

export function selectK(
  sample: Dense,
  options: { kMin: number; kMax: number; seed: number; restarts: number; maxIterations: number; silhouetteSample: number },
): KSelection {
  const subsample = sampleIndices(createRng(deriveSeed(options.seed, 'silhouette')), sample.n, options.silhouetteSample);
  // Every candidate k is scored on the same sub-sample: its pairwise distances are computed once.
  const distances = cosineDistances(rowsOf(sample, subsample));
  const score = (k: number, restarts: number) => {
    const assignment = bestKmeans(sample, k, options.seed, restarts, options.maxIterations);
    return {
      score: silhouetteOfDistances(
        distances,
        subsample.length,
        subsample.map((i) => assignment.labels[i]),
        k,
      ),
      assignment,
    };
  };
  const coarseScores = new Map<number, number>();
  const grid = geometricGrid(options.kMin, options.kMax);
  for (const k of grid) coarseScores.set(k, score(k, 1).score);
  const coarse = [...coarseScores.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0][0];
  const evaluated = new Map<number, { score: number; assignment: Assignment }>();
  const evaluate = (k: number) => {
    if (!evaluated.has(k) && k >= options.kMin && k <= options.kMax) evaluated.set(k, score(k, options.restarts));
  };
  const at = grid.indexOf(coarse);
  const lo = grid[Math.max(0, at - 1)];
  const hi = grid[Math.min(grid.length - 1, at + 1)];
  // Refine between the neighbours: every k when they are close, a finer geometric grid otherwise.
  for (const k of hi - lo <= 8 ? Array.from({ length: hi - lo + 1 }, (_, i) => lo + i) : [lo, ...geometricGrid(lo + 1, hi - 1, 1.08), hi]) evaluate(k);
  const [k, { assignment }] = [...evaluated.entries()].sort((a, b) => b[1].score - a[1].score || a[0] - b[0])[0];
  const scores = new Map(coarseScores);
  for (const [kk, v] of evaluated) scores.set(kk, v.score);
  return { k, assignment, scores: [...scores.entries()].sort((a, b) => a[0] - b[0]).map(([kk, v]) => ({ k: kk, silhouette: round(v) })) };
}
