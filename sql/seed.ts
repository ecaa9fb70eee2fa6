/**
 * Development seed (AUTH_PROVIDER=none outside production): organization `demo`, its workspace and
 * owner, linked to the identity that the `none` provider returns for every subject token.
 * Idempotent: runs at every start.
 */
import { withTransaction, type Pool } from '../lib/db.ts';
import type { Logger } from '../lib/logger.ts';
import { ensureMembership, linkIdentity, upsertUserByEmail } from './users.ts';
import { findOrganizationBySlug, firstWorkspaceOfOrganization, insertOrganization, insertWorkspace } from './workspaces.ts';

export const DEMO = { slug: 'demo', organization: 'Demo', workspace: 'Demo workspace', email: 'demo@svc.local', name: 'Demo Owner' };
export const DEV_IDENTITY = { issuer: 'svc:dev', subject: 'demo-owner' };

export async function seedDevelopmentData(pool: Pool, logger: Logger): Promise<{ workspaceId: string; userId: string }> {
  return withTransaction(pool, async (client) => {
    await client.query('select pg_advisory_xact_lock(7305118002)');
    const org =
      (await findOrganizationBySlug(client, DEMO.slug)) ?? (await insertOrganization(client, { slug: DEMO.slug, name: DEMO.organization, plan: 'free' }))!;
    const workspace = (await firstWorkspaceOfOrganization(client, org.id)) ?? (await insertWorkspace(client, org.id, DEMO.workspace));
    const { user, created } = await upsertUserByEmail(client, DEMO.email, DEMO.name);
    await ensureMembership(client, workspace.id, user.id, 'owner');
    await linkIdentity(client, user.id, { ...DEV_IDENTITY, connectionId: null });
    if (created) logger.info('seeded demo organization', { organization: org.slug, workspace_id: workspace.id, owner: user.email });
    return { workspaceId: workspace.id, userId: user.id };
  });
}
