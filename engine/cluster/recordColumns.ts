/**
 * The columns of records, judged by their vocabulary (issue 31). Lines the tokeniser read as records
 * (engine/text/templateTokens.ts: three or more columns split by tabs or a spaced `|`, the delimiter one
 * token between columns) hold in each column either the event's identity (an event type, a description,
 * a Windows Event ID, even a numeric one such as 4624 / 4625) or a value (a record number, a date, a
 * host, a counter). What tells them apart is the column over all lines of one shape (one number of
 * columns), not the line:
 * - an open vocabulary, many values seen once (Good-Turing: the share of lines whose value is seen once,
 *   n1/N, estimates the chance that the next line prints an unseen value; more than OPEN_SHARE) is a
 *   variable: a column of one token becomes `<*>` in every line (`891` / `bd<*>` / `dad`, a hex record
 *   id); the words of a longer one are left to the miner's passes;
 * - a closed vocabulary (n1/N at most CLOSED_SHARE over at least MIN_LINES lines, two values or more)
 *   whose values co-vary with the rest of the line's wording is the event's identity: knowing the
 *   column's value predicts another column of the line, its value or its first word (Goodman and
 *   Kruskal's lambda at least COVARY_LAMBDA: `4624` → `Logon`, `Correctable ECC` → `Memory …`). A
 *   closed column that predicts nothing (a fleet's host names, a thread or worker id, a retry count) is
 *   no identity: hosts recur, but every host prints every event.
 * In an identity column a number the tokeniser kept as printed stays (every other one is `<*>`), and the
 * folds take no other whole value of the column for a phrase of values (engine/cluster/templateFolds.ts,
 * foldAlignedGaps: `Correctable ECC` / `Uncorrectable ECC` are two events whatever frames they share);
 * a part of it may still vary (a sensor's name after its type). The folds join no gap across columns.
 */

/** The tokens the tokeniser puts between a record's columns. */
export const RECORD_DELIMITERS = new Set(['|', '\t']);
/** A record has at least this many delimiters (three columns), as the tokeniser reads one. */
export const RECORD_MIN_DELIMITERS = 2;
/** A number the tokeniser kept as printed: a record's column of one whole number. */
const NUMBER = /^\d+$/;
/** A column's vocabulary is open when more than this share of its lines print a value seen once. */
const OPEN_SHARE = 0.1;
/** A column's vocabulary is closed when at most this share of its lines print a value seen once. */
const CLOSED_SHARE = 0.02;
/** A column is judged on at least this many lines (a small sample tells nothing). */
const MIN_LINES = 20;
/** A closed column names the event when it predicts another column this well (lambda). */
const COVARY_LAMBDA = 0.5;
/** The predicted column varies: its most frequent value is missing from at least this share of the lines. */
const MIN_VARYING_SHARE = 0.02;
/** Counts of value pairs in an array up to this many cells, in a map beyond. */
const DENSE_CELLS = 1 << 16;

/** Identity columns of records: keys `delimiters * 4096 + column`. */
export type RecordColumns = Set<number>;

export const columnKey = (delimiters: number, column: number) => delimiters * 4096 + column;

/** The record delimiters' ids in `vocabulary`. */
export function delimiterIds(vocabulary: readonly string[]): Set<number> {
  const ids = new Set<number>();
  for (const t of RECORD_DELIMITERS) {
    const id = vocabulary.indexOf(t);
    if (id >= 0) ids.add(id);
  }
  return ids;
}

/** The start of each column of `row` (one past the last a sentinel: row length + 1), or undefined when it is no record. */
export function columnStarts(row: Int32Array, delimiters: Set<number>): Int32Array | undefined {
  let count = 0;
  for (const id of row) if (delimiters.has(id)) count++;
  if (count < RECORD_MIN_DELIMITERS) return undefined;
  const starts = new Int32Array(count + 2);
  let c = 0;
  for (let p = 0; p < row.length; p++) if (delimiters.has(row[p])) starts[++c] = p + 1;
  starts[count + 1] = row.length + 1;
  return starts;
}

/**
 * Judges the columns of the record rows among `rows` (token ids into `vocabulary`, each printed
 * `weight[r]` times) and rewrites them in place: open single-token columns and numbers that name nothing
 * become `wildcard`. Returns whether any row changed and the identity columns.
 */
export function maskRecordColumns(
  rows: Int32Array[],
  weight: ArrayLike<number>,
  vocabulary: readonly string[],
  wildcard: number,
): { changed: boolean; identities: RecordColumns; identityWords: Set<string> } {
  const identities: RecordColumns = new Set();
  const identityWords = new Set<string>();
  const delimiters = delimiterIds(vocabulary);
  if (!delimiters.size) return { changed: false, identities, identityWords };
  // Numbers kept as printed, told apart when first seen in a record row (the vocabulary may be large).
  const numberCache = new Map<number, boolean>();
  const isNumber = (id: number) => {
    let known = numberCache.get(id);
    if (known === undefined) numberCache.set(id, (known = NUMBER.test(vocabulary[id] ?? '')));
    return known;
  };
  // Record rows by shape (delimiter count), with their column starts.
  const spans = new Map<number, Int32Array>();
  const shapes = new Map<number, number[]>();
  rows.forEach((row, r) => {
    const starts = columnStarts(row, delimiters);
    if (!starts) return;
    spans.set(r, starts);
    const count = starts.length - 2;
    const list = shapes.get(count);
    if (list) list.push(r);
    else shapes.set(count, [r]);
  });
  const columnValue = (r: number, k: number) => {
    const s = spans.get(r)!;
    return rows[r].subarray(s[k], s[k + 1] - 1).join(',');
  };
  const firstOf = (r: number, k: number) => {
    const s = spans.get(r)!;
    return s[k + 1] - 1 > s[k] ? String(rows[r][s[k]]) : '';
  };
  const toMask: Array<[number, number]> = [];
  for (const [count, members] of shapes) {
    let lines = 0;
    for (const r of members) lines += weight[r];
    if (lines < MIN_LINES) continue;
    const all = Int32Array.from(members.keys());
    // Per column: each member's value and first word, as dense ids.
    const values: Coded[] = [];
    const firsts: Coded[] = [];
    for (let k = 0; k <= count; k++) {
      values.push(code(members.map((r) => columnValue(r, k))));
      firsts.push(code(members.map((r) => firstOf(r, k))));
    }
    const none: Coded = { ids: new Int32Array(members.length), size: 1 };
    // Per column: the share of its lines whose value is seen once (Good-Turing).
    const shares = values.map((v) => {
      const counts = new Float64Array(v.size);
      members.forEach((r, j) => {
        counts[v.ids[j]] += weight[r];
      });
      let once = 0;
      for (const n of counts) if (n === 1) once++;
      return once / lines;
    });
    // What another column says: its value when closed or in between (an open one's values are mostly new), its first word.
    const said = values.map((v, k) => (shares[k] > OPEN_SHARE ? [firsts[k]] : [v, firsts[k]]));
    for (let k = 0; k <= count; k++) {
      const share = shares[k];
      if (share > OPEN_SHARE) {
        toMask.push([count, k]);
        continue;
      }
      if (share > CLOSED_SHARE || values[k].size < 2) continue;
      // Co-variation: the best lambda of another column (its value or its first word) given this one.
      let best = 0;
      for (let other = 0; other <= count && best < COVARY_LAMBDA; other++) {
        if (other === k) continue;
        for (const predicted of said[other]) best = Math.max(best, improvement(none, values[k], predicted, all, members, weight, lines));
      }
      if (best < COVARY_LAMBDA) continue;
      identities.add(columnKey(count, k));
      // Its words that name the event: per length of the column, the word at an offset predicts another
      // column beyond the words before it.
      const byLength = new Map<number, number[]>();
      members.forEach((r, j) => {
        const s = spans.get(r)!;
        const length = s[k + 1] - 1 - s[k];
        const list = byLength.get(length);
        if (list) list.push(j);
        else byLength.set(length, [j]);
      });
      for (const [length, js] of byLength) {
        let subLines = 0;
        for (const j of js) subLines += weight[members[j]];
        if (subLines < MIN_LINES) continue;
        const at = Int32Array.from(js);
        let prefixes: Coded = { ids: new Int32Array(members.length), size: 1 };
        for (let offset = 0; offset < length; offset++) {
          // The words through this offset, as ids: (prefix id, token) interned.
          const ids = new Int32Array(members.length);
          const seen = new Map<number, number>();
          for (const j of js) {
            const r = members[j];
            const key = prefixes.ids[j] * (vocabulary.length + 1) + rows[r][spans.get(r)![k] + offset];
            let id = seen.get(key);
            if (id === undefined) seen.set(key, (id = seen.size));
            ids[j] = id;
          }
          const words: Coded = { ids, size: seen.size };
          let gain = 0;
          for (let other = 0; other <= count && gain < COVARY_LAMBDA; other++) {
            if (other === k) continue;
            for (const predicted of said[other]) gain = Math.max(gain, improvement(prefixes, words, predicted, at, members, weight, subLines));
          }
          if (gain >= COVARY_LAMBDA) identityWords.add(`${columnKey(count, k)}:${length}:${offset}`);
          prefixes = words;
        }
      }
    }
  }
  let changed = false;
  for (const [count, k] of toMask)
    for (const r of shapes.get(count)!) {
      const s = spans.get(r)!;
      if (s[k + 1] - 1 - s[k] === 1 && rows[r][s[k]] !== wildcard) {
        rows[r][s[k]] = wildcard;
        changed = true;
      }
    }
  // Every number kept as printed outside an identity column is a value.
  rows.forEach((row, r) => {
    const s = spans.get(r);
    if (!s) return;
    const count = s.length - 2;
    let k = 0;
    for (let p = 0; p < row.length; p++) {
      if (delimiters.has(row[p])) k++;
      else if (isNumber(row[p]) && !identities.has(columnKey(count, k))) {
        row[p] = wildcard;
        changed = true;
      }
    }
  });
  return { changed, identities, identityWords };
}

/** Values as dense ids 0 … size - 1. */
interface Coded {
  ids: Int32Array;
  size: number;
}

function code(values: string[]): Coded {
  const index = new Map<string, number>();
  const ids = Int32Array.from(values, (v) => {
    let id = index.get(v);
    if (id === undefined) index.set(v, (id = index.size));
    return id;
  });
  return { ids, size: index.size };
}

/** The weighted errors of guessing `predicted` by its mode within each group of `by`, over the members at `at`. */
function errors(by: Coded, predicted: Coded, at: Int32Array, members: number[], weight: ArrayLike<number>, lines: number): number {
  const best = new Float64Array(by.size);
  if (by.size * predicted.size <= DENSE_CELLS) {
    const joint = new Float64Array(by.size * predicted.size);
    for (const j of at) {
      const cell = by.ids[j] * predicted.size + predicted.ids[j];
      joint[cell] += weight[members[j]];
      if (joint[cell] > best[by.ids[j]]) best[by.ids[j]] = joint[cell];
    }
  } else {
    const joint = new Map<number, number>();
    for (const j of at) {
      const cell = by.ids[j] * predicted.size + predicted.ids[j];
      const n = (joint.get(cell) ?? 0) + weight[members[j]];
      joint.set(cell, n);
      if (n > best[by.ids[j]]) best[by.ids[j]] = n;
    }
  }
  let right = 0;
  for (const n of best) right += n;
  return lines - right;
}

/**
 * The share of the errors of guessing `predicted` within each `before` group (its mode in each) that knowing
 * `after` (a finer grouping) removes: 1 when `after` tells `predicted` wholly where `before` did not. With
 * `before` one group it is Goodman and Kruskal's lambda of `predicted` given `after`. 0 when `before` leaves
 * fewer than MIN_VARYING_SHARE of the lines to tell.
 */
function improvement(before: Coded, after: Coded, predicted: Coded, at: Int32Array, members: number[], weight: ArrayLike<number>, lines: number): number {
  const coarse = errors(before, predicted, at, members, weight, lines);
  if (coarse < MIN_VARYING_SHARE * lines) return 0;
  return (coarse - errors(after, predicted, at, members, weight, lines)) / coarse;
}

/**
 * The words of identity columns that name the event (`Correctable` in `Correctable ECC`, beside
 * `Uncorrectable ECC` and `Fan failure`), as printed (`original`, the lines before the passes) in `current`: the passes' wildcards there
 * are undone. A word of such a column that tells nothing beyond the words before it (a sensor's name after
 * its type) stays as the passes left it. Rows whose delimiters moved are left alone.
 */
export function restoreIdentityWords(current: Int32Array[], original: Int32Array[], identityWords: Set<string>, delimiters: Set<number>) {
  if (!identityWords.size) return;
  current.forEach((t, r) => {
    const o = original[r];
    if (t.length !== o.length) return;
    const s = columnStarts(o, delimiters);
    if (!s) return;
    const count = s.length - 2;
    let out: Int32Array | undefined;
    for (let k = 0; k <= count; k++) {
      const length = s[k + 1] - 1 - s[k];
      for (let offset = 0; offset < length; offset++) {
        const p = s[k] + offset;
        if (t[p] !== o[p] && identityWords.has(`${columnKey(count, k)}:${length}:${offset}`)) {
          out ??= Int32Array.from(t);
          out[p] = o[p];
        }
      }
    }
    if (out) current[r] = out;
  });
}

/**
 * Whether tokens `from` … `to` - 1 of `t` may be a phrase standing for another (a value of several
 * words): inside one column of a record (a gap holding a delimiter spans columns), and not the whole of
 * an identity column (another value of that column is another event; a part of it, a sensor's name after
 * its type, may vary). True for a line that is no record.
 */
export function phraseInColumn(t: Int32Array, from: number, to: number, identities: RecordColumns, delimiters: Set<number>): boolean {
  if (!delimiters.size) return true;
  const s = columnStarts(t, delimiters);
  if (!s) return true;
  for (let q = from; q < to; q++) if (delimiters.has(t[q])) return false;
  let k = 0;
  while (k + 1 < s.length - 1 && s[k + 1] <= from) k++;
  return !(identities.has(columnKey(s.length - 2, k)) && from === s[k] && to === s[k + 1] - 1);
}
