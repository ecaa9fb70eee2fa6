/**
 * PATCH /remediation/caps/{id}: an edit applies only to the version it was based on (rule 1, checked
 * under the CAP's row lock: of two concurrent edits based on one version the second waits, then sees
 * the new version and gets 409), moves the status only as the workflow lets an edit, and entering
 * `submitted` opens a review (domain/capWorkflow.ts). Run inside the tenant's transaction.
 */
import type { Queryable } from '../../lib/db.ts';
import { notFound } from '../../lib/errors.ts';
import { assertCurrentVersion, assertNotFinal, assertTransition, requestsReview } from '../../domain/capWorkflow.ts';
import { assertOwner, CAP_NOT_FOUND, findCap, updateCapRow, type CapChanges, type CapRow } from '../../sql/tenant/caps.ts';
import { insertReview } from '../../sql/tenant/reviews.ts';
import { recordUserChange, type TenantUserActor } from '../../sql/tenant/audit.ts';

export async function editCap(db: Queryable, id: string, expectedVersion: number, changes: CapChanges, actor: TenantUserActor): Promise<CapRow> {
  const cap = await findCap(db, id, true);
  if (!cap) throw notFound(CAP_NOT_FOUND);
  assertCurrentVersion(cap.version, expectedVersion);
  const to = changes.status ?? cap.status;
  if (to !== cap.status) assertTransition(cap.status, to, 'edit');
  else assertNotFinal(cap.status);
  if (changes.ownerUserId !== undefined) await assertOwner(db, changes.ownerUserId);

  const { updated, diff } = await updateCapRow(db, cap, to, changes);
  await recordUserChange(db, actor, 'cap_updated', { type: 'cap', id: updated.id }, { version: updated.version, changes: diff });
  if (to !== cap.status && requestsReview(to)) {
    const review = await insertReview(db, updated, actor.userId);
    await recordUserChange(db, actor, 'review_requested', { type: 'review', id: review.id }, { cap_id: updated.id, cap_version: updated.version });
  }
  return updated;
}
