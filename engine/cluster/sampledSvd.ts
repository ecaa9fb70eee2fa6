/**
 * Truncated SVD of a tall matrix whose basis comes from a row sample: the top `rank` right singular
 * vectors V are computed (randomizedSvd) on `sampleRows` rows drawn uniformly without replacement,
 * seeded, and every row i is embedded as A_i·V. For a row of the sample A_i·V is exactly the U Σ row
 * the sample's decomposition gives it (B V = U_B Σ); any other row gets the same linear map, so all rows
 * share one coordinate system. With unit rows (the engine's TF-IDF rows are L2-normalised) uniform
 * sampling is length-squared sampling (Frieze, Kannan & Vempala 2004; Drineas, Kannan & Mahoney 2006):
 * AₛᵀAₛ · n/m is an unbiased estimate of AᵀA, whose top eigenvectors are V. The singular values
 * returned are the column lengths of A·V, the full matrix's σ_j along the sample's directions, and the
 * columns are ordered by them (decreasing), as randomizedSvd orders its own.
 * At or under `sampleRows` rows this is randomizedSvd of every row.
 * The rows are read in content order (engine/cluster/readingOrder.ts: by a digest of each row's
 * columns and values), not by position: the sample is drawn from them in that order, and every sum
 * over rows (the lengths here; the decomposition's own products when every row is decomposed) runs
 * in that order, so the same rows in another order give the same basis and the same embedding row
 * for row, bit for bit (issue 31, sessions 16 and 17). Identical rows tie, and whichever is drawn
 * gives the same sample.
 */
import { contentDigest, contentOrder } from './readingOrder.ts';
import { createRng, deriveSeed, sampleIndices } from '../rng.ts';
import { randomizedSvd, type SvdOptions, type SvdResult } from './svd.ts';
import { multiplyDense, selectRows, type CsrMatrix } from './sparse.ts';

export function sampledSvd(a: CsrMatrix, rank: number, seed: number, sampleRows: number, options: Omit<SvdOptions, 'basis'> = {}): SvdResult {
  if (!(Number.isInteger(sampleRows) && sampleRows >= 1)) throw new Error(`sampleRows must be a positive integer, got ${sampleRows}`);
  const byContent = contentOrder(
    Array.from({ length: a.rows }, (_, i) => i),
    (i) => contentDigest([a.colIdx.subarray(a.rowPtr[i], a.rowPtr[i + 1]), a.values.subarray(a.rowPtr[i], a.rowPtr[i + 1])]),
    (i) => i,
  );
  if (a.rows <= sampleRows) {
    // Every row is in the basis: decompose them in content order (its sums run over the rows) and put them back.
    const result = randomizedSvd(selectRows(a, byContent), rank, seed, options);
    const embedding = new Float64Array(result.embedding.length);
    byContent.forEach((i, p) => embedding.set(result.embedding.subarray(p * result.rank, (p + 1) * result.rank), i * result.rank));
    return { ...result, embedding };
  }
  const rows = sampleIndices(createRng(deriveSeed(seed, 'rows')), a.rows, sampleRows).map((p) => byContent[p]);
  const { rank: r, basis } = randomizedSvd(selectRows(a, rows), rank, seed, { ...options, basis: true });
  const projected = multiplyDense(a, basis!, r);
  const lengths = new Float64Array(r);
  for (const i of byContent) for (let j = 0; j < r; j++) lengths[j] += projected[i * r + j] ** 2;
  // The sample's order of the directions need not be the full matrix's: columns by decreasing σ.
  const order = Array.from({ length: r }, (_, j) => j).sort((x, y) => lengths[y] - lengths[x] || x - y);
  const singularValues = Float64Array.from(order, (j) => Math.sqrt(lengths[j]));
  const embedding = new Float64Array(a.rows * r);
  for (let i = 0; i < a.rows; i++) for (let j = 0; j < r; j++) embedding[i * r + j] = projected[i * r + order[j]];
  const v = new Float64Array(a.cols * r);
  for (let c = 0; c < a.cols; c++) for (let j = 0; j < r; j++) v[c * r + j] = basis![c * r + order[j]];
  return { embedding, rank: r, singularValues, basis: v };
}
