/**
 * The invariants of an issue: severity vocabulary, engine eligibility and status transitions
 * (CONTRACT: open -> in_progress -> resolved -> closed, resolved -> open, open|in_progress -> closed).
 */
export const severities = ['critical', 'high', 'medium', 'low'] as const;
export type Severity = (typeof severities)[number];
export const issueStatuses = ['open', 'in_progress', 'resolved', 'closed'] as const;
export type IssueStatus = (typeof issueStatuses)[number];
export const engineStatuses = ['eligible', 'blocked_no_narrative', 'ineligible'] as const;
export type EngineStatus = (typeof engineStatuses)[number];

/** Severity aliases accepted on input, stored normalised. */
const severityAliases: Record<string, Severity> = {
  critical: 'critical',
  p1: 'critical',
  sev1: 'critical',
  high: 'high',
  p2: 'high',
  sev2: 'high',
  medium: 'medium',
  p3: 'medium',
  sev3: 'medium',
  low: 'low',
  p4: 'low',
  sev4: 'low',
};
export const severityInputs = Object.keys(severityAliases);
export const DEFAULT_SEVERITY: Severity = 'medium';

export function normalizeSeverity(value: string): Severity | null {
  return severityAliases[value.trim().toLowerCase()] ?? null;
}

const transitions: Record<IssueStatus, readonly IssueStatus[]> = {
  open: ['in_progress', 'closed'],
  in_progress: ['resolved', 'closed'],
  resolved: ['closed', 'open'],
  closed: [],
};

export function canTransition(from: IssueStatus, to: IssueStatus): boolean {
  return transitions[from].includes(to);
}

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
