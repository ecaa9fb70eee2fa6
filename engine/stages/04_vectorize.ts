/**
 * Stage 4, vectorize: hashed TF-IDF of each issue (title tokens counted twice, adjacent-token bigrams
 * at half weight; engine/text/tfidf.ts), then a seeded randomised truncated SVD (latent semantic
 * analysis) to `reduced_dimensions` dense coordinates, rows L2-normalised and stored as float32 so
 * that later stages read exactly what was stored.
 */
import { randomizedSvd } from '../cluster/svd.ts';
import { normalizeRows } from '../cluster/kmeans.ts';
import { deriveSeed } from '../rng.ts';
import { round } from '../round.ts';
import { tfidfOfTokenIds } from '../text/tfidf.ts';
import type { StageContext } from './context.ts';
import type { NormalizeOutput } from './02_normalize.ts';

const TITLE_WEIGHT = 2;
const BIGRAM_WEIGHT = 0.5;

export interface VectorizeOutput {
  issue_ids: string[];
  dimensions: number;
  /** n × dimensions, row-major, unit rows. */
  embedding: Float32Array;
  /** The hashed TF-IDF rows (CSR), for naming patterns and their term centroids. */
  tfidf: { cols: number; row_ptr: Uint32Array; col_idx: Uint32Array; values: Float32Array };
  /** A readable token per used feature: features[i] ↔ tokens[i]. */
  features: Uint32Array;
  tokens: string[];
  singular_values: number[];
}

export function vectorize(input: { normalize: NormalizeOutput }, ctx: StageContext): VectorizeOutput {
  const cfg = ctx.configs.cluster.document;
  const norm = input.normalize;
  const n = norm.issue_ids.length;
  const tf = tfidfOfTokenIds(norm, { dimensions: cfg.hash_dimensions, titleWeight: TITLE_WEIGHT, bigramWeight: BIGRAM_WEIGHT });
  const features = [...tf.vocabulary.keys()].sort((a, b) => a - b);
  const base = {
    issue_ids: norm.issue_ids,
    tfidf: { cols: tf.matrix.cols, row_ptr: tf.matrix.rowPtr, col_idx: tf.matrix.colIdx, values: tf.matrix.values },
    features: Uint32Array.from(features),
    tokens: features.map((f) => tf.vocabulary.get(f)!),
  };
  if (n < 2 || tf.matrix.values.length === 0) return { ...base, dimensions: 0, embedding: new Float32Array(0), singular_values: [] };
  const svd = randomizedSvd(tf.matrix, Math.min(cfg.reduced_dimensions, n), deriveSeed(ctx.seed, 'svd'), { powerIterations: 2 });
  return {
    ...base,
    dimensions: svd.rank,
    embedding: Float32Array.from(normalizeRows(svd.embedding, n, svd.rank)),
    singular_values: Array.from(svd.singularValues, (v) => round(v, 9)),
  };
}
