/**
 * POST /v1/invitations/accept: a pending, unexpired invitation becomes a membership for the identity
 * presenting it (with AUTH_PROVIDER=oidc only a verified e-mail equal to the invited address; in
 * development the invited address is trusted), then the sign-in follows the workspace's policy
 * (usecases/signInPolicy.ts): the membership stands even when SSO or a second factor refuses the token pair.
 */
import type { AppContext } from '../../lib/context.ts';
import { sha256Hex } from '../../lib/crypto.ts';
import { withTransaction } from '../../lib/db.ts';
import { AppError } from '../../lib/errors.ts';
import type { Role } from '../../domain/memberRoles.ts';
import { recordAudit } from '../../sql/audit.ts';
import * as invitations from '../../sql/invitations.ts';
import * as users from '../../sql/users.ts';
import { findWorkspace } from '../../sql/workspaces.ts';
import type { VerifiedIdentity } from '../signIn.ts';
import { signInBlocked } from '../signInPolicy.ts';
import { issueTokenPair, type TokenPair } from '../tokenPairs.ts';

export async function acceptInvitation(app: AppContext, identity: VerifiedIdentity, invitationToken: string, clientIp: string): Promise<TokenPair> {
  const outcome = await withTransaction(app.pool, async (client) => {
    const invitation = await invitations.lockInvitationByTokenHash(client, sha256Hex(invitationToken));
    if (!invitation) throw new AppError('not_found', 'Invitation not found');
    if (invitation.status !== 'pending') throw new AppError('conflict', `Invitation is ${invitation.status}`);
    if (invitation.expires_at <= app.clock.now()) throw new AppError('conflict', 'Invitation has expired');
    const oidc = app.config.AUTH_PROVIDER === 'oidc';
    if (oidc && (!identity.emailVerified || identity.email?.toLowerCase() !== invitation.email.toLowerCase())) {
      throw new AppError('forbidden', 'The signed-in identity is not the invited e-mail address');
    }
    const { user } = await users.upsertUserByEmail(client, invitation.email, identity.name ?? invitation.email.split('@')[0]);
    if (oidc) await users.linkIdentity(client, user.id, identity);
    const { membership } = await users.ensureMembership(client, invitation.workspace_id, user.id, invitation.role);
    await invitations.markInvitationAccepted(client, invitation.id, user.id);
    await recordAudit(client, {
      workspaceId: invitation.workspace_id,
      action: 'invitation.accepted',
      actorType: 'user',
      actorId: user.id,
      targetType: 'invitation',
      targetId: invitation.id,
      clientIp,
      metadata: { role: membership.role },
    });
    // The membership stands; the sign-in itself follows the workspace's policy (SSO, MFA).
    const blocked = await signInBlocked(app, client, (await findWorkspace(client, invitation.workspace_id))!, user.id, { method: 'exchange' }, clientIp);
    if (blocked) return { blocked };
    return { pair: await issueTokenPair(app, client, user.id, invitation.workspace_id, membership.role as Role, clientIp) };
  });
  if ('blocked' in outcome) throw outcome.blocked;
  return outcome.pair;
}
