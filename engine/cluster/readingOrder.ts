/**
 * The orders clustering reads its rows in (issue 31, sessions 15 and 16): by the SHA-256 digest of what
 * the reading step reads of a row, a tie (identical content, so identical rows) broken by an id that
 * changes no result. Three readers use it: the prose path (readingOrder: title and narrative, what
 * stage 4 embeds), the templated path (lineOrder: the template tokens the path decision and the miner
 * read) and stage 4's sampled SVD basis (the TF-IDF row itself).
 *
 * Why: k-means' sample and k-means++ seeding (stage 5), the bootstrap of stage 6, the evenly spaced
 * decision sample and the first-occurrence numbering and first-match folds of the template miner, and
 * the row sample of the SVD basis all pick rows by position, and the snapshot's order key also holds
 * occurred_at, severity and source. Read in the snapshot's order, the same reports timed differently
 * were clustered differently (k 16-21 over six orders, pattern ARI down to 0.38; docs/benchmarks.md,
 * session 15). Read in these orders, a permutation of the input changes nothing they compute.
 */
import { createHash } from 'node:crypto';
import type { TokenIdColumn } from '../text/tfidf.ts';

export interface ReadIssue {
  id: string;
  title: string;
  narrative: string;
}

/** What a reader reads of a row: hashed part after part. */
export type RowContent = string | NodeJS.ArrayBufferView | ReadonlyArray<string | NodeJS.ArrayBufferView>;

/** The SHA-256 digest (hex) of `content`, part after part. */
export function contentDigest(content: RowContent): string {
  const hash = createHash('sha256');
  if (Array.isArray(content)) for (const part of content) hash.update(part);
  else hash.update(content as string | NodeJS.ArrayBufferView);
  return hash.digest('hex');
}

/** `rows` by `digestOf(row)` (contentDigest of what the reader reads), then by `tieOf(row)` (which only orders rows of identical content). */
export function contentOrder(rows: readonly number[], digestOf: (row: number) => string, tieOf: (row: number) => string | number): number[] {
  const keyed = rows.map((row) => ({ row, key: digestOf(row), tie: tieOf(row) }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.tie < b.tie ? -1 : a.tie > b.tie ? 1 : 0));
  return keyed.map((k) => k.row);
}

/** Prose: `rows` (indices into `issues`) by digest of [title, narrative], then id. */
export function readingOrder(issues: readonly ReadIssue[], rows: readonly number[]): number[] {
  return contentOrder(
    rows,
    (row) => contentDigest(JSON.stringify([issues[row].title, issues[row].narrative])),
    (row) => issues[row].id,
  );
}

/**
 * Log lines: `rows` (indices into `ids` and `column`) by digest of the template tokens the miner reads,
 * as strings (the interned ids follow the snapshot's order), then id: contentOrder's order. Lines that
 * differ only where the tokens mask them (digits, paths) are one line to the miner, and tie. A log
 * repeats its lines (a fifth of 30,000 hand-made lines are distinct), so the rows are grouped by line
 * first (a 53-bit hash of the ids, the sequences compared on a hit), each distinct line is hashed once,
 * and the lines are sorted by digest and each line's rows by id.
 */
export function lineOrder(ids: readonly string[], column: TokenIdColumn, vocabulary: readonly string[], rows: readonly number[]): number[] {
  const seqOf = (row: number) => column.ids.subarray(column.offsets[row], column.offsets[row + 1]);
  const same = (a: Uint32Array, b: Uint32Array) => a.length === b.length && a.every((v, p) => v === b[p]);
  const lines: Array<{ digest: string; seq: Uint32Array; rows: number[] }> = [];
  const byHash = new Map<number, number[]>();
  for (const row of rows) {
    const seq = seqOf(row);
    let h1 = 0x811c9dc5;
    let h2 = seq.length;
    for (let p = 0; p < seq.length; p++) {
      h1 = Math.imul(h1 ^ seq[p], 0x01000193);
      h2 = Math.imul(h2 + seq[p] + 0x9e3779b9, 0x85ebca6b) ^ (h2 >>> 13);
    }
    const hash = (h1 >>> 0) * 0x200000 + ((h2 >>> 0) & 0x1fffff);
    const candidates = byHash.get(hash);
    let line = candidates?.find((l) => same(lines[l].seq, seq));
    if (line === undefined) {
      line = lines.length;
      lines.push({ digest: contentDigest(JSON.stringify(Array.from(seq, (id) => vocabulary[id]))), seq, rows: [] });
      if (candidates) candidates.push(line);
      else byHash.set(hash, [line]);
    }
    lines[line].rows.push(row);
  }
  lines.sort((a, b) => (a.digest < b.digest ? -1 : a.digest > b.digest ? 1 : 0));
  const out: number[] = [];
  for (const line of lines) {
    line.rows.sort((a, b) => (ids[a] < ids[b] ? -1 : ids[a] > ids[b] ? 1 : 0));
    for (const row of line.rows) out.push(row);
  }
  return out;
}

/** rank[i]: the place of row i in `order`; rows not in it rank after every row that is, by index. */
export function rankOf(order: ArrayLike<number>, n: number): Int32Array {
  const rank = new Int32Array(n);
  for (let i = 0; i < n; i++) rank[i] = order.length + i;
  for (let r = 0; r < order.length; r++) rank[order[r]] = r;
  return rank;
}
