/**
 * Stage 4, vectorize: hashed TF-IDF of each issue (title tokens counted twice, adjacent-token bigrams
 * at half weight; engine/text/tfidf.ts), then a seeded randomised truncated SVD (latent semantic
 * analysis) to `reduced_dimensions` dense coordinates, rows L2-normalised and stored as float32 so
 * that later stages read exactly what was stored. Above SVD_SAMPLE_ROWS issues the SVD basis comes
 * from a seeded row sample and every row is projected onto it.
 */
import { sampledSvd } from '../cluster/sampledSvd.ts';
import { normalizeRows } from '../cluster/kmeans.ts';
import { deriveSeed } from '../rng.ts';
import { round } from '../round.ts';
import { tfidfOfTokenIds } from '../text/tfidf.ts';
import { fnv1a } from '../text/hashing.ts';
import { kindOf, type FeatureKind } from '../text/features.ts';
import type { CsrMatrix } from '../cluster/sparse.ts';
import type { StageContext } from './context.ts';
import type { NormalizeOutput } from './02_normalize.ts';

const TITLE_WEIGHT = 2;
const BIGRAM_WEIGHT = 0.5;

/**
 * Structured features (issue 31 §2; engine/text/features.ts) as a block of their own beside the
 * words: each feature idf-weighted times its kind's weight, the block L2-normalised and scaled by
 * STRUCTURED_WEIGHT, then the whole row normalised again. A feature in fewer than two reports links
 * nothing and is dropped, as is one in more than STRUCTURED_MAX_DF_SHARE of them (a framework frame
 * every trace carries). Stage 7 compares reports on these rows (nearest neighbours). The embedding
 * k-means reads does not carry the block (EMBEDDING_STRUCTURED = 0): measured on the Hadoop reports,
 * a few strong feature directions took the 20 SVD dimensions from the words and cost duplicate pairs
 * (docs/decisions.md, issue 31); the term columns that name and match patterns stay words too.
 */
export const STRUCTURED_WEIGHT = 0.8;
/** The structured block's weight in the embedding (0: words only, the embedding as before issue 31). */
const EMBEDDING_STRUCTURED = 0;
export const KIND_WEIGHT: Record<FeatureKind, number> = { exception: 1, frame: 1, component: 1, code: 1 };
const STRUCTURED_MAX_DF_SHARE = 0.1;
const STRUCTURED_DIMENSIONS = 1 << 13;

/**
 * Power iterations of the randomised SVD (Halko et al. 2011). Prose spectra decay slowly, and with 2
 * the 20-dimensional subspace still depended on the random start: the Hadoop reports' clustering
 * changed with the seed (issue 31: duplicate pairs together 53-67% over three seeds). With 6 it has
 * converged closely enough that the seeds agree (65-75%); each iteration is two sparse products of
 * n × (rank + 10).
 */
export const SVD_POWER_ITERATIONS = 6;

/**
 * Above this many issues the SVD basis is computed on a seeded uniform sample of this many rows and
 * every row is projected onto it (engine/cluster/sampledSvd.ts; issue 31, session 13): the power
 * iterations then cost the same at 100,000 issues as at 20,000, and the projection is one sparse
 * product of n × rank. At or under it the embedding is the full-data one, bit for bit. 20,000 unit
 * rows estimate the top 20 directions of AᵀA closely (docs/decisions.md, session 13).
 */
export const SVD_SAMPLE_ROWS = 20_000;

/** The text rows with the structured block appended (columns dims … dims + STRUCTURED_DIMENSIONS). */
export function withStructured(text: CsrMatrix, norm: NormalizeOutput, structuredWeight = STRUCTURED_WEIGHT): CsrMatrix {
  const column = norm.features;
  const vocabulary = norm.feature_vocabulary;
  if (!column || !vocabulary || column.ids.length === 0 || structuredWeight === 0) return text;
  const n = text.rows;
  const df = new Uint32Array(vocabulary.length);
  for (let i = 0; i < n; i++) for (let p = column.offsets[i]; p < column.offsets[i + 1]; p++) df[column.ids[p]]++;
  const maxDf = Math.max(2, Math.floor(STRUCTURED_MAX_DF_SHARE * n));
  const weight = new Float64Array(vocabulary.length);
  const col = new Uint32Array(vocabulary.length);
  vocabulary.forEach((f, id) => {
    if (df[id] < 2 || df[id] > maxDf) return;
    weight[id] = (Math.log((1 + n) / (1 + df[id])) + 1) * KIND_WEIGHT[kindOf(f)];
    col[id] = text.cols + (fnv1a(f) % STRUCTURED_DIMENSIONS);
  });
  const rowPtr = new Uint32Array(n + 1);
  const colIdx = new Uint32Array(text.rowPtr[n] + column.offsets[n]);
  const values = new Float32Array(colIdx.length);
  // One row's block: (column, weight) pairs sorted by column, equal columns (hash collisions) summed.
  let blockCols = new Uint32Array(64);
  let blockWeights = new Float64Array(64);
  let q = 0;
  for (let i = 0; i < n; i++) {
    let m = 0;
    for (let p = column.offsets[i]; p < column.offsets[i + 1]; p++) {
      const id = column.ids[p];
      if (weight[id] === 0) continue;
      if (m === blockCols.length) {
        const c = new Uint32Array(m * 2);
        c.set(blockCols);
        blockCols = c;
        const w = new Float64Array(m * 2);
        w.set(blockWeights);
        blockWeights = w;
      }
      // Insertion by column (a report has few features).
      let k = m++;
      while (k > 0 && blockCols[k - 1] > col[id]) {
        blockCols[k] = blockCols[k - 1];
        blockWeights[k] = blockWeights[k - 1];
        k--;
      }
      if (k > 0 && blockCols[k - 1] === col[id]) {
        blockWeights[k - 1] += weight[id];
        for (let j = k; j < m - 1; j++) {
          blockCols[j] = blockCols[j + 1];
          blockWeights[j] = blockWeights[j + 1];
        }
        m--;
      } else {
        blockCols[k] = col[id];
        blockWeights[k] = weight[id];
      }
    }
    let blockNorm = 0;
    for (let k = 0; k < m; k++) blockNorm += blockWeights[k] * blockWeights[k];
    const scale = blockNorm > 0 ? structuredWeight / Math.sqrt(blockNorm) : 0;
    let rowNorm = 0;
    for (let p = text.rowPtr[i]; p < text.rowPtr[i + 1]; p++) rowNorm += text.values[p] * text.values[p];
    rowNorm += scale * scale * blockNorm;
    const inv = rowNorm > 0 ? 1 / Math.sqrt(rowNorm) : 0;
    for (let p = text.rowPtr[i]; p < text.rowPtr[i + 1]; p++) {
      colIdx[q] = text.colIdx[p];
      values[q++] = text.values[p] * inv;
    }
    for (let k = 0; k < m; k++) {
      colIdx[q] = blockCols[k];
      values[q++] = blockWeights[k] * scale * inv;
    }
    rowPtr[i + 1] = q;
  }
  return { rows: n, cols: text.cols + STRUCTURED_DIMENSIONS, rowPtr, colIdx: colIdx.subarray(0, q), values: values.subarray(0, q) };
}

export interface VectorizeOutput {
  issue_ids: string[];
  dimensions: number;
  /** n × dimensions, row-major, unit rows. */
  embedding: Float32Array;
  /** The hashed TF-IDF rows (CSR), for the patterns' term centroids (stage 7 names the features from the members). */
  tfidf: { cols: number; row_ptr: Uint32Array; col_idx: Uint32Array; values: Float32Array };
  singular_values: number[];
}

/** `options.svdSampleRows` is for benchmarks and tests that exercise the sampled basis on small sets. */
export function vectorize(input: { normalize: NormalizeOutput }, ctx: StageContext, options: { svdSampleRows?: number } = {}): VectorizeOutput {
  const cfg = ctx.configs.cluster.document;
  const norm = input.normalize;
  const n = norm.issue_ids.length;
  const tf = tfidfOfTokenIds(norm, { dimensions: cfg.hash_dimensions, titleWeight: TITLE_WEIGHT, bigramWeight: BIGRAM_WEIGHT });
  const base = {
    issue_ids: norm.issue_ids,
    tfidf: { cols: tf.matrix.cols, row_ptr: tf.matrix.rowPtr, col_idx: tf.matrix.colIdx, values: tf.matrix.values },
  };
  if (n < 2 || tf.matrix.values.length === 0) return { ...base, dimensions: 0, embedding: new Float32Array(0), singular_values: [] };
  const svd = sampledSvd(
    withStructured(tf.matrix, norm, EMBEDDING_STRUCTURED),
    Math.min(cfg.reduced_dimensions, n),
    deriveSeed(ctx.seed, 'svd'),
    options.svdSampleRows ?? SVD_SAMPLE_ROWS,
    { powerIterations: SVD_POWER_ITERATIONS },
  );
  return {
    ...base,
    dimensions: svd.rank,
    embedding: Float32Array.from(normalizeRows(svd.embedding, n, svd.rank)),
    singular_values: Array.from(svd.singularValues, (v) => round(v, 9)),
  };
}
