/**
 * DELETE /v1/members/{user_id}: removing a member under the grant and last-owner rules of
 * domain/memberRoles.ts; their sign-ins in the workspace are revoked in the same transaction, so
 * their tokens stop working at once.
 */
import type { AppContext } from '../../lib/context.ts';
import { withTransaction } from '../../lib/db.ts';
import { removalRefusal } from '../../domain/memberRoles.ts';
import { auditActor, recordAudit } from '../../sql/audit.ts';
import { revokeUserFamilies } from '../../sql/tokenFamilies.ts';
import * as users from '../../sql/users.ts';
import { lockMemberChange, type MemberActor } from './memberActor.ts';

export async function removeMember(app: AppContext, actor: MemberActor, userId: string): Promise<void> {
  await withTransaction(app.pool, async (client) => {
    const { current, acting, ownerCount } = await lockMemberChange(client, actor, userId);
    const refused = removalRefusal(acting, current.role, ownerCount);
    if (refused) throw refused;
    await users.deleteMembership(client, actor.workspaceId, userId);
    await revokeUserFamilies(client, actor.workspaceId, userId, 'membership_removed');
    await recordAudit(client, {
      workspaceId: actor.workspaceId,
      action: 'member.removed',
      ...auditActor(actor),
      targetType: 'user',
      targetId: userId,
      clientIp: actor.clientIp,
      metadata: { role: current.role },
    });
  });
}
