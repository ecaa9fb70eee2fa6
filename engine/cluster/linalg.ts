/** Small dense linear algebra for the reduction step: Gram matrices, Cholesky QR, Jacobi eigen-decomposition. */

/** G = Yᵀ Y for Y (n × k, row-major). */
export function gram(y: Float64Array, n: number, k: number): Float64Array {
  const g = new Float64Array(k * k);
  for (let i = 0; i < n; i++) {
    const o = i * k;
    for (let a = 0; a < k; a++) {
      const ya = y[o + a];
      if (ya === 0) continue;
      for (let b = a; b < k; b++) g[a * k + b] += ya * y[o + b];
    }
  }
  for (let a = 0; a < k; a++) for (let b = 0; b < a; b++) g[a * k + b] = g[b * k + a];
  return g;
}

/**
 * Orthonormalises the columns of Y in place by Cholesky QR, done twice for accuracy (CholeskyQR2,
 * Fukaya et al. 2014). Rank-deficient directions (pivot below eps) are zeroed.
 */
export function orthonormalize(y: Float64Array, n: number, k: number): void {
  for (let pass = 0; pass < 2; pass++) {
    const g = gram(y, n, k);
    const r = new Float64Array(k * k);
    let scale = 0;
    for (let a = 0; a < k; a++) scale = Math.max(scale, g[a * k + a]);
    const eps = Math.max(scale, 1e-300) * 1e-12;
    for (let j = 0; j < k; j++) {
      let d = g[j * k + j];
      for (let p = 0; p < j; p++) d -= r[p * k + j] * r[p * k + j];
      if (d <= eps) {
        for (let c = j; c < k; c++) r[j * k + c] = 0;
        continue;
      }
      const rjj = Math.sqrt(d);
      r[j * k + j] = rjj;
      for (let c = j + 1; c < k; c++) {
        let s = g[j * k + c];
        for (let p = 0; p < j; p++) s -= r[p * k + j] * r[p * k + c];
        r[j * k + c] = s / rjj;
      }
    }
    // Q = Y R⁻¹, row by row (forward substitution on each row).
    const row = new Float64Array(k);
    for (let i = 0; i < n; i++) {
      const o = i * k;
      for (let j = 0; j < k; j++) {
        const rjj = r[j * k + j];
        if (rjj === 0) {
          row[j] = 0;
          continue;
        }
        let s = y[o + j];
        for (let p = 0; p < j; p++) s -= row[p] * r[p * k + j];
        row[j] = s / rjj;
      }
      y.set(row, o);
    }
  }
}

/**
 * Eigen-decomposition of a symmetric k × k matrix by cyclic Jacobi rotations. Returns eigenvalues in
 * decreasing order and the matching eigenvectors as columns of a row-major k × k matrix.
 */
export function symmetricEigen(matrix: Float64Array, k: number): { values: Float64Array; vectors: Float64Array } {
  const a = Float64Array.from(matrix);
  const v = new Float64Array(k * k);
  for (let i = 0; i < k; i++) v[i * k + i] = 1;
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < k; p++) for (let q = p + 1; q < k; q++) off += a[p * k + q] * a[p * k + q];
    if (off < 1e-22) break;
    for (let p = 0; p < k; p++) {
      for (let q = p + 1; q < k; q++) {
        const apq = a[p * k + q];
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (a[q * k + q] - a[p * k + p]) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let r = 0; r < k; r++) {
          const arp = a[r * k + p];
          const arq = a[r * k + q];
          a[r * k + p] = c * arp - s * arq;
          a[r * k + q] = s * arp + c * arq;
        }
        for (let r = 0; r < k; r++) {
          const apr = a[p * k + r];
          const aqr = a[q * k + r];
          a[p * k + r] = c * apr - s * aqr;
          a[q * k + r] = s * apr + c * aqr;
        }
        for (let r = 0; r < k; r++) {
          const vrp = v[r * k + p];
          const vrq = v[r * k + q];
          v[r * k + p] = c * vrp - s * vrq;
          v[r * k + q] = s * vrp + c * vrq;
        }
      }
    }
  }
  const order = Array.from({ length: k }, (_, i) => i).sort((x, y) => a[y * k + y] - a[x * k + x] || x - y);
  const values = new Float64Array(k);
  const vectors = new Float64Array(k * k);
  order.forEach((src, dst) => {
    values[dst] = a[src * k + src];
    for (let r = 0; r < k; r++) vectors[r * k + dst] = v[r * k + src];
  });
  return { values, vectors };
}
