/**
 * What a SCIM request acts with (the token's workspace and organization), the audit row each SCIM
 * change writes (actor `system`, `scim_token:<id>`), and keeping a provisioned user's membership in
 * line with their SCIM state.
 */
import type { PoolClient } from '../../lib/db.ts';
import { ScimError } from '../../domain/scim/errors.ts';
import { recordAudit } from '../../sql/audit.ts';
import * as scim from '../../sql/scim.ts';
import * as users from '../../sql/users.ts';

export interface ScimScope {
  workspaceId: string;
  /** The organization whose accounts this token manages (and no other). */
  organizationId: string;
  tokenId: string;
  /** `{base_url}/scim/v2/{tenant}`, for meta.location. */
  base: string;
  clientIp: string;
}

export const scimAudit = (db: PoolClient, scope: ScimScope, action: string, targetType: string, targetId: string, metadata: Record<string, unknown> = {}) =>
  recordAudit(db, {
    workspaceId: scope.workspaceId,
    action,
    actorType: 'system',
    actorId: `scim_token:${scope.tokenId}`,
    targetType,
    targetId,
    clientIp: scope.clientIp,
    metadata,
  });

/**
 * Brings the membership in line with the provisioned user: active → member with the group role;
 * inactive → none. `groupsChanged`: their group memberships just changed, so a user left in no group
 * falls back to `member` (leaving the Admins group takes admin away); otherwise a user in no group
 * keeps the role they have. An owner stays owner.
 */
export async function syncMembership(db: PoolClient, workspaceId: string, row: scim.ScimUserRow, revokeReason: string, groupsChanged = false): Promise<void> {
  const membership = await users.findMembership(db, workspaceId, row.user_id);
  if (!row.active) {
    if (membership) {
      if (membership.role === 'owner' && (await users.lockOwners(db, workspaceId)).length <= 1) {
        throw new ScimError(400, "The workspace's last owner cannot be deactivated through SCIM", 'mutability');
      }
      await users.deleteMembership(db, workspaceId, row.user_id);
    }
    await scim.revokeUserSignIns(db, workspaceId, row.user_id, revokeReason);
    return;
  }
  const groupRole = await scim.groupRoleOf(db, row.id);
  if (!membership) return void (await users.ensureMembership(db, workspaceId, row.user_id, groupRole ?? 'member'));
  const role = groupRole ?? (groupsChanged ? 'member' : null);
  if (role && membership.role !== 'owner' && membership.role !== role) await users.updateMembershipRole(db, workspaceId, row.user_id, role);
}
