/**
 * Stage 7, patterns: promotes trusted clusters to patterns. Each pattern
 * - keeps the id of the previous run's pattern it continues (engine/cluster/identity.ts: member votes,
 *   anchoring, people's grouping decisions, lineage of merges and splits), else gets a new id derived
 *   from the run;
 * - is named so that a person recognises it: a templated pattern by its template (`…` at the
 *   variables: the `<*>` wildcard is the template field's notation, not a name's), a prose pattern by the title of its most central member (highest cosine to the
 *   centroid) followed by the distinctive terms of the pattern (centroid weight minus corpus mean
 *   weight) that the title does not already say, both shortened; names stay unique within the run;
 * - carries up to three representative example issues (the most central members, distinct titles);
 * - carries the fingerprint {domain, root_cause}: the majority judgement of its members when at least
 *   half of the decided members agree, else null (abstained), with the root-cause rollup behind it;
 * - gets a risk score (part 1 formula):
 *     risk = round(100 · (0.45 · severity + 0.30 · recency + 0.25 · volume)), where
 *     severity = mean member weight (critical 1, high 0.7, medium 0.4, low 0.15),
 *     recency  = exp(-days from the last occurrence to as-of / 30),
 *     volume   = min(1, ln(1 + issues) / ln(101)).
 * An unstable cluster is not promoted. Its members and the issues stage 5 left unclustered are placed
 * one by one by their nearest report, or not at all (placeProse below, issue 31); `placements` says what
 * placed each issue (`placementOf`). Provenance is bounded: the
 * member count, a digest of the sorted member ids and the link that lists them.
 */
import { createHash } from 'node:crypto';
import { assignIdentity, type LineageEntry, type PersonPlacement } from '../cluster/identity.ts';
import { round } from '../round.ts';
import { DAY_MS } from '../time.ts';
import type { StageContext, Provenance } from './context.ts';
import { membersLink, provenance } from './context.ts';
import { normalizeText } from '../text/normalize.ts';
import { reviewQuestions, SEVERITY_WEIGHT, type QuestionKind, type ReviewQuestion } from '../review/questions.ts';
import type { SnapshotOutput } from './01_snapshot.ts';
import type { NormalizeOutput } from './02_normalize.ts';
import type { ExtractOutput, Judgement } from './03_extract.ts';
import { bigramFeature, termHashes } from '../text/tfidf.ts';
import { WILDCARD } from '../text/templateTokens.ts';
import { withStructured, type VectorizeOutput } from './04_vectorize.ts';
import { nearestNeighbours } from '../cluster/neighbours.ts';
import { rankOf } from '../cluster/readingOrder.ts';
import type { CsrMatrix } from '../cluster/sparse.ts';
import { FEATURE_KINDS, kindOf } from '../text/features.ts';
import type { ClusterOutput } from './05_cluster.ts';
import type { StabilityOutput, StabilityStatus } from './06_stability.ts';

export interface RootCauseRollup {
  status: 'decided' | 'abstained';
  root_cause: string | null;
  share: number;
  decided: number;
  abstained: number;
  causes: Array<{ id: string; count: number }>;
}

export interface PatternOutput {
  id: string;
  previous_id: string | null;
  match_score: number | null;
  /** Grouping decisions (by id) that placed members in it: placed by a person (always set by stage 7). */
  decisions?: string[];
  label: number;
  name: string;
  /** How the pattern was found: a mined template (stage 5's templated path) or prose clustering. */
  path: 'templated' | 'prose';
  /** The template with `<*>` at its variable slots (templated patterns), else null. */
  template: string | null;
  /** Up to three representative member issues. */
  examples: Array<{ issue_id: string; title: string }>;
  top_terms: string[];
  /** Top centroid terms with unit-normalised weights: what the next run matches against. */
  terms: Array<[string, number]>;
  member_ids: string[];
  issue_count: number;
  first_seen_at: string | null;
  last_seen_at: string | null;
  domain: string | null;
  root_cause: string | null;
  rollup: RootCauseRollup;
  stability: { jaccard: number | null; status: StabilityStatus };
  risk_score: number;
  risk_components: { severity: number; recency: number; volume: number };
  /** Reviewers' answers to this pattern's questions (from earlier runs), applied to it and its members. */
  human: { domain?: string | null; root_cause?: string | null; criticality?: string } | null;
  provenance: Provenance;
}

export interface PatternsOutput {
  patterns: PatternOutput[];
  /** pattern_ids[i] is the pattern of snapshot issue i, or null. */
  pattern_ids: Array<string | null>;
  /** Previous patterns no group continues this run. */
  retired: string[];
  /** Merges and splits of the previous run's patterns (engine/cluster/identity.ts; always set by stage 7). */
  lineage?: LineageEntry[];
  /** Issues placed by a person's grouping decision (move, keep apart, merge; always set by stage 7). */
  person_placements?: PersonPlacement[];
  /** The run's review questions, grouped per pattern and question, riskiest first (engine/review/questions.ts). */
  review: ReviewQuestion[];
  /** How each issue was placed in its pattern (issue 31), compactly; read one with `placementOf`. */
  placements?: Placements;
}

/**
 * The run's placements, compact (100,000 issues): `by[i]` is what placed snapshot issue i, its parts
 * joined by `+` (`template`; or `terms` / `neighbour` then the structured kinds: `terms+component+code`),
 * null without a pattern; `neighbours` lists the issues a nearest report placed, by snapshot position.
 */
export interface Placements {
  by: Array<string | null>;
  neighbours: Array<{ index: number; neighbour: string; similarity: number }>;
}

/** Issue i's placement (see Placement), or null when it has no pattern. */
export function placementOf(placements: Placements, i: number): Placement | null {
  const by = placements.by[i];
  if (by === null || by === undefined) return null;
  const parts = by.split('+');
  if (parts[0] === 'template') return { path: 'templated', by: parts, neighbour: null, similarity: null };
  const near = parts[0] === 'neighbour' ? placements.neighbours.find((n) => n.index === i) : undefined;
  return { path: 'prose', by: parts, neighbour: near?.neighbour ?? null, similarity: near?.similarity ?? null };
}

/**
 * Why an issue is in its pattern (issue 31 §2), the per-issue provenance of stage 7's grouping:
 * - `path`: the mined template or prose clustering;
 * - `by`: what placed it: `template` (its line's template); `terms` (k-means on its words);
 *   `neighbour` (joined its nearest report's pattern, or formed one with it: NEIGHBOUR_* below), with
 *   `similarity` to that report; and each structured feature kind (`exception`, `frame`, `component`,
 *   `code`) it shares with another member of its pattern;
 * - `neighbour`: the snapshot issue id it was joined to, when `by` holds `neighbour`.
 */
export interface Placement {
  path: 'templated' | 'prose';
  by: string[];
  neighbour: string | null;
  similarity: number | null;
}

/**
 * A report joins its nearest report's pattern at this cosine (words and structured features). The three
 * thresholds were chosen on the Hadoop reports (the one labelled prose set here; docs/benchmarks.md).
 */
export const NEIGHBOUR_JOIN = 0.3;
/** Two unplaced reports this close form a pattern of their own (near-duplicates). */
export const NEIGHBOUR_PAIR = 0.5;
/** A placed report follows a near-duplicate in another pattern at this cosine. */
export const NEIGHBOUR_MOVE = 0.5;
const NEIGHBOUR_DF_CAP = 200;
const NEIGHBOUR_RARE_KEPT = 16;
const NEIGHBOUR_SHORTLIST = 8;

interface Placed {
  labels: Int32Array;
  neighbour: Int32Array;
  similarity: Float64Array;
  /** Where the clustering put each report, before the neighbour rules (-1: left out, or in an unstable cluster). */
  clustered: Int32Array;
  /** Each prose report's nearest prose report when at least NEIGHBOUR_JOIN similar, else -1. */
  nearest: Int32Array;
}

/**
 * The prose grouping after stability: members of unstable clusters and unclustered reports are
 * unplaced; an unplaced prose report whose nearest prose report (cosine of the words' TF-IDF joined
 * with the structured features, engine/stages/04_vectorize.ts `withStructured`) is at least
 * NEIGHBOUR_JOIN similar and placed joins that report's pattern; unplaced reports at least
 * NEIGHBOUR_PAIR similar to each other (one link: nearest neighbour) form patterns of their own, labels
 * after every other, unless one of them joined a pattern, which the group then follows; a placed report whose nearest report is at least NEIGHBOUR_MOVE similar but in
 * another pattern follows it when that report is closer to its own centroid (near-duplicates the
 * k-means boundary cut apart). One hop from the clustering's placement, so the order of the reports does not
 * matter; ties go to the earlier report in stage 5's reading order (engine/cluster/readingOrder.ts), not
 * the snapshot's, so that the same reports in another snapshot order are placed alike.
 */
function placeProse(
  input: { normalize: NormalizeOutput; vectorize: VectorizeOutput; cluster: ClusterOutput },
  stabilityOf: Map<number, { status: StabilityStatus }>,
  rank: Int32Array,
): Placed {
  const { cluster, vectorize: v } = input;
  const n = cluster.labels.length;
  const labels = Int32Array.from(cluster.labels, (l) => (l >= 0 && stabilityOf.get(l)?.status === 'unstable' ? -1 : l));

  const neighbour = new Int32Array(n).fill(-1);
  const similarity = new Float64Array(n);
  const nearestRow = new Int32Array(n).fill(-1);
  const prose = (i: number) => !cluster.templated[i];
  const unplaced: number[] = [];
  const queries: number[] = [];
  for (let i = 0; i < n; i++) {
    if (!prose(i)) continue;
    if (labels[i] < 0) unplaced.push(i);
    queries.push(i);
  }
  if (!unplaced.length || v.tfidf.values.length === 0) return { labels, neighbour, similarity, clustered: Int32Array.from(labels), nearest: nearestRow };
  const text: CsrMatrix = { rows: n, cols: v.tfidf.cols, rowPtr: v.tfidf.row_ptr, colIdx: v.tfidf.col_idx, values: v.tfidf.values };
  const matrix = withStructured(text, input.normalize);
  const found = nearestNeighbours(matrix, queries, prose, { dfCap: NEIGHBOUR_DF_CAP, rareKept: NEIGHBOUR_RARE_KEPT, shortlist: NEIGHBOUR_SHORTLIST, rank });
  const nearestOf = new Map(queries.map((q, k) => [q, found[k]]));
  const nearest = unplaced.map((i) => nearestOf.get(i) ?? null);
  for (const [i, nn] of nearestOf) if (nn && nn.similarity >= NEIGHBOUR_JOIN) nearestRow[i] = nn.row;
  const base = Int32Array.from(labels);
  // A placed report whose nearest report is a near-duplicate in another pattern follows it when that
  // report sits closer to its own centroid.
  for (const i of queries) {
    const nn = nearestOf.get(i);
    if (!nn || base[i] < 0 || base[nn.row] < 0 || base[i] === base[nn.row] || nn.similarity < NEIGHBOUR_MOVE) continue;
    if (cluster.similarity[nn.row] > cluster.similarity[i] || (cluster.similarity[nn.row] === cluster.similarity[i] && rank[nn.row] < rank[i])) {
      labels[i] = base[nn.row];
      neighbour[i] = nn.row;
      similarity[i] = nn.similarity;
    }
  }
  let next = 0;
  for (const l of labels) next = Math.max(next, l + 1);
  next = Math.max(next, cluster.k + cluster.templates.length);
  // Pairs of unplaced near-duplicates: union-find over nearest-neighbour links.
  const parent = new Map<number, number>();
  const find = (x: number): number => {
    let r = x;
    while (parent.get(r) !== r) r = parent.get(r)!;
    parent.set(x, r);
    return r;
  };
  unplaced.forEach((i, q) => {
    const nn = nearest[q];
    if (!nn) return;
    if (base[nn.row] >= 0 && nn.similarity >= NEIGHBOUR_JOIN) {
      labels[i] = base[nn.row];
      neighbour[i] = nn.row;
      similarity[i] = nn.similarity;
    } else if (base[nn.row] < 0 && nn.similarity >= NEIGHBOUR_PAIR) {
      neighbour[i] = nn.row;
      similarity[i] = nn.similarity;
      if (!parent.has(i)) parent.set(i, i);
      if (!parent.has(nn.row)) parent.set(nn.row, nn.row);
      const a = find(i);
      const b = find(nn.row);
      // The later root (in the reading order) hangs under the earlier one.
      if (a !== b) {
        const [later, earlier] = rank[a] > rank[b] ? [a, b] : [b, a];
        parent.set(later, earlier);
      }
    }
  });
  // A group of near-duplicates one of which joined a pattern follows it (its first such member's);
  // otherwise it is a pattern of its own.
  const groupLabel = new Map<number, number>();
  const members = [...parent.keys()].sort((a, b) => rank[a] - rank[b]);
  for (const i of members) if (labels[i] >= 0 && !groupLabel.has(find(i))) groupLabel.set(find(i), labels[i]);
  for (const i of members) {
    const root = find(i);
    if (!groupLabel.has(root)) groupLabel.set(root, next++);
    labels[i] = groupLabel.get(root)!;
  }
  return { labels, neighbour, similarity, clustered: base, nearest: nearestRow };
}

/** Each issue's placement (see Placement, Placements). */
function placementsOf(
  input: { snapshot: SnapshotOutput; normalize: NormalizeOutput; cluster: ClusterOutput },
  placed: Placed,
  patternIds: Array<string | null>,
): Placements {
  const { issues } = input.snapshot;
  const column = input.normalize.features;
  const vocabulary = input.normalize.feature_vocabulary ?? [];
  // Per pattern: how many members carry each structured feature.
  const counts = new Map<string, Map<number, number>>();
  if (column)
    patternIds.forEach((pid, i) => {
      if (pid === null || input.cluster.templated[i]) return;
      const c = counts.get(pid) ?? new Map<number, number>();
      for (let p = column.offsets[i]; p < column.offsets[i + 1]; p++) c.set(column.ids[p], (c.get(column.ids[p]) ?? 0) + 1);
      counts.set(pid, c);
    });
  const neighbours: Placements['neighbours'] = [];
  const by = patternIds.map((pid, i) => {
    if (pid === null) return null;
    if (input.cluster.templated[i]) return 'template';
    const joined = placed.neighbour[i] >= 0;
    if (joined) neighbours.push({ index: i, neighbour: issues[placed.neighbour[i]].id, similarity: round(placed.similarity[i]) });
    const kinds = new Set<string>();
    const c = counts.get(pid);
    if (column && c)
      for (let p = column.offsets[i]; p < column.offsets[i + 1]; p++) if ((c.get(column.ids[p]) ?? 0) >= 2) kinds.add(kindOf(vocabulary[column.ids[p]]));
    return [joined ? 'neighbour' : 'terms', ...FEATURE_KINDS.filter((k) => kinds.has(k))].join('+');
  });
  return { by, neighbours };
}

const TERMS_KEPT = 30;
const NAME_TITLE_CHARS = 60;
const NAME_TEMPLATE_CHARS = 90;
const EXAMPLES = 3;
/** Distinctive features read for top terms (five are kept; some repeat words of others). */
const DISTINCTIVE_CONSIDERED = 40;

/** A UUID (v8 layout) derived from a string, so that replaying a run reproduces its ids. */
export function derivedUuid(text: string): string {
  const h = createHash('sha256').update(text).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h[16], 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * What each wanted feature stands for among a pattern's members. Hashed features share slots, so a
 * feature is named after the member token or adjacent-token bigram hashing to it (as stage 4 hashes
 * them, engine/text/tfidf.ts) that the members use most, ties to the string first in code-unit order:
 * a name that does not depend on the order of the issues, and says only what the members say.
 */
export function memberTerms(
  list: readonly number[],
  wanted: ReadonlySet<number>,
  norm: NormalizeOutput,
  hashes: { state: Uint32Array; unigram: Uint32Array },
  dimensions: number,
): Map<number, string> {
  const words = norm.vocabulary;
  const v = words.length;
  // feature → term → uses; a term is a token id, or v + prev · v + id for the bigram `prev id`.
  const counts = new Map<number, Map<number, number>>();
  const count = (f: number, term: number) => {
    if (!wanted.has(f)) return;
    let c = counts.get(f);
    if (!c) counts.set(f, (c = new Map()));
    c.set(term, (c.get(term) ?? 0) + 1);
  };
  for (const i of list)
    for (const { offsets, ids } of [norm.title, norm.body])
      for (let p = offsets[i]; p < offsets[i + 1]; p++) {
        const id = ids[p];
        count(hashes.unigram[id], id);
        const prev = p > offsets[i] ? ids[p - 1] : id;
        if (prev !== id) count(bigramFeature(hashes.state[prev], words[id], dimensions), v + prev * v + id);
      }
  const textOf = (term: number) => (term < v ? words[term] : `${words[Math.floor(term / v) - 1]} ${words[term % v]}`);
  const out = new Map<number, string>();
  for (const [f, c] of counts) {
    let best = '';
    let most = 0;
    for (const [term, uses] of c) {
      const text = textOf(term);
      if (uses > most || (uses === most && text < best)) [best, most] = [text, uses];
    }
    out.set(f, best);
  }
  return out;
}

/** At most `max` characters, cut at a word boundary when one is near, with an ellipsis. */
export function shorten(text: string, max: number): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  if (clean.length <= max) return clean;
  const cut = clean.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.([-]+$/, '')}…`;
}

function majority(judgements: Judgement[]): { value: string | null; share: number; decided: number; counts: Array<{ id: string; count: number }> } {
  const counts = new Map<string, number>();
  let decided = 0;
  for (const j of judgements) {
    if (j.value === null) continue;
    decided++;
    counts.set(j.value, (counts.get(j.value) ?? 0) + 1);
  }
  const sorted = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([id, count]) => ({ id, count }));
  const top = sorted[0];
  const share = top && decided ? top.count / decided : 0;
  return { value: top && share >= 0.5 ? top.id : null, share: round(share), decided, counts: sorted };
}

export function patterns(
  input: {
    snapshot: SnapshotOutput;
    normalize: NormalizeOutput;
    extract: ExtractOutput;
    vectorize: VectorizeOutput;
    cluster: ClusterOutput;
    stability: StabilityOutput;
  },
  ctx: StageContext,
): PatternsOutput {
  const cfg = ctx.configs.cluster.document;
  const { issues } = input.snapshot;
  const v = input.vectorize;
  const asOf = new Date(ctx.asOf).getTime();
  const hashes = termHashes(input.normalize.vocabulary, cfg.hash_dimensions);

  // Corpus mean weight per feature, for distinctiveness.
  const n = issues.length;
  const corpusMean = new Map<number, number>();
  for (let p = 0; p < v.tfidf.values.length; p++) corpusMean.set(v.tfidf.col_idx[p], (corpusMean.get(v.tfidf.col_idx[p]) ?? 0) + v.tfidf.values[p] / n);

  const stabilityOf = new Map(input.stability.clusters.map((c) => [c.label, c]));
  const templateOf = new Map(input.cluster.templates.map((t) => [t.label, t.text]));
  const nameOf = (template: string | null, title: string, topTerms: string[]) => {
    if (template !== null) return shorten(template.replaceAll(WILDCARD, '…'), NAME_TEMPLATE_CHARS);
    const head = shorten(title, NAME_TITLE_CHARS);
    const said = new Set(normalizeText(title).tokens);
    const extra = topTerms.filter((t) => !t.split(' ').every((w) => said.has(w))).slice(0, 2);
    return extra.length ? `${head} (${extra.join(', ')})` : head;
  };
  // Each issue's place in stage 5's reading order: every tie below goes to the earlier one.
  const readRank = rankOf(input.cluster.order, n);
  const placed = placeProse(input, stabilityOf, readRank);
  const members = new Map<number, number[]>();
  placed.labels.forEach((l, i) => {
    if (l < 0) return;
    if (!members.has(l)) members.set(l, []);
    members.get(l)!.push(i);
  });

  // ── Issue 31: identity across runs and people's corrections (engine/cluster/identity.ts) ──────────
  // The one place where this run's clusters become identified groups: ids of the previous run's
  // patterns kept by member overlap and anchoring, merges and splits with their lineage, and the
  // grouping decisions in force (must-link, cannot-link, pins). Clustering above stays as it is.
  const identity = assignIdentity({
    issueIds: issues.map((i) => i.id),
    groups: new Map([...members].filter(([label, list]) => list.length >= (label >= input.cluster.k ? 2 : cfg.min_cluster_size))),
    previous: input.snapshot.previous_patterns,
    decisions: input.snapshot.grouping_decisions ?? [],
    templated: input.cluster.templated,
    labels: input.cluster.labels,
    // placeProse's near-duplicate groups take the labels after the clusters and templates.
    formed: new Set([...members.keys()].filter((label) => label >= input.cluster.k + input.cluster.templates.length)),
    clustered: placed.clustered,
    nearest: placed.nearest,
    embedding: v.embedding,
    dimensions: v.dimensions,
    outlierSimilarity: input.cluster.outlier_similarity,
    newId: (firstMemberId) => derivedUuid(`${ctx.runId}:pattern:${firstMemberId}`),
  });
  const identified = new Map(identity.groups.map((g) => [g.label, g]));
  // ────────────────────────────────────────────────────────────────────────────────────────────────

  const candidates = [...identified.values()]
    .map(({ label, members: list }) => {
      const centroid = new Map<number, number>();
      for (const i of list)
        for (let p = v.tfidf.row_ptr[i]; p < v.tfidf.row_ptr[i + 1]; p++)
          centroid.set(v.tfidf.col_idx[p], (centroid.get(v.tfidf.col_idx[p]) ?? 0) + v.tfidf.values[p] / list.length);
      const ranked = [...centroid.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, TERMS_KEPT);
      const norm = Math.sqrt(ranked.reduce((s, [, w]) => s + w * w, 0)) || 1;
      const distinctiveFeatures = [...centroid.entries()]
        .map(([f, w]) => [f, w - (corpusMean.get(f) ?? 0)] as const)
        .sort((a, b) => b[1] - a[1] || a[0] - b[0])
        .slice(0, DISTINCTIVE_CONSIDERED)
        .map(([f]) => f);
      const said = memberTerms(list, new Set([...ranked.map(([f]) => f), ...distinctiveFeatures]), input.normalize, hashes, cfg.hash_dimensions);
      // Every feature of a member's row is said by a member; `#f` only if a stored row disagreed.
      const terms: Array<[string, number]> = ranked.map(([f, w]) => [said.get(f) ?? `#${f}`, round(w / norm)]);
      const distinctive = distinctiveFeatures.flatMap((f) => (said.has(f) ? [said.get(f)!] : []));
      const topTerms: string[] = [];
      for (const term of distinctive) {
        if (topTerms.length === 5) break;
        const words = term.split(' ');
        if (words.every((w) => topTerms.some((t) => t.split(' ').includes(w)))) continue;
        topTerms.push(term);
      }
      const ids = list.map((i) => issues[i].id).sort();
      // The most central members first (ties: stage 5's reading order), one per distinct title.
      const central = [...list].sort((a, b) => input.cluster.similarity[b] - input.cluster.similarity[a] || readRank[a] - readRank[b]);
      const examples: Array<{ issue_id: string; title: string }> = [];
      const titles = new Set<string>();
      for (const i of central) {
        if (examples.length === EXAMPLES) break;
        if (titles.has(issues[i].title)) continue;
        titles.add(issues[i].title);
        examples.push({ issue_id: issues[i].id, title: shorten(issues[i].title, 200) });
      }
      const template = templateOf.get(label) ?? null;
      return { label, list, terms, topTerms, ids, examples, template, name: nameOf(template, issues[central[0]].title, topTerms) };
    })
    .sort((a, b) => (a.ids[0] < b.ids[0] ? -1 : 1));

  // The ids of engine/cluster/identity.ts (above).
  const matchOf = new Map(candidates.map((cand, c) => [c, identified.get(cand.label)!]));

  // Unique names: a repeated name gets its pattern's first member's position in the run.
  const nameCount = new Map<string, number>();
  for (const cand of candidates) nameCount.set(cand.name, (nameCount.get(cand.name) ?? 0) + 1);
  const names = candidates.map((cand, c) => (nameCount.get(cand.name)! > 1 ? `${cand.name} #${c + 1}` : cand.name));

  const extraction = input.extract.results;
  const patternDecisions = new Map<string, Partial<Record<QuestionKind, (typeof input.snapshot.decisions)[number]>>>();
  for (const d of input.snapshot.decisions) {
    if (!d.pattern_id) continue;
    const byKind = patternDecisions.get(d.pattern_id) ?? {};
    byKind[d.kind] = d;
    patternDecisions.set(d.pattern_id, byKind);
  }
  const out: PatternOutput[] = candidates.map((cand, c) => {
    const match = matchOf.get(c)!;
    const id = match.id;
    const times = cand.list.map((i) => Date.parse(issues[i].occurred_at ?? issues[i].created_at)).sort((a, b) => a - b);
    const severity = cand.list.reduce((s, i) => s + SEVERITY_WEIGHT[issues[i].severity], 0) / cand.list.length;
    const lastSeen = times.at(-1)!;
    const recency = Math.exp(-Math.max(0, asOf - lastSeen) / DAY_MS / 30);
    const volume = Math.min(1, Math.log(1 + cand.list.length) / Math.log(101));
    const risk = Math.max(0, Math.min(100, Math.round(100 * (0.45 * severity + 0.3 * recency + 0.25 * volume))));
    const domain = majority(cand.list.map((i) => extraction[i].domain));
    const cause = majority(cand.list.map((i) => extraction[i].root_cause));
    // A reviewer's answer to this pattern's question (kept through the match to the previous run) wins.
    const answers = patternDecisions.get(id);
    const human: PatternOutput['human'] = answers ? {} : null;
    if (answers?.extraction) {
      const d = answers.extraction.decision;
      if (typeof d.domain === 'string' || d.domain === null) domain.value = human!.domain = d.domain as string | null;
      if (typeof d.root_cause === 'string') cause.value = human!.root_cause = d.root_cause;
    }
    if (answers?.root_cause && typeof answers.root_cause.decision.root_cause === 'string')
      cause.value = human!.root_cause = answers.root_cause.decision.root_cause;
    if (answers?.criticality && typeof answers.criticality.decision.criticality === 'string') human!.criticality = answers.criticality.decision.criticality;
    const stab = stabilityOf.get(cand.label);
    return {
      id,
      previous_id: match.previous_id,
      match_score: match.match_score,
      decisions: match.decisions,
      label: cand.label,
      name: names[c],
      path: cand.template === null ? 'prose' : 'templated',
      template: cand.template,
      examples: cand.examples,
      top_terms: cand.topTerms,
      terms: cand.terms,
      member_ids: cand.ids,
      issue_count: cand.ids.length,
      first_seen_at: new Date(times[0]).toISOString(),
      last_seen_at: new Date(lastSeen).toISOString(),
      domain: domain.value,
      root_cause: cause.value,
      rollup: {
        status: cause.value ? 'decided' : 'abstained',
        root_cause: cause.value,
        share: cause.share,
        decided: cause.decided,
        abstained: cand.list.length - cause.decided,
        causes: cause.counts,
      },
      stability: { jaccard: stab?.jaccard ?? null, status: stab?.status ?? 'unassessed' },
      human,
      risk_score: risk,
      risk_components: { severity: round(severity), recency: round(recency), volume: round(volume) },
      provenance: provenance(ctx, 'patterns', cand.ids, membersLink(id)),
    };
  });

  const pattern_ids: Array<string | null> = issues.map(() => null);
  out.forEach((p, c) => {
    for (const i of candidates[c].list) pattern_ids[i] = p.id;
  });
  const placements = placementsOf(input, placed, pattern_ids);
  const produced = new Set(out.map((p) => p.id));
  const retired = input.snapshot.previous_patterns.map((p) => p.id).filter((id) => !produced.has(id));
  const review = reviewQuestions(
    input.snapshot,
    input.extract,
    out.map((p, c) => ({ ...p, members: candidates[c].list, decided: new Set(Object.keys(patternDecisions.get(p.id) ?? {}) as QuestionKind[]) })),
    pattern_ids.map((p) => p !== null),
  );
  return { patterns: out, pattern_ids, retired, review, placements, lineage: identity.lineage, person_placements: identity.person_placements };
}
