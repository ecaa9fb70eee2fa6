/**
 * PATCH /v1/members/{user_id}: changing a member's role under the grant and last-owner rules of
 * domain/memberRoles.ts.
 */
import type { AppContext } from '../../lib/context.ts';
import { withTransaction } from '../../lib/db.ts';
import { roleChangeRefusal, type Role } from '../../domain/memberRoles.ts';
import { auditActor, recordAudit } from '../../sql/audit.ts';
import * as users from '../../sql/users.ts';
import { lockMemberChange, type MemberActor } from './memberActor.ts';

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
    const { current, acting, ownerCount } = await lockMemberChange(client, actor, userId);
    const refused = roleChangeRefusal(acting, current.role, role, ownerCount);
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
