/**
 * Randomised truncated SVD (Halko, Martinsson & Tropp 2011, algorithm 4.4 with q power iterations),
 * seeded: the latent semantic embedding of engine stage 4. Returns the document coordinates U·Σ of
 * the top `rank` components.
 */
import { createRng } from '../rng.ts';
import { gram, orthonormalize, symmetricEigen } from './linalg.ts';
import { multiplyDense, multiplyTransposeDense, type CsrMatrix } from './sparse.ts';

export interface SvdResult {
  /** n × rank, row-major: U Σ. */
  embedding: Float64Array;
  rank: number;
  singularValues: Float64Array;
  /** cols × rank, row-major: the right singular vectors V (with `options.basis` only); A·V = U Σ. */
  basis?: Float64Array;
}

export interface SvdOptions {
  oversample?: number;
  powerIterations?: number;
  /** Also return V (cols × rank), to embed rows that were not part of the decomposed matrix. */
  basis?: boolean;
}

export function randomizedSvd(a: CsrMatrix, rank: number, seed: number, options: SvdOptions = {}): SvdResult {
  const l = Math.min(rank + (options.oversample ?? 10), a.rows, a.cols);
  const r = Math.min(rank, l);
  const rng = createRng(seed);
  const omega = new Float64Array(a.cols * l);
  for (let i = 0; i < omega.length; i++) omega[i] = rng.normal();
  let y = multiplyDense(a, omega, l);
  orthonormalize(y, a.rows, l);
  for (let q = 0; q < (options.powerIterations ?? 2); q++) {
    const z = multiplyTransposeDense(a, y, l);
    orthonormalize(z, a.cols, l);
    y = multiplyDense(a, z, l);
    orthonormalize(y, a.rows, l);
  }
  // B = Qᵀ A; its left singular vectors and values come from B Bᵀ = (AᵀQ)ᵀ(AᵀQ).
  const atq = multiplyTransposeDense(a, y, l);
  const { values, vectors } = symmetricEigen(gram(atq, a.cols, l), l);
  const singularValues = new Float64Array(r);
  for (let j = 0; j < r; j++) singularValues[j] = Math.sqrt(Math.max(0, values[j]));
  // U Σ = Q U_B Σ.
  const embedding = new Float64Array(a.rows * r);
  for (let i = 0; i < a.rows; i++) {
    const qo = i * l;
    const eo = i * r;
    for (let j = 0; j < r; j++) {
      let s = 0;
      for (let p = 0; p < l; p++) s += y[qo + p] * vectors[p * l + j];
      embedding[eo + j] = s * singularValues[j];
    }
  }
  if (!options.basis) return { embedding, rank: r, singularValues };
  // V = Bᵀ U_B Σ⁻¹ = (AᵀQ) U_B Σ⁻¹; a direction with σ = 0 spans nothing and is left zero.
  const basis = new Float64Array(a.cols * r);
  for (let c = 0; c < a.cols; c++) {
    const ao = c * l;
    const bo = c * r;
    for (let j = 0; j < r; j++) {
      if (singularValues[j] === 0) continue;
      let s = 0;
      for (let p = 0; p < l; p++) s += atq[ao + p] * vectors[p * l + j];
      basis[bo + j] = s / singularValues[j];
    }
  }
  return { embedding, rank: r, singularValues, basis };
}
