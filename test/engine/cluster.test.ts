/**
 * The clustering maths of engine stages 4-6 on small known inputs: the randomised SVD against an
 * exact eigen-decomposition, Jacobi eigenvalues of a textbook matrix, Cholesky QR, seeded k-means on
 * well-separated blobs, the choice of k, the silhouette on a hand-computed example, and the agreement
 * measures (Jaccard, adjusted Rand index) on published examples.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRng, deriveSeed, sampleIndices } from '../../engine/rng.ts';
import { gram, orthonormalize, symmetricEigen } from '../../engine/cluster/linalg.ts';
import { randomizedSvd } from '../../engine/cluster/svd.ts';
import { sampledSvd } from '../../engine/cluster/sampledSvd.ts';
import { selectRows, type CsrMatrix } from '../../engine/cluster/sparse.ts';
import { contentDigest, contentOrder, lineOrder } from '../../engine/cluster/readingOrder.ts';
import { templateColumn } from '../../engine/stages/02_normalize.ts';
import { kmeansPlusPlus, lloyd, normalizeRows, seedingDistances, type Dense } from '../../engine/cluster/kmeans.ts';
import { DENSE_K, geometricGrid, selectK } from '../../engine/cluster/selectK.ts';
import { silhouette } from '../../engine/cluster/silhouette.ts';
import { adjustedRandIndex, jaccard } from '../../engine/cluster/agreement.ts';

const close = (actual: number, expected: number, tolerance: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual} vs ${expected} (tolerance ${tolerance})`);

/** An id of the uuid layout for issue i. */
const testUuidLike = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

/** CSR of a dense row-major matrix (zeros skipped). */
function csr(rows: number, cols: number, dense: number[]): CsrMatrix {
  const rowPtr = new Uint32Array(rows + 1);
  const colIdx: number[] = [];
  const values: number[] = [];
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      const v = dense[i * cols + j];
      if (v !== 0) {
        colIdx.push(j);
        values.push(v);
      }
    }
    rowPtr[i + 1] = colIdx.length;
  }
  return { rows, cols, rowPtr, colIdx: Uint32Array.from(colIdx), values: Float32Array.from(values) };
}

/**
 * A sparse 60 × 16 matrix of four "topics": row i belongs to topic t = i % 4 and holds
 * (t + 1) · s_i · (1, 2, 1, 2) on that topic's four columns (s_i ∈ {1, 2, 3} by a seeded draw), so
 * each topic block has rank one; a quarter of the rows also get +1 in one random column (noise).
 * Values are small integers, so the float32 CSR holds exactly the dense matrix.
 */
function topicMatrix(): { a: CsrMatrix; dense: number[]; rows: number; cols: number } {
  const rows = 60;
  const cols = 16;
  const pattern = [1, 2, 1, 2];
  const rng = createRng(7);
  const dense = new Array<number>(rows * cols).fill(0);
  for (let i = 0; i < rows; i++) {
    const topic = i % 4;
    const scale = 1 + rng.int(3);
    for (let c = 0; c < 4; c++) dense[i * cols + topic * 4 + c] = (topic + 1) * scale * pattern[c];
    if (rng.next() < 0.25) dense[i * cols + rng.int(cols)] += 1;
  }
  return { a: csr(rows, cols, dense), dense, rows, cols };
}

/** Exact singular values: square roots of the eigenvalues of AᵀA (Jacobi on the 16 × 16 Gram matrix). */
function exactSingularValues(dense: number[], rows: number, cols: number): number[] {
  const { values } = symmetricEigen(gram(Float64Array.from(dense), rows, cols), cols);
  return Array.from(values, (v) => Math.sqrt(Math.max(0, v)));
}

test('randomizedSvd recovers the top singular values of a known sparse matrix', () => {
  const { a, dense, rows, cols } = topicMatrix();
  const exact = exactSingularValues(dense, rows, cols);
  // The spectrum has four large values (the topics, about 96, 80, 56, 30) and a wide gap to the noise (about 1.4).
  assert.ok(exact[3] > 10 * exact[4], `gap: ${exact.slice(0, 6)}`);
  // A range of 4 + 3 columns (less than the 16 columns: genuinely randomised) with 2 power iterations.
  const svd = randomizedSvd(a, 4, 1234, { oversample: 3, powerIterations: 2 });
  assert.is(svd.rank, 4);
  for (let j = 0; j < 4; j++) close(svd.singularValues[j] / exact[j], 1, 1e-6, `σ${j + 1}`);
  // The embedding is U·Σ: its columns are orthogonal with lengths σ_j.
  for (let p = 0; p < 4; p++) {
    for (let q = 0; q < 4; q++) {
      let dot = 0;
      for (let i = 0; i < rows; i++) dot += svd.embedding[i * 4 + p] * svd.embedding[i * 4 + q];
      close(dot, p === q ? svd.singularValues[p] ** 2 : 0, 1e-6 * exact[0] ** 2, `EᵀE[${p}][${q}]`);
    }
  }
  // With the full range (oversampling reaches all 16 columns) every value is exact.
  const full = randomizedSvd(a, 8, 99);
  for (let j = 0; j < 8; j++) close(full.singularValues[j], exact[j], 1e-9 * exact[0], `full σ${j + 1}`);
});

test('randomizedSvd is deterministic for a seed', () => {
  const { a } = topicMatrix();
  const first = randomizedSvd(a, 4, 2024, { oversample: 3 });
  const second = randomizedSvd(a, 4, 2024, { oversample: 3 });
  assert.equal(Buffer.from(first.embedding.buffer), Buffer.from(second.embedding.buffer));
  assert.equal(Array.from(first.singularValues), Array.from(second.singularValues));
  // Another seed draws another test matrix: the same values (to the accuracy above), other bits.
  const other = randomizedSvd(a, 4, 2025, { oversample: 3 });
  for (let j = 0; j < 4; j++) close(other.singularValues[j] / first.singularValues[j], 1, 1e-6, `σ${j + 1}`);
  assert.not.equal(Buffer.from(other.embedding.buffer), Buffer.from(first.embedding.buffer));
});

test('sampledSvd at or under its sample size decomposes every row: randomizedSvd to rounding', () => {
  const { a, rows } = topicMatrix();
  const full = randomizedSvd(a, 4, 2024, { oversample: 3, powerIterations: 6 });
  for (const sampleRows of [rows, rows + 1]) {
    const same = sampledSvd(a, 4, 2024, sampleRows, { oversample: 3, powerIterations: 6 });
    for (let j = 0; j < 4; j++) close(same.singularValues[j], full.singularValues[j], 1e-12, `σ${j + 1}`);
    for (let c = 0; c < full.embedding.length; c++) close(same.embedding[c], full.embedding[c], 1e-12, `cell ${c}`);
  }
});

test('sampledSvd: the basis of 24 of the 60 rows embeds every row as A·V, close to the full decomposition', () => {
  const { a, rows, cols } = topicMatrix();
  const full = randomizedSvd(a, 4, 1234, { oversample: 3, powerIterations: 6 });
  const sampled = sampledSvd(a, 4, 1234, 24, { oversample: 3, powerIterations: 6 });
  assert.is(sampled.rank, 4);
  // V has orthonormal columns.
  const v = sampled.basis!;
  for (let p = 0; p < 4; p++) {
    for (let q = 0; q < 4; q++) {
      let dot = 0;
      for (let c = 0; c < cols; c++) dot += v[c * 4 + p] * v[c * 4 + q];
      close(dot, p === q ? 1 : 0, 1e-9, `VᵀV[${p}][${q}]`);
    }
  }
  // Each row, in the sample or not, is A_i·V; the σ are the column lengths of A·V.
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < 4; j++) {
      let s = 0;
      for (let p = a.rowPtr[i]; p < a.rowPtr[i + 1]; p++) s += a.values[p] * v[a.colIdx[p] * 4 + j];
      close(sampled.embedding[i * 4 + j], s, 1e-12, `row ${i} coordinate ${j}`);
    }
  }
  // The topics' directions are the same with or without the other 36 rows: the two bases span nearly
  // the same subspace (‖V_sᵀ V‖²_F = 4 for equal subspaces; the noise moves it a little), the σ agree
  // and come in decreasing order.
  const fullBasis = randomizedSvd(a, 4, 1234, { oversample: 3, powerIterations: 6, basis: true }).basis!;
  let overlap = 0;
  for (let p = 0; p < 4; p++) {
    for (let q = 0; q < 4; q++) {
      let dot = 0;
      for (let c = 0; c < cols; c++) dot += v[c * 4 + p] * fullBasis[c * 4 + q];
      overlap += dot * dot;
    }
  }
  close(overlap, 4, 1e-2, '‖V_sᵀ V‖²_F');
  for (let j = 0; j < 4; j++) close(sampled.singularValues[j] / full.singularValues[j], 1, 1e-2, `σ${j + 1}`);
  for (let j = 1; j < 4; j++) assert.ok(sampled.singularValues[j] <= sampled.singularValues[j - 1], 'decreasing σ');
  // Deterministic for a seed, and another seed draws another sample.
  const again = sampledSvd(a, 4, 1234, 24, { oversample: 3, powerIterations: 6 });
  assert.equal(Buffer.from(again.embedding.buffer), Buffer.from(sampled.embedding.buffer));
  const other = sampledSvd(a, 4, 1235, 24, { oversample: 3, powerIterations: 6 });
  assert.not.equal(Buffer.from(other.embedding.buffer), Buffer.from(sampled.embedding.buffer));
});

test('sampledSvd of the same rows in another order: the same σ, and each row the same coordinates, bit for bit, sampled or not', () => {
  const { a, rows } = topicMatrix();
  // The rows reversed: the sample is drawn by content, so it holds the same rows; with every row
  // decomposed, the sums over rows run in content order.
  const reversed = selectRows(
    a,
    Array.from({ length: rows }, (_, i) => rows - 1 - i),
  );
  for (const sampleRows of [24, rows]) {
    const forward = sampledSvd(a, 4, 1234, sampleRows, { oversample: 3, powerIterations: 6 });
    const backward = sampledSvd(reversed, 4, 1234, sampleRows, { oversample: 3, powerIterations: 6 });
    if (sampleRows < rows) assert.equal(Array.from(backward.basis!), Array.from(forward.basis!));
    assert.equal(Array.from(backward.singularValues), Array.from(forward.singularValues), `σ, ${sampleRows} rows sampled`);
    for (let i = 0; i < rows; i++)
      assert.equal(
        Array.from(backward.embedding.subarray((rows - 1 - i) * 4, (rows - i) * 4)),
        Array.from(forward.embedding.subarray(i * 4, (i + 1) * 4)),
        `row ${i}, ${sampleRows} rows sampled`,
      );
  }
});

test('lineOrder: log lines by the digest of their template tokens, then id, whatever their positions (each distinct line hashed once)', () => {
  const texts = ['disk sda1 full', 'user alice logged in', 'disk sdb2 full', 'user bob logged in', 'disk sda1 full', 'user alice logged in', 'fan 2 stopped'];
  const { column, vocabulary } = templateColumn(texts);
  const ids = texts.map((_, i) => testUuidLike(i));
  const rows = texts.map((_, i) => i);
  const expected = contentOrder(
    rows,
    (r) => contentDigest(JSON.stringify(Array.from(column.ids.subarray(column.offsets[r], column.offsets[r + 1]), (id) => vocabulary[id]))),
    (r) => ids[r],
  );
  assert.equal(lineOrder(ids, column, vocabulary, rows), expected);
  // The same lines at other positions (other interned ids): the same lines in the same order.
  const moved = [6, 3, 0, 5, 1, 4, 2];
  const other = templateColumn(moved.map((i) => texts[i]));
  const order = lineOrder(
    moved.map((i) => ids[i]),
    other.column,
    other.vocabulary,
    moved.map((_, k) => k),
  );
  assert.equal(
    order.map((k) => moved[k]),
    expected,
  );
});

test('symmetricEigen on the tridiagonal matrix [[2,1,0],[1,2,1],[0,1,2]]', () => {
  // Eigenvalues 2 + √2, 2, 2 − √2 with eigenvectors (1, √2, 1)/2, (1, 0, −1)/√2, (1, −√2, 1)/2.
  const { values, vectors } = symmetricEigen(Float64Array.from([2, 1, 0, 1, 2, 1, 0, 1, 2]), 3);
  const expected = [2 + Math.SQRT2, 2, 2 - Math.SQRT2];
  expected.forEach((v, i) => close(values[i], v, 1e-12, `λ${i + 1}`));
  const vecs = [
    [0.5, Math.SQRT1_2, 0.5],
    [Math.SQRT1_2, 0, -Math.SQRT1_2],
    [0.5, -Math.SQRT1_2, 0.5],
  ];
  vecs.forEach((v, col) => {
    const got = [0, 1, 2].map((r) => vectors[r * 3 + col]);
    const sign = Math.sign(got.reduce((s, x, r) => s + x * v[r], 0)); // eigenvectors are defined up to sign
    got.forEach((x, r) => close(sign * x, v[r], 1e-12, `v${col + 1}[${r}]`));
  });
  // A diagonal matrix is already decomposed: values sorted decreasing, vectors a permutation of I.
  const diag = symmetricEigen(Float64Array.from([1, 0, 0, 0, 3, 0, 0, 0, 2]), 3);
  assert.equal(Array.from(diag.values), [3, 2, 1]);
  assert.equal(Array.from(diag.vectors), [0, 0, 1, 1, 0, 0, 0, 1, 0]);
});

test('orthonormalize gives QᵀQ = I, and zeroes a dependent column', () => {
  const n = 12;
  const k = 4;
  const rng = createRng(3);
  const y = Float64Array.from({ length: n * k }, () => rng.normal());
  orthonormalize(y, n, k);
  const g = gram(y, n, k);
  for (let a = 0; a < k; a++) for (let b = 0; b < k; b++) close(g[a * k + b], a === b ? 1 : 0, 1e-12, `QᵀQ[${a}][${b}]`);

  // Column 2 = column 0 + column 1: the third direction is not there, so it comes back as zeros.
  const z = Float64Array.from({ length: n * 3 }, (_, i) => (i % 3 === 2 ? 0 : rng.normal()));
  for (let i = 0; i < n; i++) z[i * 3 + 2] = z[i * 3] + z[i * 3 + 1];
  orthonormalize(z, n, 3);
  const h = gram(z, n, 3);
  const expected = [1, 0, 0, 0, 1, 0, 0, 0, 0];
  expected.forEach((v, i) => close(h[i], v, 1e-12, `QᵀQ flat[${i}]`));
});

/**
 * `k` blobs on the unit sphere in `d` dimensions: blob c is centred on the basis vector e_c, points
 * are the centre plus N(0, spread²) noise, normalised. Returns the points and their true blobs.
 */
function blobs(k: number, perBlob: number, d: number, spread: number, seed: number): { x: Dense; truth: number[] } {
  const rng = createRng(seed);
  const data = new Float64Array(k * perBlob * d);
  const truth: number[] = [];
  for (let c = 0; c < k; c++) {
    for (let p = 0; p < perBlob; p++) {
      const row = truth.length;
      for (let j = 0; j < d; j++) data[row * d + j] = (j === c ? 1 : 0) + spread * rng.normal();
      truth.push(c);
    }
  }
  return { x: { n: truth.length, d, data: normalizeRows(data, truth.length, d) }, truth };
}

/** Labels equal up to a renaming of the clusters (a bijection). */
function samePartition(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  const ab = new Map<number, number>();
  const ba = new Map<number, number>();
  for (let i = 0; i < a.length; i++) {
    if ((ab.get(a[i]) ?? b[i]) !== b[i] || (ba.get(b[i]) ?? a[i]) !== a[i]) return false;
    ab.set(a[i], b[i]);
    ba.set(b[i], a[i]);
  }
  return true;
}

test('kmeansPlusPlus + lloyd separate well-separated blobs exactly', () => {
  const { x, truth } = blobs(4, 30, 6, 0.08, 11);
  const centroids = kmeansPlusPlus(x, 4, createRng(5));
  const result = lloyd(x, centroids, 4, 100);
  assert.ok(samePartition(result.labels, truth), `labels ${Array.from(result.labels)}`);
  assert.is(result.k, 4);
  // Converged: another assignment pass would change nothing, and every point sits close to its centroid.
  assert.ok(result.iterations < 100);
  assert.ok(Array.from(result.similarity).every((s) => s > 0.9));
  // Centroids are unit vectors.
  for (let c = 0; c < 4; c++) close(Math.hypot(...result.centroids.subarray(c * 6, c * 6 + 6)), 1, 1e-12, `|centroid ${c}|`);
  // Seeded: the same seed gives the same centres.
  assert.equal(Array.from(kmeansPlusPlus(x, 4, createRng(5))), Array.from(centroids));
});

test('the speed paths compute the same numbers: seeding from the distance table, and Lloyd with row x centroid bounds', () => {
  // Overlapping blobs (large spread), so the bounds must prune and the assignment must still be exact.
  const { x } = blobs(6, 40, 5, 0.6, 23);
  const k = 6;
  // Seeding copied from seedingDistances gives the same centres as computed distances.
  assert.equal(Array.from(kmeansPlusPlus(x, k, createRng(3), seedingDistances(x))), Array.from(kmeansPlusPlus(x, k, createRng(3))));
  // Converged Lloyd (bounds on): every label is the first most similar centroid, and its similarity exact.
  const result = lloyd(x, kmeansPlusPlus(x, k, createRng(3)), k, 1000);
  assert.ok(result.iterations < 1000);
  for (let i = 0; i < x.n; i++) {
    let best = -1;
    let bestSim = -Infinity;
    for (let c = 0; c < k; c++) {
      let s = 0;
      for (let j = 0; j < x.d; j++) s += x.data[i * x.d + j] * result.centroids[c * x.d + j];
      if (s > bestSim) {
        bestSim = s;
        best = c;
      }
    }
    assert.is(result.labels[i], best, `row ${i}`);
    close(result.similarity[i], bestSim, 1e-12, `similarity of row ${i}`);
  }
});

test('k-means++ seeding picks one point of every blob (distinct centres)', () => {
  const { x, truth } = blobs(5, 20, 8, 0.05, 2);
  const centroids = kmeansPlusPlus(x, 5, createRng(9));
  const blobOf = (c: number) => {
    const centre = centroids.subarray(c * 8, c * 8 + 8);
    for (let i = 0; i < x.n; i++) if (x.data.subarray(i * 8, i * 8 + 8).every((v, j) => v === centre[j])) return truth[i];
    return -1;
  };
  assert.equal([0, 1, 2, 3, 4].map(blobOf).sort(), [0, 1, 2, 3, 4]);
});

test('selectK scores every k up to DENSE_K, so a peak between two geometric steps (6 between 5 and 7) is not stepped over', () => {
  // On generated prose the best geometric k (9) had neighbours 7 and 12, and 6 (the best of all) was
  // never scored; here six blobs, where every k up to DENSE_K must be scored whatever wins.
  const { x, truth } = blobs(6, 25, 10, 0.1, 106);
  const selection = selectK(x, { kMin: 2, kMax: 40, seed: 77, restarts: 3, maxIterations: 100, silhouetteSample: 1000 });
  const ks = selection.scores.map((s) => s.k);
  for (let k = 2; k <= DENSE_K; k++) assert.ok(ks.includes(k), `k ${k} scored (${ks.join(', ')})`);
  assert.is(selection.k, 6);
  assert.ok(samePartition(selection.assignment.labels, truth));
});

test('geometricGrid: the exact grid of k values', () => {
  // k, then max(k + 1, round(1.35 k)), up to k_max, which is always included.
  assert.equal(geometricGrid(2, 150), [2, 3, 4, 5, 7, 9, 12, 16, 22, 30, 41, 55, 74, 100, 135, 150]);
  assert.equal(geometricGrid(2, 12), [2, 3, 4, 5, 7, 9, 12]);
  assert.equal(geometricGrid(2, 10), [2, 3, 4, 5, 7, 9, 10]);
  assert.equal(geometricGrid(10, 20, 1.08), [10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
  assert.equal(geometricGrid(3, 3), [3]);
  assert.equal(geometricGrid(5, 4), []);
});

for (const k of [3, 5, 8]) {
  test(`selectK finds k = ${k} on ${k} blobs`, () => {
    const { x, truth } = blobs(k, 25, 10, 0.1, 100 + k);
    const selection = selectK(x, { kMin: 2, kMax: 14, seed: 77, restarts: 3, maxIterations: 100, silhouetteSample: 1000 });
    assert.is(selection.k, k, JSON.stringify(selection.scores));
    assert.ok(samePartition(selection.assignment.labels, truth));
    // The reported scores cover the coarse grid and the refined neighbourhood, sorted by k, the best at k.
    const ks = selection.scores.map((s) => s.k);
    assert.equal(
      ks,
      [...ks].sort((a, b) => a - b),
    );
    for (const g of geometricGrid(2, 14)) assert.ok(ks.includes(g), `grid k ${g} scored`);
    const best = selection.scores.reduce((m, s) => (s.silhouette > m.silhouette ? s : m));
    assert.is(best.k, k);
  });
}

test('silhouette on a hand-computed example (cosine distance)', () => {
  // Four unit vectors: p0 = (1, 0), p1 = (0.8, 0.6) in cluster 0; p2 = (0, 1), p3 = (−0.6, 0.8) in cluster 1.
  // Distances 1 − x·y: d01 = 0.2, d02 = 1, d03 = 1.6, d12 = 0.4, d13 = 1, d23 = 0.2.
  //   s(p0): a = 0.2, b = (1 + 1.6)/2 = 1.3 -> 1.1/1.3 = 11/13
  //   s(p1): a = 0.2, b = (0.4 + 1)/2 = 0.7 -> 0.5/0.7 = 5/7
  //   s(p2): a = 0.2, b = (1 + 0.4)/2 = 0.7 -> 5/7
  //   s(p3): a = 0.2, b = (1.6 + 1)/2 = 1.3 -> 11/13
  // mean = (11/13 + 5/7) / 2 = 71/91 ≈ 0.780220
  const x: Dense = { n: 4, d: 2, data: Float64Array.from([1, 0, 0.8, 0.6, 0, 1, -0.6, 0.8]) };
  close(silhouette(x, [0, 0, 1, 1], 2), 71 / 91, 1e-12, 'mean silhouette');
  // A singleton scores 0 and still counts in the mean: p0, p1 in cluster 0 and p2 alone.
  //   s(p0) = (1 − 0.2)/1 = 0.8, s(p1) = (0.4 − 0.2)/0.4 = 0.5, s(p2) = 0 -> 1.3/3
  const three: Dense = { n: 3, d: 2, data: Float64Array.from([1, 0, 0.8, 0.6, 0, 1]) };
  close(silhouette(three, [0, 0, 1], 2), 1.3 / 3, 1e-12, 'with a singleton');
  // One cluster only: no other cluster to compare with, every s(i) counts 0.
  assert.is(silhouette(x, [0, 0, 0, 0], 1), 0);
});

test('jaccard of sets', () => {
  assert.is(jaccard(new Set([1, 2, 3]), new Set([2, 3, 4])), 0.5); // |{2,3}| / |{1,2,3,4}|
  assert.is(jaccard(new Set([1, 2]), new Set([1, 2])), 1);
  assert.is(jaccard(new Set([1]), new Set([2])), 0);
  assert.is(jaccard(new Set([1, 2, 3, 4]), new Set([4])), 0.25);
  assert.is(jaccard(new Set(), new Set()), 1);
});

test('adjustedRandIndex on the documented examples of scikit-learn', () => {
  // Examples of sklearn.metrics.adjusted_rand_score (scikit-learn 1.5 API docs and user guide §2.3.11.1):
  //   identical partitions, and a renaming of the labels, score 1.0;
  assert.is(adjustedRandIndex([0, 0, 1, 1], [0, 0, 1, 1]), 1);
  assert.is(adjustedRandIndex([0, 0, 1, 1], [1, 1, 0, 0]), 1);
  //   [0, 0, 1, 2] against [0, 0, 1, 1] scores 0.57…: index 1, expected 1·2/6 = 1/3, max 3/2 -> (2/3)/(7/6) = 4/7;
  close(adjustedRandIndex([0, 0, 1, 2], [0, 0, 1, 1]), 4 / 7, 1e-15, '[0,0,1,2] vs [0,0,1,1]');
  close(adjustedRandIndex([0, 0, 1, 1], [0, 0, 1, 2]), 4 / 7, 1e-15, 'symmetric');
  //   everything in one cluster against all singletons scores 0.0;
  assert.is(adjustedRandIndex([0, 0, 0, 0], [0, 1, 2, 3]), 0);
  //   the user guide's labels_true [0,0,0,1,1,1], labels_pred [0,0,1,1,2,2] score 0.24…:
  //   index 2, rows 6, columns 3, expected 6·3/15 = 1.2, max 4.5 -> 0.8/3.3 = 8/33.
  close(adjustedRandIndex([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2]), 8 / 33, 1e-15, 'user guide example');
  // String labels work for the truth; unclustered (-1) predictions are singletons, not one cluster.
  close(adjustedRandIndex(['a', 'a', 'b', 'b'], [0, 0, -1, -1]), 4 / 7, 1e-15, 'unclustered are singletons');
});

test('rng: seeded streams, derived seeds and Floyd sampling', () => {
  const a = createRng(1);
  const b = createRng(1);
  const draws = Array.from({ length: 5 }, () => a.next());
  assert.equal(
    Array.from({ length: 5 }, () => b.next()),
    draws,
  );
  assert.ok(draws.every((v) => v >= 0 && v < 1));
  assert.is.not(deriveSeed(1, 'svd'), deriveSeed(1, 'cluster'));
  assert.is(deriveSeed(1, 'svd'), deriveSeed(1, 'svd'));
  const sample = sampleIndices(createRng(4), 100, 10);
  assert.is(new Set(sample).size, 10);
  assert.equal(
    sample,
    [...sample].sort((x, y) => x - y),
  );
  assert.ok(sample.every((i) => i >= 0 && i < 100));
  assert.equal(sampleIndices(createRng(4), 5, 10), [0, 1, 2, 3, 4]);
});

test.run();
