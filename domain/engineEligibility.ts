/**
 * Whether an issue record may enter clustering: the engine statuses and the rule that assigns them
 * on ingest and on every narrative change. Pure: no I/O; the time it was received is passed in.
 */
export const engineStatuses = ['eligible', 'blocked_no_narrative', 'ineligible'] as const;
export type EngineStatus = (typeof engineStatuses)[number];

/** Narratives that say nothing ("n/a", "tbd", "---"): present, but nothing to cluster on. */
const PLACEHOLDERS = new Set(['n/a', 'na', 'none', 'null', 'nil', 'tbd', 'todo', 'unknown', 'no description', 'see title', '-', '.']);
/** How far in the future an occurrence may lie (clock skew) before the record is ineligible. */
export const FUTURE_TOLERANCE_MS = 24 * 60 * 60 * 1000;

/**
 * Engine eligibility of a record:
 * - `blocked_no_narrative`: no narrative (absent, empty or whitespace). Accepted, queued for review,
 *   never clustered until a narrative is supplied.
 * - `ineligible`: a narrative is present but unusable: a placeholder or text without a single word
 *   character, or an `occurred_at` more than 24 hours after it was received (a clock or data error
 *   the hazard model must not see). Stored and listed, never clustered.
 * - `eligible`: everything else; enters clustering on the next engine run.
 */
export function engineEligibility(narrative: string | null, occurredAt: Date | null, receivedAt: Date): { status: EngineStatus; reason: string | null } {
  const text = narrative?.trim() ?? '';
  if (!text) return { status: 'blocked_no_narrative', reason: 'narrative missing' };
  if (PLACEHOLDERS.has(text.toLowerCase()) || !/[\p{L}\p{N}]/u.test(text)) return { status: 'ineligible', reason: 'narrative is a placeholder' };
  if (occurredAt && occurredAt.getTime() > receivedAt.getTime() + FUTURE_TOLERANCE_MS) {
    return { status: 'ineligible', reason: 'occurred_at is more than 24 hours in the future' };
  }
  return { status: 'eligible', reason: null };
}
