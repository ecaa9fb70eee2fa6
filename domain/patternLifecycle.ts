/** The lifecycle of a pattern: its statuses and the rule every engine run applies to them. Pure. */

export const patternStatuses = ['active', 'resolved', 'watching'] as const;
export type PatternStatus = (typeof patternStatuses)[number];

/**
 * A pattern's lifecycle, decided by every run that writes patterns:
 * - `active`: the run found the pattern and some member issue is open or in progress, or the
 *   verification of its implemented fix regressed (a recurrence makes a watched or resolved pattern
 *   active again);
 * - `watching`: every member issue is resolved or closed but the fix verification does not hold yet
 *   (no implemented fix, or not enough data), or the run no longer found the pattern (0 issues):
 *   watched for a recurrence, never `active` with zero issues;
 * - `resolved`: every member is resolved or closed and the fix verification holds (CUSUM `holding`),
 *   or the pattern was already watched with zero issues and a second run still does not find it.
 */
export function lifecycleStatus(
  current: PatternStatus | null,
  found: { memberStatuses: string[]; verdict: string | null } | null,
  currentCount: number,
): PatternStatus {
  if (!found) return current === 'resolved' || (current === 'watching' && currentCount === 0) ? 'resolved' : 'watching';
  if (found.verdict === 'regressed' || found.memberStatuses.some((s) => s === 'open' || s === 'in_progress')) return 'active';
  return found.verdict === 'holding' ? 'resolved' : 'watching';
}

/** What the run decides from: a pattern as stored before the run. */
export interface StoredPattern {
  status: PatternStatus;
  issue_count: number;
}

/** A pattern as the run found it. */
export interface FoundPattern {
  id: string;
  member_ids: string[];
  issue_count: number;
}

/**
 * The status of every pattern a run touches: each pattern it found and each stored pattern it did not
 * find, by `lifecycleStatus`. A member issue the run did not read as eligible counts as `open`.
 */
export function runPatternStatuses(
  found: readonly FoundPattern[],
  stored: ReadonlyMap<string, StoredPattern>,
  issueStatuses: ReadonlyMap<string, string>,
  verdicts: ReadonlyMap<string, string>,
): Map<string, PatternStatus> {
  const statuses = new Map<string, PatternStatus>();
  for (const p of found) {
    const memberStatuses = p.member_ids.map((id) => issueStatuses.get(id) ?? 'open');
    statuses.set(p.id, lifecycleStatus(stored.get(p.id)?.status ?? null, { memberStatuses, verdict: verdicts.get(p.id) ?? null }, p.issue_count));
  }
  for (const [id, row] of stored) if (!statuses.has(id)) statuses.set(id, lifecycleStatus(row.status, null, row.issue_count));
  return statuses;
}
