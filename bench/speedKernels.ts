/**
 * Session 20 (speed): the changed kernels against the code they replace, in one process, on the same
 * data, alternated (new, old, new, old): CPU seconds of each and whether the results are identical.
 *   node --import tsx bench/speedKernels.ts [rounds]
 * k-means++ seeding: selectK's grid (k 2-150, 3 restarts) on a 3,000 × 20 sample of clustered unit rows,
 * with the seeding distances (new) and without (old: every candidate's distances computed).
 * Lloyd: the same grid's runs from those seeds, with the row × centroid bounds (new) and the code
 * before them (old, copied below). Keyword scanning: stage 3's three scans of every Hadoop report's
 * normalised title and narrative with the trie's ASCII edges in a table (new) and in maps (old).
 */
import { createRng, deriveSeed } from '../engine/rng.ts';
import { kmeansPlusPlus, lloyd, normalizeRows, seedingDistances, type Assignment, type Dense } from '../engine/cluster/kmeans.ts';
import { geometricGrid } from '../engine/cluster/selectK.ts';
import { configDefinitions } from '../engine/config/index.ts';
import { keywordScanner } from '../engine/text/keywords.ts';
import { normalizeText } from '../engine/text/normalize.ts';
import { loadHadoopBugs } from './data/hadoop.ts';

// ---- The code before session 20 (engine/cluster/kmeans.ts at cf05a5b), for the comparisons below. ----
/** Normalised mean direction of each cluster; an emptied cluster keeps its previous centroid. */
function oldRecomputeCentroids(x: Dense, labels: Int32Array, k: number, previous: Float64Array): Float64Array {
  const d = x.d;
  const sums = new Float64Array(k * d);
  const counts = new Int32Array(k);
  for (let i = 0; i < x.n; i++) {
    const c = labels[i];
    if (c < 0) continue;
    counts[c]++;
    const o = i * d;
    const so = c * d;
    for (let j = 0; j < d; j++) sums[so + j] += x.data[o + j];
  }
  for (let c = 0; c < k; c++) if (counts[c] === 0) sums.set(previous.subarray(c * d, (c + 1) * d), c * d);
  return normalizeRows(sums, k, d);
}

// Far above the rounding error of a dot product of unit vectors (about d · 2⁻⁵³), far below any real gap.

/**
 * Assigns each row to the most similar centroid, with Hamerly's (2010) bound for cosine similarity:
 * `upper[i]` bounds row i's similarity to every centroid but its own. A row whose similarity to its
 * own centroid still exceeds that bound keeps its label without the k dot products; any other row is
 * compared with every centroid (the first best wins) and gets the runner-up similarity as its new
 * bound. The labels and similarities are therefore those of a full assignment.
 */
function oldAssignBounded(x: Dense, centroids: Float64Array, k: number, labels: Int32Array, similarity: Float64Array, upper: Float64Array): number {
  let changed = 0;
  const { n, d, data } = x;
  for (let i = 0; i < n; i++) {
    const o = i * d;
    const own = labels[i];
    if (own >= 0) {
      const co = own * d;
      let s = 0;
      for (let j = 0; j < d; j++) s += data[o + j] * centroids[co + j];
      if (s > upper[i] + OLD_BOUND_MARGIN) {
        similarity[i] = s;
        continue;
      }
    }
    let best = -1;
    let bestSim = -Infinity;
    let second = -Infinity;
    for (let c = 0; c < k; c++) {
      const co = c * d;
      let s = 0;
      for (let j = 0; j < d; j++) s += data[o + j] * centroids[co + j];
      if (s > bestSim) {
        second = bestSim;
        bestSim = s;
        best = c;
      } else if (s > second) second = s;
    }
    if (own !== best) changed++;
    labels[i] = best;
    similarity[i] = bestSim;
    upper[i] = second;
  }
  return changed;
}

/** The largest distance any centroid moved: no row's similarity to a centroid changed by more (|x| ≤ 1). */
function oldLargestMove(before: Float64Array, after: Float64Array, k: number, d: number): number {
  let largest = 0;
  for (let c = 0; c < k; c++) {
    let s = 0;
    for (let j = c * d; j < (c + 1) * d; j++) s += (after[j] - before[j]) ** 2;
    largest = Math.max(largest, Math.sqrt(s));
  }
  return largest;
}

/** Lloyd iterations until fewer than `tolerance` of the points change cluster (then one last assignment). */
function oldLloyd(x: Dense, initial: Float64Array, k: number, maxIterations: number, tolerance = 0): Assignment {
  const labels = new Int32Array(x.n).fill(-1);
  const similarity = new Float64Array(x.n);
  const upper = new Float64Array(x.n).fill(Infinity);
  let centroids = normalizeRows(initial, k, x.d);
  let iterations = 0;
  for (; iterations < maxIterations; iterations++) {
    const changed = oldAssignBounded(x, centroids, k, labels, similarity, upper);
    if (iterations > 0 && changed <= tolerance * x.n) break;
    const next = oldRecomputeCentroids(x, labels, k, centroids);
    const moved = oldLargestMove(centroids, next, k, x.d);
    for (let i = 0; i < x.n; i++) upper[i] += moved;
    centroids = next;
  }
  return { labels, similarity, centroids, k, iterations };
}

// engine/text/keywords.ts at cf05a5b
function oldNormalizeKeywords(keywords: string[]) {
  return [...new Set(keywords.map((k) => k.toLowerCase().replace(/\s+/g, ' ').trim()).filter(Boolean))];
}

function oldKeywordScanner(groups: string[][]): { scan(text: string): Array<Set<string>> } {
  const keywords: string[] = [];
  const keywordIndex = new Map<string, number>();
  const groupsOf: number[][] = [];
  groups.forEach((list, g) => {
    for (const k of oldNormalizeKeywords(list)) {
      let id = keywordIndex.get(k);
      if (id === undefined) {
        id = keywords.length;
        keywords.push(k);
        keywordIndex.set(k, id);
        groupsOf.push([]);
      }
      groupsOf[id].push(g);
    }
  });
  // Trie over UTF-16 code units: node 0 is the root; terminal[node] is the keyword ending there or -1.
  const children: Array<Map<number, number>> = [new Map()];
  const terminal: number[] = [-1];
  keywords.forEach((k, id) => {
    let node = 0;
    for (let i = 0; i < k.length; i++) {
      const c = k.charCodeAt(i);
      let next = children[node].get(c);
      if (next === undefined) {
        next = children.length;
        children.push(new Map());
        terminal.push(-1);
        children[node].set(c, next);
      }
      node = next;
    }
    terminal[node] = id;
  });
  const groupCount = groups.length;
  const hits: number[] = [];
  return {
    scan(text) {
      const found = Array.from({ length: groupCount }, () => new Set<string>());
      if (!keywords.length) return found;
      const resumeAt = new Array<number>(groupCount).fill(0);
      const takenAt = new Array<number>(groupCount).fill(-1);
      const root = children[0];
      for (let p = 0; p < text.length; p++) {
        if (p > 0) {
          const before = text.charCodeAt(p - 1);
          if ((before >= 97 && before <= 122) || (before >= 48 && before <= 57)) continue;
        }
        let node = root.get(text.charCodeAt(p));
        if (node === undefined) continue;
        hits.length = 0;
        for (let q = p + 1; ; q++) {
          if (terminal[node] >= 0) hits.push(terminal[node]);
          if (q >= text.length) break;
          const next: number | undefined = children[node].get(text.charCodeAt(q));
          if (next === undefined) break;
          node = next;
        }
        // Longest first: a group takes its longest keyword starting here, if it is not inside its previous match.
        for (let h = hits.length - 1; h >= 0; h--) {
          const id = hits[h];
          for (const g of groupsOf[id]) {
            if (takenAt[g] === p || resumeAt[g] > p) continue;
            takenAt[g] = p;
            resumeAt[g] = p + keywords[id].length;
            found[g].add(keywords[id]);
          }
        }
      }
      return found;
    },
  };
}

const OLD_BOUND_MARGIN = 1e-10;
const rounds = Number(process.argv[2] ?? 2);
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

function clusteredRows(n: number, d: number, centres: number, seed: number): Dense {
  const rng = createRng(seed);
  const c = Array.from({ length: centres * d }, () => rng.normal());
  const data = new Float64Array(n * d);
  for (let i = 0; i < n; i++) {
    const at = rng.int(centres);
    for (let j = 0; j < d; j++) data[i * d + j] = c[at * d + j] + 0.4 * rng.normal();
  }
  return { n, d, data: normalizeRows(data, n, d) };
}

const sample = clusteredRows(3000, 20, 40, 7);
const ks = [...new Set([...Array.from({ length: 11 }, (_, i) => i + 2), ...geometricGrid(2, 150)])];
function seedAll(pairs: Float64Array | undefined): Float64Array[] {
  const out: Float64Array[] = [];
  for (const k of ks) for (let r = 0; r < 3; r++) out.push(kmeansPlusPlus(sample, k, createRng(deriveSeed(1, `k${k}r${r}`)), pairs));
  return out;
}
const same = (a: Float64Array[], b: Float64Array[]) => a.length === b.length && a.every((x, i) => Buffer.from(x.buffer).equals(Buffer.from(b[i].buffer)));

let reference: Float64Array[] | null = null;
for (let round = 0; round < rounds; round++) {
  let t = cpu();
  const fresh = seedAll(seedingDistances(sample));
  const newSeconds = cpu() - t;
  t = cpu();
  const old = seedAll(undefined);
  const oldSeconds = cpu() - t;
  reference ??= old;
  console.log(
    `k-means++ seeding (${ks.length} k x 3 restarts, n 3000): new ${newSeconds.toFixed(2)} s, old ${oldSeconds.toFixed(2)} s, ratio ${(newSeconds / oldSeconds).toFixed(3)}, identical ${same(fresh, old) && same(old, reference)}`,
  );
}

function lloydAll(run: typeof lloyd, seeds: Float64Array[]): Assignment[] {
  const out: Assignment[] = [];
  let at = 0;
  for (const k of ks) for (let r = 0; r < 3; r++) out.push(run(sample, seeds[at++], k, 100, 0.001));
  return out;
}
const bytes = (a: Assignment) =>
  Buffer.concat([Buffer.from(a.labels.buffer), Buffer.from(a.similarity.buffer), Buffer.from(a.centroids.buffer), Buffer.from(String(a.iterations))]);
const seeds = seedAll(undefined);
for (let round = 0; round < rounds; round++) {
  let t = cpu();
  const fresh = lloydAll(lloyd, seeds);
  const newSeconds = cpu() - t;
  t = cpu();
  const old = lloydAll(oldLloyd, seeds);
  const oldSeconds = cpu() - t;
  const identical = fresh.every((a, i) => bytes(a).equals(bytes(old[i])));
  console.log(
    `Lloyd (${ks.length} k x 3 restarts, n 3000): new ${newSeconds.toFixed(2)} s, old ${oldSeconds.toFixed(2)} s, ratio ${(newSeconds / oldSeconds).toFixed(3)}, identical ${identical}`,
  );
}

// Keyword scanning (stage 3): the normalised titles and narratives of the Hadoop reports (each
// issue's three scans: title, narrative, both for the rubric), 40 passes.
const texts = loadHadoopBugs()
  .filter((b) => b.description.trim())
  .map((b) => [normalizeText(b.summary).text, normalizeText(b.description).text]);
const taxonomy = configDefinitions.taxonomy.defaults;
const groups = [...taxonomy.domains, ...taxonomy.root_causes].map((e) => e.keywords);
const signalGroups = configDefinitions.rubric.defaults.signals.map((sg) => [sg.term]);
function scanAll(make: (groups: string[][]) => { scan(text: string): Array<ReadonlySet<string>> }): string[] {
  const entries = make(groups);
  const signals = make(signalGroups);
  const out: string[] = [];
  for (let pass = 0; pass < 40; pass++)
    for (const [title, body] of texts) {
      const found = [entries.scan(title), entries.scan(body), signals.scan(`${title} ${body}`)];
      if (pass === 0) out.push(JSON.stringify(found.map((f) => f.map((set) => [...set]))));
    }
  return out;
}
for (let round = 0; round < rounds; round++) {
  let t = cpu();
  const fresh = scanAll(keywordScanner);
  const newSeconds = cpu() - t;
  t = cpu();
  const old = scanAll(oldKeywordScanner);
  const oldSeconds = cpu() - t;
  const identical = fresh.length === old.length && fresh.every((f, i) => f === old[i]);
  console.log(
    `keyword scans (${texts.length} reports x 3 texts x 40): new ${newSeconds.toFixed(2)} s, old ${oldSeconds.toFixed(2)} s, ratio ${(newSeconds / oldSeconds).toFixed(3)}, identical ${identical}`,
  );
}
