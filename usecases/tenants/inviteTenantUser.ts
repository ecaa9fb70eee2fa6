/**
 * Inviting a user into a provisioned tenant (POST /admin/tenants/{tenant_id}/invite): a pending
 * invitation (7 days) and, in the same transaction, the e-mail job carrying the link
 * `<APP_URL>/accept-invite?workspace=<slug>&token=<token>`. The token is never returned or stored, only its hash.
 */
import type { AppContext } from '../../lib/context.ts';
import { randomToken, sha256Hex } from '../../lib/crypto.ts';
import { withTransaction } from '../../lib/db.ts';
import { queueMail } from '../../jobs/queue/mail__send.ts';
import { insertTenantInvitation, type TenantInvitationRow } from '../../sql/tenant/invitations.ts';
import { useTenantSchema } from '../../sql/tenant/schema.ts';
import type { TenantRow } from '../../sql/tenants.ts';
import { requireProvisionedTenant } from './requireTenant.ts';
import { INVITATION_TTL_MS } from '../../domain/invitations.ts';

const acceptInviteUrl = (app: AppContext, slug: string, token: string) =>
  `${app.config.APP_URL}/accept-invite?workspace=${encodeURIComponent(slug)}&token=${encodeURIComponent(token)}`;

function invitationMail(app: AppContext, tenant: TenantRow, email: string, role: string, token: string) {
  const url = acceptInviteUrl(app, tenant.slug, token);
  return {
    to: email,
    subject: `You are invited to ${tenant.company} on svc`,
    text:
      `You have been invited to the ${tenant.company} workspace (${tenant.slug}) on svc as ${role}.\n\n` +
      `Accept the invitation and choose your password: ${url}\n\nThe link expires in 7 days.`,
    tenantId: tenant.id,
  };
}

export async function inviteTenantUser(
  app: AppContext,
  tenantId: string,
  invite: { email: string; roleProfile: string; fullName: string | null },
  invitedBy: string,
): Promise<TenantInvitationRow> {
  const tenant = await requireProvisionedTenant(app.pool, tenantId);
  const token = randomToken(32);
  return withTransaction(app.pool, async (client) => {
    await queueMail(client, invitationMail(app, tenant, invite.email, invite.roleProfile, token));
    await useTenantSchema(client, tenant.schema_name);
    return insertTenantInvitation(client, {
      email: invite.email,
      fullName: invite.fullName,
      roleProfile: invite.roleProfile,
      tokenHash: sha256Hex(token),
      invitedBy,
      expiresAt: new Date(app.clock.now().getTime() + INVITATION_TTL_MS),
    });
  });
}
