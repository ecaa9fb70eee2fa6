/**
 * PATCH /v1/members/{user_id}: changing a member's role under the grant and last-owner rules of
 * domain/memberRoles.ts. The workspace's owners are locked first, so two demotions cannot both see
 * another owner left.
 */
import type { AppContext } from '../../lib/context.ts';
import { withTransaction } from '../../lib/db.ts';
import { AppError } from '../../lib/errors.ts';
import { isUuid } from '../../lib/ids.ts';
import { roleChangeRefusal, type Role } from '../../domain/memberRoles.ts';
import { auditActor, recordAudit } from '../../sql/audit.ts';
import * as users from '../../sql/users.ts';
import { actingRole, type MemberActor } from './actingRole.ts';

export const memberNotFound = () => new AppError('not_found', 'Member not found');

export interface ChangedMember {
  user_id: string;
  membership_id: string;
  email: string;
  name: string;
  role: Role;
  created_at: Date;
}

export async function changeMemberRole(app: AppContext, actor: MemberActor, userId: string, role: Role): Promise<ChangedMember> {
  return withTransaction(app.pool, async (client) => {
    if (!isUuid(userId)) throw memberNotFound();
    const owners = await users.lockOwners(client, actor.workspaceId);
    const current = await users.findMembership(client, actor.workspaceId, userId);
    if (!current) throw memberNotFound();
    const refused = roleChangeRefusal(await actingRole(client, actor), current.role as Role, role, owners.length);
    if (refused) throw refused;
    const updated = (await users.updateMembershipRole(client, actor.workspaceId, userId, role))!;
    await recordAudit(client, {
      workspaceId: actor.workspaceId,
      action: 'member.role_changed',
      ...auditActor(actor),
      targetType: 'user',
      targetId: userId,
      clientIp: actor.clientIp,
      metadata: { from: current.role, to: role },
    });
    const user = (await users.findUser(client, userId))!;
    return {
      user_id: updated.user_id,
      membership_id: updated.id,
      email: user.email,
      name: user.name,
      role: updated.role as Role,
      created_at: updated.created_at,
    };
  });
}
