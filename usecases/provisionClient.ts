/**
 * Provisioning a client (POST /v1/provisioning/clients): organization, workspace, owner and
 * membership, an optional one-time workspace API key (the scopes of domain/memberRoles.ts
 * `provisionedApiKeyScopes`) and an owner invite link, in one transaction. A repeat for the same slug
 * and owner answers `created: false` with `api_key: null`; the slug of another owner is 409.
 */
import type { AppContext } from '../lib/context.ts';
import { randomToken, sha256Hex } from '../lib/crypto.ts';
import { withTransaction, type PoolClient } from '../lib/db.ts';
import { AppError } from '../lib/errors.ts';
import { API_KEY_PREFIX } from '../domain/credentials.ts';
import { provisionedApiKeyScopes } from '../domain/memberRoles.ts';
import { insertApiKey } from '../sql/apiKeys.ts';
import { recordAudit } from '../sql/audit.ts';
import { latestPendingInvitation } from '../sql/invitations.ts';
import * as users from '../sql/users.ts';
import * as workspaces from '../sql/workspaces.ts';
import { createInvitation } from './members/createInvitation.ts';

export const plans = ['free', 'starter', 'growth', 'enterprise'] as const;
export type Plan = (typeof plans)[number];

export interface ProvisionClientInput {
  organization: { name: string; slug: string; plan: Plan; seats?: number; timezone?: string };
  workspace?: { name?: string };
  owner: { email: string; name?: string };
  issue_api_key: boolean;
  send_owner_invite: boolean;
}

export interface ProvisionedClient {
  created: boolean;
  organization: { id: string; slug: string; name: string; plan: Plan };
  workspace: { id: string; name: string };
  owner: { user_id: string; membership_id: string; email: string; role: 'owner' };
  api_key: { id: string; secret: string; scopes: string[]; note: string } | null;
  owner_invite: { id: string; url: string | null; expires_at: string } | null;
}

async function existingClient(client: PoolClient, org: workspaces.OrganizationRow, ownerEmail: string): Promise<ProvisionedClient> {
  const workspace = await workspaces.firstWorkspaceOfOrganization(client, org.id);
  const owner = workspace ? await users.findOwnerByEmail(client, workspace.id, ownerEmail) : null;
  if (!workspace || !owner) throw new AppError('conflict', `Organization slug '${org.slug}' is already provisioned for a different owner`);
  const invite = await latestPendingInvitation(client, workspace.id, ownerEmail);
  return {
    created: false,
    organization: { id: org.id, slug: org.slug, name: org.name, plan: org.plan },
    workspace: { id: workspace.id, name: workspace.name },
    owner: { ...owner, role: 'owner' },
    api_key: null,
    owner_invite: invite ? { id: invite.id, url: null, expires_at: invite.expires_at.toISOString() } : null,
  };
}

export async function provisionClient(app: AppContext, body: ProvisionClientInput, clientIp: string): Promise<ProvisionedClient> {
  return withTransaction(app.pool, async (client) => {
    const org = await workspaces.insertOrganization(client, body.organization);
    if (!org) {
      const existing = (await workspaces.findOrganizationBySlug(client, body.organization.slug))!;
      return existingClient(client, existing, body.owner.email);
    }
    const workspace = await workspaces.insertWorkspace(client, org.id, body.workspace?.name ?? org.name);
    const { user } = await users.upsertUserByEmail(client, body.owner.email, body.owner.name ?? body.owner.email.split('@')[0]);
    const { membership } = await users.ensureMembership(client, workspace.id, user.id, 'owner');

    let apiKey: ProvisionedClient['api_key'] = null;
    if (body.issue_api_key) {
      const secret = randomToken(32, API_KEY_PREFIX);
      const note = 'Initial workspace API key issued at provisioning';
      const row = await insertApiKey(client, workspace.id, note, sha256Hex(secret), provisionedApiKeyScopes);
      apiKey = { id: row.id, secret, scopes: row.scopes, note };
    }
    let ownerInvite: ProvisionedClient['owner_invite'] = null;
    if (body.send_owner_invite) {
      const { invitation, url } = await createInvitation(app, client, {
        workspaceId: workspace.id,
        workspaceName: workspace.name,
        email: user.email,
        role: 'owner',
        invitedBy: null,
      });
      ownerInvite = { id: invitation.id, url, expires_at: invitation.expires_at.toISOString() };
    }
    await recordAudit(client, {
      workspaceId: workspace.id,
      action: 'client.provisioned',
      actorType: 'provisioning_key',
      targetType: 'organization',
      targetId: org.id,
      clientIp,
      metadata: { slug: org.slug, plan: org.plan, owner: user.email, api_key_issued: Boolean(apiKey), owner_invite_sent: Boolean(ownerInvite) },
    });
    return {
      created: true,
      organization: { id: org.id, slug: org.slug, name: org.name, plan: org.plan },
      workspace: { id: workspace.id, name: workspace.name },
      owner: { user_id: user.id, membership_id: membership.id, email: user.email, role: 'owner' },
      api_key: apiKey,
      owner_invite: ownerInvite,
    };
  });
}
