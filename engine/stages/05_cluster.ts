/**
 * Stage 5, cluster: spherical k-means over the embedding with k chosen automatically (silhouette on
 * a sample, engine/cluster/selectK.ts), then Lloyd iterations over all issues from the sample's
 * centroids. Issues far from every centroid (the least similar `1 - outlier_quantile` share) and the
 * members of clusters smaller than `min_cluster_size` stay unclustered (label -1).
 */
import { createRng, deriveSeed, sampleIndices } from '../rng.ts';
import { lloyd, rowsOf, type Dense } from '../cluster/kmeans.ts';
import { selectK } from '../cluster/selectK.ts';
import { round } from '../round.ts';
import type { StageContext } from './context.ts';
import type { VectorizeOutput } from './04_vectorize.ts';

export interface ClusterOutput {
  k: number;
  labels: Int32Array;
  /** Cosine similarity of each issue to its cluster's centroid. */
  similarity: Float32Array;
  /** k × dimensions, unit rows. */
  centroids: Float32Array;
  /** Indices of the issues in the selection sample (reused by the stability stage). */
  sample: Uint32Array;
  selection: Array<{ k: number; silhouette: number }>;
  outlier_similarity: number;
  unclustered: number;
}

const SELECTION_RESTARTS = 3;
const SILHOUETTE_SAMPLE = 1000;

export function denseOf(v: VectorizeOutput): Dense {
  return { n: v.issue_ids.length, d: v.dimensions, data: Float64Array.from(v.embedding) };
}

export function cluster(input: { vectorize: VectorizeOutput }, ctx: StageContext): ClusterOutput {
  const cfg = ctx.configs.cluster.document;
  const x = denseOf(input.vectorize);
  const none: ClusterOutput = {
    k: 0,
    labels: new Int32Array(x.n).fill(-1),
    similarity: new Float32Array(x.n),
    centroids: new Float32Array(0),
    sample: new Uint32Array(0),
    selection: [],
    outlier_similarity: 1,
    unclustered: x.n,
  };
  if (x.d === 0 || x.n < Math.max(2 * cfg.k_min, 2 * cfg.min_cluster_size)) return none;

  const seed = deriveSeed(ctx.seed, 'cluster');
  const sampleIdx = sampleIndices(createRng(seed), x.n, cfg.sample_size);
  const sample = rowsOf(x, sampleIdx);
  const kMax = Math.min(cfg.k_max, Math.floor(sample.n / cfg.min_cluster_size));
  if (kMax < cfg.k_min) return none;
  const selection = selectK(sample, { kMin: cfg.k_min, kMax, seed, restarts: SELECTION_RESTARTS, maxIterations: cfg.max_iterations, silhouetteSample: SILHOUETTE_SAMPLE });
  const full = sample.n === x.n ? selection.assignment : lloyd(x, selection.assignment.centroids, selection.k, cfg.max_iterations, 0.001);

  // Far from every centroid: below the (1 - outlier_quantile) quantile of all similarities.
  const sorted = Float64Array.from(full.similarity).sort();
  const outlierSimilarity = sorted[Math.floor((1 - cfg.outlier_quantile) * (sorted.length - 1))];
  const labels = Int32Array.from(full.labels);
  for (let i = 0; i < x.n; i++) if (full.similarity[i] < outlierSimilarity) labels[i] = -1;
  const sizes = new Int32Array(selection.k);
  for (const l of labels) if (l >= 0) sizes[l]++;
  for (let i = 0; i < x.n; i++) if (labels[i] >= 0 && sizes[labels[i]] < cfg.min_cluster_size) labels[i] = -1;

  return {
    k: selection.k,
    labels,
    similarity: Float32Array.from(full.similarity),
    centroids: Float32Array.from(full.centroids),
    sample: Uint32Array.from(sampleIdx),
    selection: selection.scores,
    outlier_similarity: round(outlierSimilarity, 9),
    unclustered: labels.reduce((u, l) => u + (l < 0 ? 1 : 0), 0),
  };
}
