/**
 * The nearest neighbour of some rows of a sparse, row-normalised matrix (cosine), found through an
 * inverted index of its rarer columns: two reports of one failure share the rare words, names and
 * frames of that failure. Candidates are the rows sharing with the query one of its `rareKept`
 * heaviest columns of document frequency at most `dfCap`, ranked by the part of the dot product those
 * columns give; the best `shortlist` of them get their exact cosine. Ties go to the lower `rank` (default: the
 * row index), so the result is deterministic, and with a rank that follows the rows' content, the same
 * whatever order the rows come in. Cost per query: at most `rareKept` postings lists of at most `dfCap` rows, plus
 * `shortlist` exact products, whatever the number of rows.
 */
import type { CsrMatrix } from './sparse.ts';

export interface Neighbour {
  row: number;
  similarity: number;
}

export function nearestNeighbours(
  m: CsrMatrix,
  queries: readonly number[],
  eligible: (row: number) => boolean,
  options: { dfCap: number; rareKept: number; shortlist: number; rank?: ArrayLike<number> },
): Array<Neighbour | null> {
  const rank = options.rank;
  const earlier = rank ? (a: number, b: number) => rank[a] < rank[b] : (a: number, b: number) => a < b;
  const df = new Uint32Array(m.cols);
  for (let i = 0; i < m.rows; i++) if (eligible(i)) for (let p = m.rowPtr[i]; p < m.rowPtr[i + 1]; p++) df[m.colIdx[p]]++;
  // Postings of the rare columns over the eligible rows.
  const start = new Uint32Array(m.cols + 1);
  for (let c = 0; c < m.cols; c++) start[c + 1] = start[c] + (df[c] <= options.dfCap ? df[c] : 0);
  const rowOf = new Uint32Array(start[m.cols]);
  const postingValue = new Float32Array(start[m.cols]);
  const fill = start.slice(0, m.cols);
  for (let i = 0; i < m.rows; i++) {
    if (!eligible(i)) continue;
    for (let p = m.rowPtr[i]; p < m.rowPtr[i + 1]; p++) {
      const c = m.colIdx[p];
      if (df[c] > options.dfCap) continue;
      rowOf[fill[c]] = i;
      postingValue[fill[c]++] = m.values[p];
    }
  }
  const partial = new Float64Array(m.rows);
  const touched: number[] = [];
  const dense = new Float64Array(m.cols);
  const rare: number[] = [];
  return queries.map((q) => {
    // The query's heaviest rare columns (at most `rareKept`; ties to the lower column) find the candidates.
    rare.length = 0;
    for (let p = m.rowPtr[q]; p < m.rowPtr[q + 1]; p++) if (df[m.colIdx[p]] >= 2 && df[m.colIdx[p]] <= options.dfCap) rare.push(p);
    rare.sort((a, b) => m.values[b] - m.values[a] || m.colIdx[a] - m.colIdx[b]);
    if (rare.length > options.rareKept) rare.length = options.rareKept;
    for (const p of rare) {
      const c = m.colIdx[p];
      for (let k = start[c]; k < start[c + 1]; k++) {
        const r = rowOf[k];
        if (r === q) continue;
        if (partial[r] === 0) touched.push(r);
        partial[r] += m.values[p] * postingValue[k];
      }
    }
    // The best `shortlist` by partial score (ties: the earlier row), by insertion into a short sorted list.
    const shortlist: number[] = [];
    const before = (a: number, b: number) => partial[a] > partial[b] || (partial[a] === partial[b] && earlier(a, b));
    for (const r of touched) {
      if (shortlist.length === options.shortlist && !before(r, shortlist[shortlist.length - 1])) continue;
      let k = Math.min(shortlist.length, options.shortlist - 1);
      shortlist[k] = r;
      while (k > 0 && before(r, shortlist[k - 1])) {
        shortlist[k] = shortlist[k - 1];
        shortlist[--k] = r;
      }
    }
    for (const r of touched) partial[r] = 0;
    touched.length = 0;
    if (!shortlist.length) return null;
    for (let p = m.rowPtr[q]; p < m.rowPtr[q + 1]; p++) dense[m.colIdx[p]] = m.values[p];
    let best: Neighbour | null = null;
    for (const r of shortlist) {
      let s = 0;
      for (let p = m.rowPtr[r]; p < m.rowPtr[r + 1]; p++) s += dense[m.colIdx[p]] * m.values[p];
      if (!best || s > best.similarity + 1e-12 || (Math.abs(s - best.similarity) <= 1e-12 && earlier(r, best.row))) best = { row: r, similarity: s };
    }
    for (let p = m.rowPtr[q]; p < m.rowPtr[q + 1]; p++) dense[m.colIdx[p]] = 0;
    return best;
  });
}
