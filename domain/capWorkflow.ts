/**
 * The CAP status workflow: the one declaration of the statuses and of who may move a CAP from one
 * to another. Routes, jobs and the export all ask this module; the migration's status check and
 * open-CAP index mirror `capStatuses` and `terminalStatuses`.
 *
 *   draft ──submit──> submitted ──review approves──> approved ──> in_progress ──> verified ──> closed
 *                          └──────review rejects──> rejected        ^               │
 *                                                                   └───reopen──────┘
 *   draft, approved, in_progress, verified ──> cancelled
 *
 * `submitted` is left only by deciding its review (PATCH /remediation/reviews/{id}); `closed`,
 * `rejected` and `cancelled` are terminal. An edit applies only to the version it was based on
 * (`assertCurrentVersion`), and a review is decided once (`assertUndecided`). Pure: no I/O.
 */
import { conflict } from '../lib/errors.ts';

export const capStatuses = ['draft', 'submitted', 'approved', 'in_progress', 'verified', 'closed', 'rejected', 'cancelled'] as const;
export type CapStatus = (typeof capStatuses)[number];

export const terminalStatuses: readonly CapStatus[] = ['closed', 'rejected', 'cancelled'];
export const isTerminal = (status: CapStatus) => terminalStatuses.includes(status);

/** Who moves a CAP: an edit (PATCH /remediation/caps/{id}) or a review decision. */
export type TransitionActor = 'edit' | 'review';

const transitions: Record<CapStatus, Partial<Record<CapStatus, TransitionActor>>> = {
  draft: { submitted: 'edit', cancelled: 'edit' },
  submitted: { approved: 'review', rejected: 'review' },
  approved: { in_progress: 'edit', cancelled: 'edit' },
  in_progress: { verified: 'edit', cancelled: 'edit' },
  verified: { closed: 'edit', in_progress: 'edit', cancelled: 'edit' },
  closed: {},
  rejected: {},
  cancelled: {},
};

/** The statuses `actor` may move a CAP in `from` to, in declaration order. */
export const nextStatuses = (from: CapStatus, actor: TransitionActor = 'edit'): CapStatus[] => capStatuses.filter((to) => transitions[from][to] === actor);

/** Moving into `submitted` asks for a review. */
export const requestsReview = (to: CapStatus) => to === 'submitted';

const quoted = (statuses: readonly string[]) => statuses.map((s) => `'${s}'`).join(', ');

/** A CAP in a final status cannot change at all (neither its status nor its fields). */
export function assertNotFinal(status: CapStatus): void {
  if (isTerminal(status)) throw conflict(`This CAP is '${status}', a final status; it can no longer change.`);
}

/** Throws the 409 that explains why `actor` may not move a CAP from `from` to `to`. */
export function assertTransition(from: CapStatus, to: CapStatus, actor: TransitionActor): void {
  if (transitions[from][to] === actor) return;
  assertNotFinal(from);
  if (actor === 'edit' && from === 'submitted') throw conflict(`This CAP is 'submitted': only a decision on its review moves it.`);
  if (actor === 'edit' && capStatuses.some((f) => transitions[f][to] === 'review')) throw conflict(`A CAP becomes '${to}' only by a decision on its review.`);
  if (actor === 'review') throw conflict(`This CAP is '${from}', not 'submitted'; its review can no longer move it.`);
  const allowed = nextStatuses(from, actor);
  throw conflict(`A CAP cannot move from '${from}' to '${to}'; from '${from}' it can move to ${quoted(allowed)}.`);
}

export const CAP_VERSION_MOVED = 'This CAP changed since you loaded it — refresh and retry.';
export const REVIEW_ALREADY_DECIDED = 'This review has already been decided.';

/** Rule 1: an edit based on `expected` applies only while the CAP is still at that version (409 otherwise). */
export function assertCurrentVersion(stored: number, expected: number): void {
  if (stored !== expected) throw conflict(CAP_VERSION_MOVED);
}

/** Rule 2: a review is decided exactly once (409 for the second decision). */
export function assertUndecided(decision: string | null): void {
  if (decision) throw conflict(REVIEW_ALREADY_DECIDED);
}
