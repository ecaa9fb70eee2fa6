/** Agreement between partitions: Jaccard of sets (Hennig's clusterboot) and the adjusted Rand index. */

export function jaccard<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let inter = 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const x of small) if (large.has(x)) inter++;
  return inter / (a.size + b.size - inter);
}

/**
 * Adjusted Rand index (Hubert & Arabie 1985) between two labelings of the same items; -1 labels
 * (unclustered) count as singletons.
 */
export function adjustedRandIndex(truth: ArrayLike<number | string>, predicted: ArrayLike<number>): number {
  const n = truth.length;
  const choose2 = (m: number) => (m * (m - 1)) / 2;
  const table = new Map<string, number>();
  const rows = new Map<string, number>();
  const cols = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const t = String(truth[i]);
    const p = predicted[i] < 0 ? `u${i}` : String(predicted[i]);
    table.set(`${t}\u0000${p}`, (table.get(`${t}\u0000${p}`) ?? 0) + 1);
    rows.set(t, (rows.get(t) ?? 0) + 1);
    cols.set(p, (cols.get(p) ?? 0) + 1);
  }
  let index = 0;
  for (const v of table.values()) index += choose2(v);
  let sumRows = 0;
  for (const v of rows.values()) sumRows += choose2(v);
  let sumCols = 0;
  for (const v of cols.values()) sumCols += choose2(v);
  const expected = (sumRows * sumCols) / choose2(n);
  const max = (sumRows + sumCols) / 2;
  return max === expected ? 1 : (index - expected) / (max - expected);
}

/**
 * Grouping accuracy (Zhu et al. 2019, logparser's `evaluator.get_accuracy`): the share of items whose
 * predicted group holds exactly the items of their true group; -1 labels are singletons.
 */
export function groupingAccuracy(truth: ArrayLike<number | string>, predicted: ArrayLike<number>): number {
  const n = truth.length;
  if (n === 0) return 1;
  const key = (i: number) => (predicted[i] < 0 ? `u${i}` : String(predicted[i]));
  const truthSize = new Map<string, number>();
  const groups = new Map<string, number[]>();
  for (let i = 0; i < n; i++) {
    const t = String(truth[i]);
    truthSize.set(t, (truthSize.get(t) ?? 0) + 1);
    const k = key(i);
    const g = groups.get(k);
    if (g) g.push(i);
    else groups.set(k, [i]);
  }
  let correct = 0;
  for (const members of groups.values()) {
    const t = String(truth[members[0]]);
    if (truthSize.get(t) === members.length && members.every((i) => String(truth[i]) === t)) correct += members.length;
  }
  return correct / n;
}
