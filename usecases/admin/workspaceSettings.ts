/**
 * Changing a workspace's settings (name, just-in-time provisioning, MFA and SSO requirements):
 * requiring SSO needs an SSO connection first (409: nobody could sign in). Audited in the same
 * transaction with the request's fields as metadata.
 */
import type { AppContext } from '../../lib/context.ts';
import { withTransaction } from '../../lib/db.ts';
import { AppError } from '../../lib/errors.ts';
import { connectionsOfWorkspace } from '../../sql/sso.ts';
import { updateWorkspaceSettings, type WorkspaceRow } from '../../sql/workspaces.ts';
import { recordActorAudit, type WorkspaceActor } from '../workspaceActor.ts';

export interface WorkspaceSettingsChanges {
  name?: string;
  jit_provisioning?: { enabled?: boolean; domains?: string[]; role?: string };
  mfa_required?: boolean;
  sso_required?: boolean;
}

export async function changeWorkspaceSettings(app: AppContext, actor: WorkspaceActor, changes: WorkspaceSettingsChanges): Promise<WorkspaceRow> {
  return withTransaction(app.pool, async (client) => {
    if (changes.sso_required && !(await connectionsOfWorkspace(client, actor.workspaceId)).length) {
      throw new AppError('conflict', 'Create an SSO connection before requiring SSO: nobody could sign in');
    }
    const updated = await updateWorkspaceSettings(client, actor.workspaceId, {
      name: changes.name,
      jit_enabled: changes.jit_provisioning?.enabled,
      jit_domains: changes.jit_provisioning?.domains ? [...new Set(changes.jit_provisioning.domains)] : undefined,
      jit_role: changes.jit_provisioning?.role,
      mfa_required: changes.mfa_required,
      sso_required: changes.sso_required,
    });
    await recordActorAudit(client, actor, 'workspace.updated', { type: 'workspace', id: actor.workspaceId }, { ...changes });
    return updated;
  });
}
