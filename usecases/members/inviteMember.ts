/**
 * POST /v1/invitations: inviting someone by e-mail with a role the caller may grant
 * (domain/memberRoles.ts). A pending invitation to the same address is replaced; the e-mail is sent
 * by a background job committed with the invitation.
 */
import type { AppContext } from '../../lib/context.ts';
import { withTransaction } from '../../lib/db.ts';
import { AppError } from '../../lib/errors.ts';
import { canGrant, type Role } from '../../domain/memberRoles.ts';
import { auditActor, recordAudit } from '../../sql/audit.ts';
import * as invitations from '../../sql/invitations.ts';
import * as users from '../../sql/users.ts';
import { findWorkspace } from '../../sql/workspaces.ts';
import { actingRole, type MemberActor } from './memberActor.ts';
import { createInvitation } from './createInvitation.ts';

export async function inviteMember(
  app: AppContext,
  actor: MemberActor,
  email: string,
  role: Role,
): Promise<{ invitation: invitations.InvitationRow; url: string }> {
  return withTransaction(app.pool, async (client) => {
    const acting = await actingRole(client, actor);
    if (!canGrant(acting, role)) throw new AppError('forbidden', `A ${acting} cannot invite a ${role}`);
    const existing = await users.findUserByEmail(client, email);
    if (existing && (await users.findMembership(client, actor.workspaceId, existing.id))) throw new AppError('conflict', `${email} is already a member`);
    await invitations.revokePendingInvitations(client, actor.workspaceId, email);
    const workspace = (await findWorkspace(client, actor.workspaceId))!;
    const created = await createInvitation(app, client, {
      workspaceId: workspace.id,
      workspaceName: workspace.name,
      email,
      role,
      invitedBy: actor.userId,
    });
    await recordAudit(client, {
      workspaceId: actor.workspaceId,
      action: 'invitation.created',
      ...auditActor(actor),
      targetType: 'invitation',
      targetId: created.invitation.id,
      clientIp: actor.clientIp,
      metadata: { email, role },
    });
    return created;
  });
}

/** DELETE /v1/invitations/{id}: only a pending invitation can be revoked (409 otherwise). */
export async function revokeInvitation(app: AppContext, actor: MemberActor, invitationId: string): Promise<invitations.InvitationRow> {
  return withTransaction(app.pool, async (client) => {
    const found = await invitations.findInvitation(client, actor.workspaceId, invitationId);
    if (!found) throw new AppError('not_found', 'Invitation not found');
    const revoked = await invitations.revokeInvitation(client, actor.workspaceId, invitationId);
    if (!revoked) throw new AppError('conflict', `Invitation is ${found.status}; only pending invitations can be revoked`);
    await recordAudit(client, {
      workspaceId: actor.workspaceId,
      action: 'invitation.revoked',
      ...auditActor(actor),
      targetType: 'invitation',
      targetId: revoked.id,
      clientIp: actor.clientIp,
    });
    return revoked;
  });
}
