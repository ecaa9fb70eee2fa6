/** Compressed sparse rows: the TF-IDF matrix of the engine (rows = issues, columns = hashed features). */
export interface CsrMatrix {
  rows: number;
  cols: number;
  /** rowPtr[i]..rowPtr[i+1] index the entries of row i. */
  rowPtr: Uint32Array;
  colIdx: Uint32Array;
  values: Float32Array;
}

/** y = A x  (A: rows × cols sparse, x: cols × k dense row-major, y: rows × k). */
export function multiplyDense(a: CsrMatrix, x: Float64Array, k: number): Float64Array {
  const y = new Float64Array(a.rows * k);
  for (let i = 0; i < a.rows; i++) {
    const yo = i * k;
    for (let p = a.rowPtr[i]; p < a.rowPtr[i + 1]; p++) {
      const v = a.values[p];
      const xo = a.colIdx[p] * k;
      for (let j = 0; j < k; j++) y[yo + j] += v * x[xo + j];
    }
  }
  return y;
}

/** y = Aᵀ x  (x: rows × k dense, y: cols × k). */
export function multiplyTransposeDense(a: CsrMatrix, x: Float64Array, k: number): Float64Array {
  const y = new Float64Array(a.cols * k);
  for (let i = 0; i < a.rows; i++) {
    const xo = i * k;
    for (let p = a.rowPtr[i]; p < a.rowPtr[i + 1]; p++) {
      const v = a.values[p];
      const yo = a.colIdx[p] * k;
      for (let j = 0; j < k; j++) y[yo + j] += v * x[xo + j];
    }
  }
  return y;
}

/** The rows `indices` (increasing) of A as a matrix of their own, same columns. */
export function selectRows(a: CsrMatrix, indices: readonly number[]): CsrMatrix {
  const rowPtr = new Uint32Array(indices.length + 1);
  let nnz = 0;
  indices.forEach((i, r) => (rowPtr[r + 1] = nnz += a.rowPtr[i + 1] - a.rowPtr[i]));
  const colIdx = new Uint32Array(nnz);
  const values = new Float32Array(nnz);
  indices.forEach((i, r) => {
    colIdx.set(a.colIdx.subarray(a.rowPtr[i], a.rowPtr[i + 1]), rowPtr[r]);
    values.set(a.values.subarray(a.rowPtr[i], a.rowPtr[i + 1]), rowPtr[r]);
  });
  return { rows: indices.length, cols: a.cols, rowPtr, colIdx, values };
}
