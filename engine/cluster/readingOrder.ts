/**
 * The order prose clustering reads its rows in (issue 31, session 15): by the SHA-256 digest of what
 * clustering reads of an issue (its title and narrative: stage 4 embeds nothing else), ids only
 * breaking ties between identical texts (whose rows are identical, so the tie changes no result).
 *
 * Why: k-means' sample and k-means++ seeding (stage 5) and the bootstrap of stage 6 pick rows by
 * position, and the snapshot's order key also holds occurred_at, severity and source. Read in the
 * snapshot's order, the same reports timed differently were clustered differently (k 16-21 over six
 * orders, pattern ARI down to 0.38; docs/benchmarks.md, session 15). Read in this order, a permutation
 * of the input changes nothing the clustering computes.
 */
import { createHash } from 'node:crypto';

export interface ReadIssue {
  id: string;
  title: string;
  narrative: string;
}

/** `rows` (indices into `issues`) in reading order: by digest of [title, narrative], then id. */
export function readingOrder(issues: readonly ReadIssue[], rows: readonly number[]): number[] {
  const keyed = rows.map((row) => ({
    row,
    key: createHash('sha256')
      .update(JSON.stringify([issues[row].title, issues[row].narrative]))
      .digest('hex'),
    id: issues[row].id,
  }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return keyed.map((k) => k.row);
}

/** rank[i]: the place of row i in `order`; rows not in it rank after every row that is, by index. */
export function rankOf(order: ArrayLike<number>, n: number): Int32Array {
  const rank = new Int32Array(n);
  for (let i = 0; i < n; i++) rank[i] = order.length + i;
  for (let r = 0; r < order.length; r++) rank[order[r]] = r;
  return rank;
}
