/**
 * People's corrections of the grouping as constraints every engine run respects (issue 31):
 * - `merge` {source_pattern_id → target_pattern_id, issue_ids = the source's members when decided}:
 *   the source's id resolves to the target's (transitively), and those members are must-linked to the
 *   target: their votes and anchors count for the target in every later run;
 * - `move` {issue_ids: [issue], target_pattern_id | null}: the issue is pinned to that pattern, or kept
 *   out of every pattern (null);
 * - `keep_apart` {issue_ids: [a, b]}: cannot-link: the two never share a pattern.
 * Only the decisions in force at the run's cut-off reach the engine (an undone decision is not one);
 * they are applied in decision order, so a later decision on the same issue wins. An undo since the
 * previous run arrives as `restore` {issue_ids, target_pattern_id}: what it put back is anchored where it
 * was put back (the previous run's patterns still hold them where the decision had put them).
 */

export const groupingDecisionKinds = ['merge', 'move', 'keep_apart'] as const;
export type GroupingDecisionKind = (typeof groupingDecisionKinds)[number];

export interface GroupingDecision {
  id: string;
  kind: GroupingDecisionKind | 'restore';
  source_pattern_id: string | null;
  target_pattern_id: string | null;
  issue_ids: string[];
  decided_at: string;
}

export interface Constraints {
  /** A pattern id through the merges in force (a merged pattern's id answers with its target's). */
  resolve(patternId: string): string;
  /** Merges in force: source → decision. */
  merges: Map<string, GroupingDecision>;
  /** Issue id → the merge decision that must-links it to the target (the source's members when decided). */
  mergedMembers: Map<string, GroupingDecision>;
  /** Issue id → its pinned pattern (null: out of every pattern) and the decision. */
  pins: Map<string, { pattern_id: string | null; decision: GroupingDecision }>;
  /** Cannot-link pairs in decision order. */
  apart: GroupingDecision[];
  /** Issue id → the pattern an undo since the previous run put it back in (null: none). */
  restored: Map<string, string | null>;
}

const byDecisionOrder = (a: GroupingDecision, b: GroupingDecision) =>
  a.decided_at < b.decided_at ? -1 : a.decided_at > b.decided_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

export function sortDecisions(decisions: readonly GroupingDecision[]): GroupingDecision[] {
  return [...decisions].sort(byDecisionOrder);
}

export function constraintsOf(decisions: readonly GroupingDecision[]): Constraints {
  const merges = new Map<string, GroupingDecision>();
  const pins = new Map<string, { pattern_id: string | null; decision: GroupingDecision }>();
  const mergedMembers = new Map<string, GroupingDecision>();
  const apart: GroupingDecision[] = [];
  const restored = new Map<string, string | null>();
  const resolve = (id: string): string => {
    const seen = new Set<string>();
    let at = id;
    while (merges.has(at) && !seen.has(at)) {
      seen.add(at);
      at = merges.get(at)!.target_pattern_id!;
    }
    return at;
  };
  for (const d of sortDecisions(decisions)) {
    if (d.kind === 'merge' && d.source_pattern_id && d.target_pattern_id) {
      // A merge that would close a loop (its target already resolves to its source) is ignored.
      if (resolve(d.target_pattern_id) === d.source_pattern_id) continue;
      merges.set(d.source_pattern_id, d);
      for (const issue of d.issue_ids) mergedMembers.set(issue, d);
    } else if (d.kind === 'move' && d.issue_ids.length === 1) {
      pins.set(d.issue_ids[0], { pattern_id: d.target_pattern_id, decision: d });
      mergedMembers.delete(d.issue_ids[0]);
    } else if (d.kind === 'keep_apart' && d.issue_ids.length === 2) apart.push(d);
    else if (d.kind === 'restore') for (const issue of d.issue_ids) restored.set(issue, d.target_pattern_id);
  }
  return { resolve, merges, mergedMembers, pins, apart, restored };
}
