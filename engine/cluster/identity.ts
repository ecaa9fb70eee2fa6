/**
 * Pattern identity across runs (issue 31): which of this run's groups is which of the previous run's
 * patterns, with people's corrections applied (engine/cluster/constraints.ts). Pure and deterministic:
 * every tie is broken by id or index.
 *
 * 1. Pins first: an issue a person moved leaves its cluster (it is placed in step 5).
 * 2. Anchors: every issue that was a member of a previous pattern has that pattern as its anchor,
 *    resolved through the merges in force (a merged source's members, as recorded by the decision,
 *    anchor to the target); an issue an undo put back since the previous run anchors where it went back.
 * 3. Votes: each cluster counts its members' anchors; (cluster, pattern, overlap) pairs are taken
 *    greedily, largest overlap first (ties: pattern id, then label), one to one. A previous pattern's
 *    id goes where most of its members went.
 * 4. Anchoring (prose issues only; a template's members are exact and keep their template's group).
 *    The groups are stage 7's placed groups: k-means clusters, reports joined or moved by a nearest
 *    report, and near-duplicate groups formed from reports the clustering left out (`formed`).
 *    a. A formed group at least half of whose members were one previous pattern P's (no other
 *       pattern's as many) continues P: all its members join P's group, as a report joins its nearest
 *       report's pattern.
 *    b. A member of a previous pattern P that this run's clustering put elsewhere stays with P unless
 *       the evidence says it moved: its cosine to the centroid of its new group's other reports (P's
 *       members there left out: they are no evidence against P) exceeds its cosine to P's centroid
 *       by more than ANCHOR_MARGIN, in this run's embedding. P's centroid is that of P as this step
 *       leaves it (the group that took P's id, less the members that leave, plus those that stay with
 *       P wherever they were clustered), found as a fixed point: all start with P, those beyond the
 *       margin leave together, the sums are taken again, until none leaves. So a run with nothing
 *       new, which starts from what this one left, moves no one. One the clustering left out (an outlier, or in a
 *       dropped cluster: unstable, too small), wherever a neighbour rule placed it, is judged as left
 *       out: one that became an outlier stays with P while its cosine to that group is at least the
 *       run's outlier cut-off (always, when no group took P's id); one whose cluster was dropped
 *       stays with P. Either way it also stays while its nearest report (`nearest`: close enough for
 *       stage 7 to join it to that report's pattern) is in the group that took P's id.
 *    P keeps its id while any member stays, whether or not a group voted for it.
 * 5. Must-links of merges: a cluster whose plurality anchors to a merge target without getting its id
 *    joins the target's group, and so does each recorded member of the merged source.
 * 6. Pins are placed (the pattern's group, or a group of their own under that id), then cannot-links:
 *    of two issues kept apart that share a group, the one not pinned there, else the second named
 *    (the one the decision took out at once), leaves every pattern.
 * 7. A group no vote named and left with fewer than two members dissolves; the others get a new id
 *    from `newId`. Lineage: a previous pattern with no group whose surviving members went mostly to
 *    one group was merged into it (by the engine); a merge in force whose source was a previous
 *    pattern is reported as a person's merge; a new group most of whose anchored members (at least
 *    two) came from one previous pattern is a split of it.
 */
import { constraintsOf, type GroupingDecision, type GroupingDecisionKind } from './constraints.ts';

/** How much closer (cosine) an anchored issue must be to its new group than to its old pattern to leave it. */
export const ANCHOR_MARGIN = 0.15;

export interface IdentityInput {
  /** Snapshot issue ids, by index. */
  issueIds: readonly string[];
  /** This run's groups (label → member indices), after the size and stability filters. */
  groups: ReadonlyMap<number, readonly number[]>;
  previous: ReadonlyArray<{ id: string; member_ids: readonly string[] }>;
  decisions: readonly GroupingDecision[];
  /** 1 where the issue took the templated path. */
  templated: ArrayLike<number>;
  /** Stage 5's labels (-1: outlier); a clustered issue in none of `groups` was in an unstable or small cluster. */
  labels: ArrayLike<number>;
  /**
   * Labels of the groups a neighbour rule formed from reports the clustering left out (stage 7's
   * near-duplicate pairs, engine/stages/07_patterns.ts placeProse); none when absent.
   */
  formed?: ReadonlySet<number>;
  /**
   * Where the clustering put each issue before the neighbour rules of stage 7 (its stage 5 label, -1
   * when left out or in an unstable cluster); `labels` when absent.
   */
  clustered?: ArrayLike<number>;
  /** Each prose issue's nearest report when near enough to join its pattern (stage 7's NEIGHBOUR_JOIN), else -1; none when absent. */
  nearest?: ArrayLike<number>;
  /** n × dimensions, unit rows (stage 4). */
  embedding: Float32Array;
  dimensions: number;
  /** Stage 5's outlier cut-off (cosine to the centroid). */
  outlierSimilarity: number;
  /** The id of a new group from its smallest member id. */
  newId: (firstMemberId: string) => string;
}

export interface IdentityGroup {
  /** Stage 5's label; negative for a group made by this step (a pattern kept alive by its members or a person). */
  label: number;
  members: number[];
  id: string;
  /** The previous run's pattern it continues, else null. */
  previous_id: string | null;
  /** Jaccard of its members and that pattern's previous members, else null. */
  match_score: number | null;
  /** Grouping decisions that placed members in it. */
  decisions: string[];
}

export interface LineageEntry {
  kind: 'merge' | 'split';
  /** The pattern merged away or split. */
  from: string;
  /** merge: the pattern it went into; split: the continuing pattern (if any) first, then the new ones. */
  to: string[];
  by: 'engine' | 'person';
  decision_id: string | null;
  /** Previous members of `from` that went to the successors. */
  issues: number;
}

export interface PersonPlacement {
  issue_id: string;
  pattern_id: string | null;
  decision_id: string;
  kind: GroupingDecisionKind;
}

export interface IdentityResult {
  groups: IdentityGroup[];
  lineage: LineageEntry[];
  person_placements: PersonPlacement[];
}

const NONE = 0x7fffffff;

export function assignIdentity(input: IdentityInput): IdentityResult {
  const { issueIds, dimensions, embedding } = input;
  const n = issueIds.length;
  const constraints = constraintsOf(input.decisions);
  const indexOf = new Map<string, number>();
  issueIds.forEach((id, i) => indexOf.set(id, i));
  const groupOf = new Int32Array(n).fill(NONE);
  const labels = [...input.groups.keys()].sort((a, b) => a - b);
  for (const label of labels) for (const i of input.groups.get(label)!) groupOf[i] = label;
  const templatedGroup = new Set(labels.filter((l) => input.groups.get(l)!.some((i) => input.templated[i] === 1)));

  // 1. Pins leave their clusters.
  const pinned = new Map<number, { pattern_id: string | null; decision: GroupingDecision }>();
  for (const [issue, pin] of constraints.pins) {
    const i = indexOf.get(issue);
    if (i === undefined) continue;
    pinned.set(i, { pattern_id: pin.pattern_id === null ? null : constraints.resolve(pin.pattern_id), decision: pin.decision });
    groupOf[i] = NONE;
  }

  // 2. Anchors.
  const anchor: Array<string | null> = new Array(n).fill(null);
  const previousMembers = new Map<string, Set<string>>();
  for (const p of [...input.previous].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    previousMembers.set(p.id, new Set(p.member_ids));
    const to = constraints.resolve(p.id);
    for (const m of p.member_ids) {
      const i = indexOf.get(m);
      if (i !== undefined) anchor[i] = to;
    }
  }
  for (const [issue, d] of constraints.mergedMembers) {
    const i = indexOf.get(issue);
    if (i !== undefined) anchor[i] = constraints.resolve(d.target_pattern_id!);
  }
  for (const [issue, to] of constraints.restored) {
    const i = indexOf.get(issue);
    if (i !== undefined) anchor[i] = to === null ? null : constraints.resolve(to);
  }
  for (const i of pinned.keys()) anchor[i] = null;

  // 3. Votes.
  const pairs: Array<{ label: number; id: string; overlap: number }> = [];
  for (const label of labels) {
    const counts = new Map<string, number>();
    for (const i of input.groups.get(label)!) if (groupOf[i] === label && anchor[i] !== null) counts.set(anchor[i]!, (counts.get(anchor[i]!) ?? 0) + 1);
    for (const [id, overlap] of counts) pairs.push({ label, id, overlap });
  }
  pairs.sort((a, b) => b.overlap - a.overlap || (a.id < b.id ? -1 : a.id > b.id ? 1 : a.label - b.label));
  const idOfLabel = new Map<number, string>();
  const labelOfId = new Map<string, number>();
  for (const p of pairs) {
    if (idOfLabel.has(p.label) || labelOfId.has(p.id)) continue;
    idOfLabel.set(p.label, p.id);
    labelOfId.set(p.id, p.label);
  }
  let nextLabel = -2;
  const destination = (id: string) => {
    let label = labelOfId.get(id);
    if (label === undefined) {
      label = nextLabel--;
      labelOfId.set(id, label);
      idOfLabel.set(label, id);
    }
    return label;
  };

  // 4a. A group of near-duplicates the clustering left out, at least half of whose members were one
  // previous pattern's (and no other pattern's as many), continues that pattern: its members, old
  // and new, join the pattern's group, as a report joins its nearest report's pattern (a pair's one
  // old member is where its anchor says). Otherwise its old members are judged as left out (4b).
  const formed = new Set(labels.filter((l) => input.formed?.has(l)));
  for (const label of formed) {
    const list = input.groups.get(label)!.filter((i) => groupOf[i] === label);
    const counts = new Map<string, number>();
    for (const i of list) if (anchor[i] !== null) counts.set(anchor[i]!, (counts.get(anchor[i]!) ?? 0) + 1);
    const ranked = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    if (!ranked.length || 2 * ranked[0][1] < list.length || (ranked.length > 1 && ranked[1][1] === ranked[0][1])) continue;
    const p = ranked[0][0];
    if (idOfLabel.get(label) === p) continue;
    const to = destination(p);
    for (const i of list) groupOf[i] = to;
  }

  // 4b. Anchoring of prose issues (this run's embedding). A member's evidence is weighed against its
  // pattern as the run leaves it (all the members it keeps, wherever the clustering put them), not
  // against the one cluster that took the pattern's id: when a larger k re-cuts a pattern, that
  // cluster is only part of it, and its centroid is far from the pattern's other members.
  if (dimensions > 0) {
    const add = <K>(map: Map<K, Float64Array>, key: K, i: number) => {
      let s = map.get(key);
      if (!s) map.set(key, (s = new Float64Array(dimensions)));
      for (let d = 0; d < dimensions; d++) s[d] += embedding[i * dimensions + d];
    };
    // This run's prose clusters (before any move): the sum of each one's members, their count, and the
    // unit centroid.
    const clusterSums = new Map<number, Float64Array>();
    const clusterCounts = new Map<number, number>();
    for (let i = 0; i < n; i++) {
      const g = groupOf[i];
      if (input.templated[i] === 1 || g === NONE || templatedGroup.has(g) || formed.has(g)) continue;
      add(clusterSums, g, i);
      clusterCounts.set(g, (clusterCounts.get(g) ?? 0) + 1);
    }
    const unit = (s: Float64Array) => {
      let norm = 0;
      for (let d = 0; d < dimensions; d++) norm += s[d] * s[d];
      norm = Math.sqrt(norm) || 1;
      for (let d = 0; d < dimensions; d++) s[d] /= norm;
      return s;
    };
    const centroids = new Map([...clusterSums].map(([g, sum]) => [g, unit(Float64Array.from(sum))]));
    const cos = (i: number, c: Float64Array) => {
      let dot = 0;
      for (let d = 0; d < dimensions; d++) dot += embedding[i * dimensions + d] * c[d];
      return dot;
    };
    // Left-out members and those linked to their pattern by their nearest report are decided once;
    // members the clustering put in another group are judged against their pattern's centroid.
    const stays = new Uint8Array(n);
    const judged: number[] = [];
    for (let i = 0; i < n; i++) {
      const p = anchor[i];
      if (p === null || input.templated[i] === 1) continue;
      const here = groupOf[i];
      if (here !== NONE && (idOfLabel.get(here) === p || templatedGroup.has(here))) continue;
      // The evidence a neighbour rule places by: its nearest report is with P (before any move).
      const j = input.nearest?.[i] ?? -1;
      const linked = j >= 0 && j !== i && groupOf[j] !== NONE && idOfLabel.get(groupOf[j]) === p;
      // A report the clustering left out is judged as left out wherever a neighbour rule placed it
      // (one nearest report is no evidence against its anchor; the centroid of a near-duplicate pair,
      // kept out of centroids, is mostly the report itself).
      const left = here === NONE || !centroids.has(here) || (input.clustered ?? input.labels)[i] < 0;
      if (left) {
        const voted = labelOfId.get(p);
        const home = voted !== undefined ? centroids.get(voted) : undefined;
        if (linked || home === undefined || input.labels[i] >= 0 || cos(i, home) >= input.outlierSimilarity - ANCHOR_MARGIN) stays[i] = 1;
      } else if (linked) stays[i] = 1;
      else {
        stays[i] = 1;
        judged.push(i);
      }
    }
    // Every judged member starts with its pattern. The evidence that it moved comes from the other
    // reports of its cluster: P's members there are left out of that cluster's centroid (a block of
    // P's reports put beside another pattern's pulls the centroid towards itself; a cluster of P's
    // reports alone is no evidence). P's side is P as a whole, the member included, as it is one of
    // P's. Each round, those beyond ANCHOR_MARGIN leave P together and the sums are taken again (in
    // index order) from what is left, until none leaves. The decisions are a fixed point: a run with
    // nothing new starts from the patterns this one leaves, so it moves no one.
    /** Cosine of issue i with the sum `whole` less `part`. */
    const cosRest = (i: number, whole: Float64Array, part: Float64Array | undefined) => {
      let dot = 0;
      let norm = 0;
      for (let d = 0; d < dimensions; d++) {
        const v = whole[d] - (part ? part[d] : 0);
        dot += embedding[i * dimensions + d] * v;
        norm += v * v;
      }
      return norm > 0 ? dot / Math.sqrt(norm) : 0;
    };
    while (judged.length) {
      const patternSums = new Map<string, Float64Array>();
      // P's members in cluster g, by `${g} ${P}`.
      const blockSums = new Map<string, Float64Array>();
      const blockCounts = new Map<string, number>();
      for (let i = 0; i < n; i++) {
        if (input.templated[i] === 1) continue;
        const id = stays[i] ? anchor[i]! : groupOf[i] === NONE ? undefined : idOfLabel.get(groupOf[i]);
        if (id === undefined) continue;
        add(patternSums, id, i);
        if (!clusterSums.has(groupOf[i])) continue;
        const key = `${groupOf[i]} ${id}`;
        add(blockSums, key, i);
        blockCounts.set(key, (blockCounts.get(key) ?? 0) + 1);
      }
      const leaving = judged.filter((i) => {
        if (!stays[i]) return false;
        const g = groupOf[i];
        const p = anchor[i]!;
        const key = `${g} ${p}`;
        if (clusterCounts.get(g)! === (blockCounts.get(key) ?? 0)) return false;
        return cosRest(i, clusterSums.get(g)!, blockSums.get(key)) - cosRest(i, patternSums.get(p)!, undefined) > ANCHOR_MARGIN;
      });
      if (!leaving.length) break;
      for (const i of leaving) stays[i] = 0;
    }
    for (let i = 0; i < n; i++) if (stays[i]) groupOf[i] = destination(anchor[i]!);
  }

  // 5. Must-links of the merges in force: a cluster whose most members anchor to a merge's target but
  // that did not get the target's id joins the target's group, and so does every recorded member of
  // a merged source wherever this run put it (unless a person moved it since).
  const targets = new Set([...constraints.merges.values()].map((d) => constraints.resolve(d.target_pattern_id!)));
  if (targets.size) {
    const top = new Map<number, string>();
    for (const p of pairs) if (!top.has(p.label)) top.set(p.label, p.id);
    for (const label of labels) {
      const t = top.get(label);
      if (t === undefined || !targets.has(t) || idOfLabel.get(label) === t) continue;
      if (idOfLabel.has(label)) continue;
      const to = destination(t);
      for (let i = 0; i < n; i++) if (groupOf[i] === label) groupOf[i] = to;
    }
    for (const [issue, d] of constraints.mergedMembers) {
      const i = indexOf.get(issue);
      if (i !== undefined && !pinned.has(i)) groupOf[i] = destination(constraints.resolve(d.target_pattern_id!));
    }
  }

  // 6. Pins, then cannot-links.
  const placements: PersonPlacement[] = [];
  const decided = new Map<number, Set<string>>();
  const note = (label: number, decisionId: string) => {
    if (!decided.has(label)) decided.set(label, new Set());
    decided.get(label)!.add(decisionId);
  };
  // In decision order (constraints.pins), as the merges and keep-aparts below, not by snapshot position.
  for (const [i, pin] of pinned) {
    if (pin.pattern_id === null) {
      placements.push({ issue_id: issueIds[i], pattern_id: null, decision_id: pin.decision.id, kind: 'move' });
      continue;
    }
    groupOf[i] = destination(pin.pattern_id);
    note(groupOf[i], pin.decision.id);
    placements.push({ issue_id: issueIds[i], pattern_id: pin.pattern_id, decision_id: pin.decision.id, kind: 'move' });
  }
  for (const [issue, d] of constraints.mergedMembers) {
    const i = indexOf.get(issue);
    if (i === undefined || groupOf[i] === NONE || idOfLabel.get(groupOf[i]) !== constraints.resolve(d.target_pattern_id!)) continue;
    note(groupOf[i], d.id);
    placements.push({ issue_id: issue, pattern_id: idOfLabel.get(groupOf[i])!, decision_id: d.id, kind: 'merge' });
  }
  for (const d of constraints.apart) {
    const [a, b] = d.issue_ids.map((id) => indexOf.get(id));
    if (a === undefined || b === undefined || groupOf[a] === NONE || groupOf[a] !== groupOf[b]) continue;
    const pa = pinned.has(a) && pinned.get(a)!.pattern_id !== null;
    const pb = pinned.has(b) && pinned.get(b)!.pattern_id !== null;
    // The one not pinned there leaves, else the second named (as the decision did at once).
    const leaves = pa !== pb ? (pa ? b : a) : b;
    groupOf[leaves] = NONE;
    placements.push({ issue_id: issueIds[leaves], pattern_id: null, decision_id: d.id, kind: 'keep_apart' });
  }

  // 7. Groups, new ids, lineage.
  const finalMembers = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    if (groupOf[i] === NONE) continue;
    if (!finalMembers.has(groupOf[i])) finalMembers.set(groupOf[i], []);
    finalMembers.get(groupOf[i])!.push(i);
  }
  const groups: IdentityGroup[] = [];
  for (const [label, members] of [...finalMembers].sort((a, b) => a[0] - b[0])) {
    let id = idOfLabel.get(label);
    if (id === undefined && members.length < 2) continue;
    const memberIds = members.map((i) => issueIds[i]);
    id ??= input.newId([...memberIds].sort()[0]);
    const prev = previousMembers.get(id);
    let match_score: number | null = null;
    if (prev) {
      let inter = 0;
      for (const m of memberIds) if (prev.has(m)) inter++;
      match_score = Math.round((inter / (memberIds.length + prev.size - inter)) * 1e6) / 1e6;
    }
    groups.push({ label, members, id, previous_id: prev ? id : null, match_score, decisions: [...(decided.get(label) ?? [])].sort() });
  }
  const finalIdOf = new Map<number, string>();
  for (const g of groups) for (const i of g.members) finalIdOf.set(i, g.id);
  const alive = new Set(groups.map((g) => g.id));

  const lineage: LineageEntry[] = [];
  // Merges by a person, reported by the first run after the decision (while the source is a previous pattern).
  for (const [source, d] of [...constraints.merges].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    if (!previousMembers.has(source)) continue;
    const to = constraints.resolve(source);
    let issues = 0;
    for (const m of previousMembers.get(source)!) if (indexOf.has(m) && finalIdOf.get(indexOf.get(m)!) === to) issues++;
    lineage.push({ kind: 'merge', from: source, to: [to], by: 'person', decision_id: d.id, issues });
  }
  // Merges by the engine and splits, from where the previous members went.
  const wentTo = new Map<string, Map<string, number>>();
  for (const [id, members] of previousMembers) {
    const counts = new Map<string, number>();
    for (const m of members) {
      const i = indexOf.get(m);
      const to = i === undefined ? undefined : finalIdOf.get(i);
      if (to !== undefined) counts.set(to, (counts.get(to) ?? 0) + 1);
    }
    wentTo.set(id, counts);
  }
  for (const [id, members] of [...previousMembers].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    if (constraints.merges.has(id)) continue;
    const counts = wentTo.get(id)!;
    const surviving = [...members].filter((m) => indexOf.has(m)).length;
    const ranked = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    if (!alive.has(id)) {
      if (ranked.length && 2 * ranked[0][1] >= surviving)
        lineage.push({ kind: 'merge', from: id, to: [ranked[0][0]], by: 'engine', decision_id: null, issues: ranked[0][1] });
      continue;
    }
    const successors = ranked.filter(([to, count]) => to !== id && !previousMembers.has(to) && count >= 2);
    if (!successors.length) continue;
    lineage.push({
      kind: 'split',
      from: id,
      to: [id, ...successors.map(([to]) => to)],
      by: 'engine',
      decision_id: null,
      issues: successors.reduce((s, [, c]) => s + c, 0),
    });
  }
  return { groups, lineage, person_placements: placements };
}
