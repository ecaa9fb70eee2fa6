/**
 * PATCH /remediation/reviews/{id}: a review is decided exactly once (rule 2) and its decision moves the
 * CAP to `approved` or `rejected` (domain/capWorkflow.ts), under row locks taken review first, then
 * CAP: of two concurrent decisions the second waits, then finds it decided (409). Run inside the
 * tenant's transaction.
 */
import type { Queryable } from '../../lib/db.ts';
import { notFound } from '../../lib/errors.ts';
import { assertTransition, assertUndecided } from '../../domain/capWorkflow.ts';
import { findCap, setCapStatus, type CapRow } from '../../sql/tenant/caps.ts';
import { lockReview, recordDecision, REVIEW_NOT_FOUND, type ReviewDecision, type ReviewRow } from '../../sql/tenant/reviews.ts';
import { recordUserChange, type TenantUserActor } from '../../sql/tenant/audit.ts';

export async function decideReview(
  db: Queryable,
  id: string,
  decision: ReviewDecision,
  comment: string | null,
  actor: TenantUserActor,
): Promise<{ review: ReviewRow; cap: CapRow }> {
  const review = await lockReview(db, id);
  if (!review) throw notFound(REVIEW_NOT_FOUND);
  assertUndecided(review.decision);
  const cap = (await findCap(db, review.cap_id, true))!;
  assertTransition(cap.status, decision, 'review');
  const decided = await recordDecision(db, review.id, decision, comment, actor.userId);
  await recordUserChange(db, actor, 'review_decided', { type: 'review', id: decided.id }, { cap_id: cap.id, decision, comment });
  const moved = await setCapStatus(db, cap.id, decision);
  await recordUserChange(
    db,
    actor,
    'cap_updated',
    { type: 'cap', id: moved.id },
    { version: moved.version, changes: { status: { from: cap.status, to: decision } } },
  );
  return { review: decided, cap: moved };
}
