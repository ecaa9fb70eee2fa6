/**
 * POST /remediation/caps: a tenant user opens a draft CAP on a target that exists, owned by an active
 * user, or gets the open CAP on the same target with the same problem statement (or title) back
 * unchanged (rule 3: no new row, no audit entry). Run inside the tenant's transaction (`withTenant`).
 */
import type { Queryable } from '../../lib/db.ts';
import { assertOwner, assertTarget, insertCap, type CapRow, type NewCap } from '../../sql/tenant/caps.ts';
import { recordUserChange, type TenantUserActor } from '../../sql/tenant/audit.ts';

export async function createCap(db: Queryable, cap: NewCap, actor: TenantUserActor): Promise<{ cap: CapRow; created: boolean }> {
  await assertTarget(db, cap.targetType, cap.targetId);
  await assertOwner(db, cap.ownerUserId);
  const result = await insertCap(db, cap, actor.userId);
  if (result.created) {
    const row = result.cap;
    await recordUserChange(
      db,
      actor,
      'cap_created',
      { type: 'cap', id: row.id },
      { status: row.status, title: row.title, target_type: cap.targetType, target_id: cap.targetId },
    );
  }
  return result;
}
