/**
 * POST /v1/auth/exchange: deny by default. A verified upstream identity yields a token only through
 * (1) an existing membership (its linked identity, or a first sign-in whose verified e-mail matches a
 * member), or (2) just-in-time provisioning that a workspace explicitly enabled for the identity's
 * verified e-mail domain. Invitations become memberships when accepted (POST /v1/invitations/accept).
 * Everything else is 403 with an `auth.login.denied` audit event. No other path creates a user.
 */
import type { AppContext } from '../../../lib/context.ts';
import { withTransaction } from '../../../lib/db.ts';
import { AppError } from '../../../lib/errors.ts';
import { recordAudit } from '../../../sql/audit.ts';
import * as users from '../../../sql/users.ts';
import { findWorkspace, jitWorkspacesForDomain } from '../../../sql/workspaces.ts';
import { verifySubjectToken, type VerifiedIdentity } from './identityProvider.ts';
import type { Role } from './roles.ts';
import { signInBlocked, type SignInPolicyInput } from './signInPolicy.ts';
import { issueTokenPair, type TokenPair } from './tokenPairs.ts';

export async function exchangeSubjectToken(
  app: AppContext,
  subjectToken: string,
  workspaceId: string | undefined,
  clientIp: string,
  mfaCode?: string,
): Promise<TokenPair> {
  const identity = await verifySubjectToken(app, subjectToken);
  return signInIdentity(app, identity, workspaceId, clientIp, { method: 'exchange', mfaCode });
}

/** Exchange rule 1 for a verified identity (from a subject token or an SSO connection), then the sign-in policy. */
export async function signInIdentity(
  app: AppContext,
  identity: VerifiedIdentity,
  workspaceId: string | undefined,
  clientIp: string,
  policy: SignInPolicyInput,
): Promise<TokenPair> {
  const outcome = await withTransaction(app.pool, async (client) => {
    const grant = async (userId: string, grantedWorkspaceId: string, role: Role) => {
      const blocked = await signInBlocked(app, client, (await findWorkspace(client, grantedWorkspaceId))!, userId, policy, clientIp);
      if (blocked) return { kind: 'blocked' as const, error: blocked };
      return { kind: 'granted' as const, pair: await issueTokenPair(app, client, userId, grantedWorkspaceId, role, clientIp, policy.method) };
    };
    let user = await users.findUserentity(client, identity.issuer, identity.subject);
    if (!user && identity.email && identity.emailVerified) {
      const byEmail = await users.findUserByEmail(client, identity.email);
      if (byEmail && (await users.membershipsOfUser(client, byEmail.id)).length) {
        await users.linkIdentity(client, byEmail.id, identity.issuer, identity.subject);
        user = byEmail;
      }
    }
    if (user) {
      const memberships = await users.membershipsOfUser(client, user.id);
      const membership = workspaceId ? memberships.find((m) => m.workspace_id === workspaceId) : memberships[0];
      if (membership) return grant(user.id, membership.workspace_id, membership.role);
    }
    const jit = await justInTime(client, identity, workspaceId);
    if (jit) {
      const blocked = await signInBlocked(app, client, jit, null, policy, clientIp);
      if (blocked) return { kind: 'blocked' as const, error: blocked };
      const { user: created } = await users.upsertUserByEmail(client, identity.email!, identity.name ?? identity.email!.split('@')[0]);
      await users.linkIdentity(client, created.id, identity.issuer, identity.subject);
      const { membership } = await users.ensureMembership(client, jit.id, created.id, jit.jit_role);
      await recordAudit(client, {
        workspaceId: jit.id,
        action: 'auth.jit_provisioned',
        actorType: 'identity',
        actorId: `${identity.issuer}#${identity.subject}`,
        targetType: 'user',
        targetId: created.id,
        clientIp,
        metadata: { email: identity.email, role: membership.role },
      });
      return grant(created.id, jit.id, membership.role as Role);
    }
    return { kind: 'denied' as const };
  });
  if (outcome.kind === 'granted') return outcome.pair;
  if (outcome.kind === 'blocked') throw outcome.error;
  // Attributed to the workspace the caller asked for when it exists, so that its admins see it.
  const requested = workspaceId ? await findWorkspace(app.pool, workspaceId).catch(() => null) : null;
  await recordAudit(app.pool, {
    workspaceId: requested?.id ?? null,
    action: 'auth.login.denied',
    actorType: 'identity',
    actorId: `${identity.issuer}#${identity.subject}`,
    clientIp,
    metadata: { email: identity.email, email_verified: identity.emailVerified, requested_workspace_id: workspaceId ?? null },
  });
  throw new AppError('forbidden', 'This identity is not a member of any workspace');
}

async function justInTime(client: Parameters<typeof jitWorkspacesForDomain>[0], identity: VerifiedIdentity, workspaceId: string | undefined) {
  if (!identity.email || !identity.emailVerified) return null;
  const domain = identity.email.split('@')[1];
  if (!domain) return null;
  const candidates = await jitWorkspacesForDomain(client, domain);
  return (workspaceId ? candidates.find((w) => w.id === workspaceId) : candidates[0]) ?? null;
}
