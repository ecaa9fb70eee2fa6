/**
 * Stage 6, stability: Hennig's clusterboot (2007). Bootstrap resamples of a stratified sample of the
 * clustered issues are re-clustered with the same k (seeded); each cluster's stability is the mean,
 * over resamples, of its best Jaccard similarity to a re-clustered cluster. Below `unstable_below`
 * (0.6) a cluster is not trusted and not promoted to a pattern; from `stable_at` (0.75) it is stable;
 * between, doubtful (promoted, flagged). The issues are taken in stage 5's reading order (`order`), not
 * the snapshot's: the shuffles and the bootstrap's k-means++ seeding pick by position, and the same
 * reports in another snapshot order must get the same statuses (issue 31, session 15).
 */
import { jaccard } from '../cluster/agreement.ts';
import { rowsOf } from '../cluster/kmeans.ts';
import { bestKmeans } from '../cluster/selectK.ts';
import { rankOf } from '../cluster/readingOrder.ts';
import { createRng, deriveSeed } from '../rng.ts';
import { round } from '../round.ts';
import type { StageContext } from './context.ts';
import type { VectorizeOutput } from './04_vectorize.ts';
import { denseOf, type ClusterOutput } from './05_cluster.ts';

export type StabilityStatus = 'stable' | 'doubtful' | 'unstable' | 'unassessed';

export interface StabilityOutput {
  bootstraps: number;
  clusters: Array<{ label: number; size: number; jaccard: number | null; status: StabilityStatus }>;
  summary: Record<StabilityStatus, number>;
}

export function stability(input: { vectorize: VectorizeOutput; cluster: ClusterOutput }, ctx: StageContext): StabilityOutput {
  const cfg = ctx.configs.cluster.document;
  const { labels, k } = input.cluster;
  const sizes = new Array<number>(k).fill(0);
  // Mined templates (labels from k on) are not k-means clusters: no bootstrap for them.
  for (const l of labels) if (l >= 0 && l < k) sizes[l]++;
  const status = (j: number | null): StabilityStatus =>
    j === null ? 'unassessed' : j < cfg.unstable_below ? 'unstable' : j >= cfg.stable_at ? 'stable' : 'doubtful';
  const summarize = (clusters: StabilityOutput['clusters']) => {
    const summary: Record<StabilityStatus, number> = { stable: 0, doubtful: 0, unstable: 0, unassessed: 0 };
    for (const c of clusters) if (c.size > 0) summary[c.status]++;
    return summary;
  };
  if (k === 0 || cfg.bootstrap_samples === 0) {
    const clusters = sizes.map((size, label) => ({ label, size, jaccard: null, status: 'unassessed' as const }));
    return { bootstraps: 0, clusters, summary: summarize(clusters) };
  }

  const x = denseOf(input.vectorize);
  const rng = createRng(deriveSeed(ctx.seed, 'stability'));
  // Stratified population: up to sample_size / k members of every cluster, so small clusters are assessed too.
  const perCluster = Math.max(cfg.min_cluster_size, Math.ceil(cfg.sample_size / k));
  const rank = rankOf(input.cluster.order, labels.length);
  const byRank = (a: number, b: number) => rank[a] - rank[b];
  const members: number[][] = Array.from({ length: k }, () => []);
  for (const i of input.cluster.order) if (labels[i] >= 0 && labels[i] < k) members[labels[i]].push(i);
  const population: number[] = [];
  for (const list of members) {
    const take = [...list];
    for (let i = take.length - 1; i > 0; i--) {
      const j = rng.int(i + 1);
      [take[i], take[j]] = [take[j], take[i]];
    }
    population.push(...take.slice(0, perCluster).sort(byRank));
  }
  const original = Array.from({ length: k }, () => new Set<number>());
  population.forEach((i) => original[labels[i]].add(i));

  const sums = new Float64Array(k);
  const counts = new Int32Array(k);
  for (let b = 0; b < cfg.bootstrap_samples; b++) {
    const drawn = new Set<number>();
    for (let t = 0; t < population.length; t++) drawn.add(population[rng.int(population.length)]);
    const points = [...drawn].sort(byRank);
    const data = rowsOf(x, points);
    const kb = Math.min(k, points.length);
    // The whole method again (seeded k-means++ and Lloyd), as clusterboot prescribes.
    const result = bestKmeans(data, kb, deriveSeed(ctx.seed, `boot${b}`), 1, cfg.max_iterations);
    const reclustered = Array.from({ length: kb }, () => new Set<number>());
    points.forEach((p, i) => reclustered[result.labels[i]].add(p));
    for (let c = 0; c < k; c++) {
      const restricted = new Set<number>();
      for (const p of original[c]) if (drawn.has(p)) restricted.add(p);
      if (!restricted.size) continue;
      let best = 0;
      for (const d of reclustered) best = Math.max(best, jaccard(restricted, d));
      sums[c] += best;
      counts[c]++;
    }
  }
  const clusters = sizes.map((size, label) => {
    const j = counts[label] ? round(sums[label] / counts[label]) : null;
    return { label, size, jaccard: j, status: size === 0 ? ('unassessed' as const) : status(j) };
  });
  return { bootstraps: cfg.bootstrap_samples, clusters, summary: summarize(clusters) };
}
