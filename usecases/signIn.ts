/**
 * Signing in (POST /v1/auth/exchange, the SSO callbacks): deny by default. A verified upstream identity yields a token only through
 * (1) an existing membership (its linked identity, or a first sign-in whose verified e-mail matches a
 * member the identity's issuer may speak for: userByVerifiedEmail), or (2) just-in-time provisioning that a workspace explicitly enabled for the identity's
 * verified e-mail domain. Invitations become memberships when accepted (POST /v1/invitations/accept).
 * Everything else is 403 with an `auth.login.denied` audit event. No other path creates a user.
 */
import type { AppContext } from '../lib/context.ts';
import { withTransaction, type Queryable } from '../lib/db.ts';
import { AppError } from '../lib/errors.ts';
import { recordAudit } from '../sql/audit.ts';
import * as users from '../sql/users.ts';
import { organizationOfConnection } from '../sql/sso.ts';
import { verifiedDomainOrganization } from '../sql/workspaceDomains.ts';
import { findWorkspace, jitWorkspacesForDomain } from '../sql/workspaces.ts';
import type { Role } from '../domain/memberRoles.ts';
import { signInBlocked, type SignInPolicyInput } from './signInPolicy.ts';
import { issueTokenPair, type TokenPair } from './tokenPairs.ts';

/** An identity an identity provider vouched for: the platform's (api/platform/auth/identityProvider.ts) or an SSO connection's. */
export interface VerifiedIdentity {
  issuer: string;
  /** Null for the platform identity provider; the SSO connection that asserted the identity otherwise (its namespace of identity links). */
  connectionId: string | null;
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
}

/**
 * Exchange rule 1 for a verified identity (from a subject token or an SSO connection), then the
 * sign-in policy. One transaction: a refused sign-in writes nothing but its audit row and the MFA
 * attempt counters (a first-sign-in link or a JIT account is only written when a token is issued).
 */
export async function signInIdentity(
  app: AppContext,
  identity: VerifiedIdentity,
  workspaceId: string | undefined,
  clientIp: string,
  policy: SignInPolicyInput,
): Promise<TokenPair> {
  const outcome = await withTransaction(app.pool, async (client) => {
    const grant = async (userId: string, grantedWorkspaceId: string, role: Role, link: boolean) => {
      const blocked = await signInBlocked(app, client, (await findWorkspace(client, grantedWorkspaceId))!, userId, policy, clientIp);
      if (blocked) return { kind: 'blocked' as const, error: blocked };
      if (link) await users.linkIdentity(client, userId, identity);
      return { kind: 'granted' as const, pair: await issueTokenPair(app, client, userId, grantedWorkspaceId, role, clientIp, policy.method) };
    };
    const linked = await users.findLinkedUser(client, identity);
    const user = linked ?? (await userByVerifiedEmail(client, identity));
    if (user) {
      const memberships = await users.membershipsOfUser(client, user.id);
      const membership = workspaceId ? memberships.find((m) => m.workspace_id === workspaceId) : memberships[0];
      if (membership) return grant(user.id, membership.workspace_id, membership.role, !linked);
    }
    const jit = await justInTime(client, identity, workspaceId);
    if (jit) {
      const blocked = await signInBlocked(app, client, jit, null, policy, clientIp);
      if (blocked) return { kind: 'blocked' as const, error: blocked };
      const name = identity.name ?? identity.email!.split('@')[0];
      // Through an SSO connection the account is the organization's own; through the platform's identity provider a global one.
      const { user: created } = identity.connectionId
        ? await users.upsertManagedUser(client, jit.organization_id, identity.email!, name)
        : await users.upsertUserByEmail(client, identity.email!, name);
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
      return grant(created.id, jit.id, membership.role as Role, true);
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

/**
 * First sign-in of an unlinked identity by its verified e-mail (docs/decisions.md, "Tenant isolation
 * of identity"). Through an SSO connection (whose e-mails count as verified only inside its
 * organization's verified domains): the organization's managed account with that address, else the
 * global one (which must then be a member of the connection's workspace to be signed in). Through
 * the platform identity provider: the global account with memberships, else the account managed by
 * the organization that verified the address's domain. Never another organization's managed account.
 */
async function userByVerifiedEmail(client: Queryable, identity: VerifiedIdentity): Promise<users.UserRow | null> {
  if (!identity.email || !identity.emailVerified) return null;
  if (identity.connectionId) {
    const organizationId = await organizationOfConnection(client, identity.connectionId);
    if (!organizationId) return null;
    return (await users.findManagedUserByEmail(client, organizationId, identity.email)) ?? (await users.findUserByEmail(client, identity.email));
  }
  const global = await users.findUserByEmail(client, identity.email);
  if (global && (await users.membershipsOfUser(client, global.id)).length) return global;
  const domainOwner = await verifiedDomainOrganization(client, identity.email.split('@')[1] ?? '');
  return domainOwner ? users.findManagedUserByEmail(client, domainOwner, identity.email) : null;
}

async function justInTime(client: Queryable, identity: VerifiedIdentity, workspaceId: string | undefined) {
  if (!identity.email || !identity.emailVerified) return null;
  const domain = identity.email.split('@')[1];
  if (!domain) return null;
  const candidates = await jitWorkspacesForDomain(client, domain);
  return (workspaceId ? candidates.find((w) => w.id === workspaceId) : candidates[0]) ?? null;
}
