/** Creating a workspace invitation: the hashed token, the link and its e-mail, on one transaction. */
import { randomToken, sha256Hex } from '../../lib/crypto.ts';
import type { AppContext } from '../../lib/context.ts';
import type { Queryable } from '../../lib/db.ts';
import { queueMail } from '../../jobs/queue/mail__send.ts';
import { enqueueNotifications } from '../../jobs/queue/notification__route.ts';
import { insertInvitation, type InvitationRow } from '../../sql/invitations.ts';
import { INVITATION_TTL_MS } from '../../domain/invitations.ts';

/** Link the e-mail carries; the console posts the token to POST /v1/invitations/accept. */
export const invitationUrl = (app: AppContext, token: string) => `${app.config.APP_URL}/platform/accept-invite?token=${encodeURIComponent(token)}`;

export async function createInvitation(
  app: AppContext,
  db: Queryable,
  invite: { workspaceId: string; workspaceName: string; email: string; role: string; invitedBy: string | null },
): Promise<{ invitation: InvitationRow; url: string }> {
  const token = randomToken(32, 'svc_inv_');
  const invitation = await insertInvitation(db, {
    workspaceId: invite.workspaceId,
    email: invite.email,
    role: invite.role,
    tokenHash: sha256Hex(token),
    invitedBy: invite.invitedBy,
    expiresAt: new Date(app.clock.now().getTime() + INVITATION_TTL_MS),
  });
  const url = invitationUrl(app, token);
  await queueMail(db, {
    to: invite.email,
    subject: `You are invited to ${invite.workspaceName} on svc`,
    text: `You have been invited to join the workspace "${invite.workspaceName}" as ${invite.role}.\n\nAccept the invitation: ${url}\n\nThe link expires in 7 days.`,
    workspaceId: invite.workspaceId,
  });
  await enqueueNotifications(db, { source: 'invitation', workspace_id: invite.workspaceId, invitation_id: invitation.id });
  return { invitation, url };
}
