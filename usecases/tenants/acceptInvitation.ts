/**
 * Accepting a tenant invitation (POST /accept-invite): a pending, unexpired invitation of a
 * provisioned tenant (else 400) creates the user, or updates the one with the same e-mail, grants the
 * invitation's role profile, marks it accepted and opens a session like a login. Rate limited like the
 * logins: the account budget is the invitation's e-mail; an unknown token spends the IP budget only.
 */
import type { AppContext } from '../../lib/context.ts';
import { sha256Hex } from '../../lib/crypto.ts';
import { AppError } from '../../lib/errors.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { isProvisioned } from '../../domain/tenantLifecycle.ts';
import { recordTenantAudit } from '../../sql/tenant/audit.ts';
import { findTenantInvitationByTokenHash, markTenantInvitationAccepted } from '../../sql/tenant/invitations.ts';
import { withTenant } from '../../sql/tenant/schema.ts';
import { revokeAllTenantSessions } from '../../sql/tenant/sessions.ts';
import { grantRoleProfile, upsertTenantUser } from '../../sql/tenant/users.ts';
import { findTenantBySlug, type TenantRow } from '../../sql/tenants.ts';
import { enforceLoginRateLimit, tenantAccountKey } from '../loginRateLimit.ts';
import { mintTenantSession, type MintedTenantSession, type SessionOrigin } from '../tenantSessions.ts';

export const INVITATION_INVALID = 'This invitation is not pending or has expired.';

/** The tenant of an accept-invite request: one that exists and is onboarding or live. */
async function invitingTenant(app: AppContext, slug: string): Promise<TenantRow | null> {
  const tenant = await findTenantBySlug(app.pool, slug);
  return tenant && isProvisioned(tenant.lifecycle_state) ? tenant : null;
}

export async function acceptTenantInvitation(
  app: AppContext,
  input: { workspace: string; token: string; password: string; fullName?: string },
  clientIp: string,
  from: SessionOrigin,
): Promise<MintedTenantSession> {
  const tenant = await invitingTenant(app, input.workspace);
  const tokenHash = sha256Hex(input.token);
  const invited = tenant && (await withTenant(app.pool, tenant.schema_name, (db) => findTenantInvitationByTokenHash(db, tokenHash)));
  await enforceLoginRateLimit(app, clientIp, tenant && invited ? tenantAccountKey(tenant.id, invited.email) : null);
  if (!tenant || !invited) throw new AppError('bad_request', INVITATION_INVALID);
  const passwordHash = await hashPassword(input.password);
  return withTenant(app.pool, tenant.schema_name, async (db) => {
    const invitation = await findTenantInvitationByTokenHash(db, tokenHash, true);
    if (!invitation || invitation.status !== 'pending' || invitation.expires_at <= app.clock.now()) throw new AppError('bad_request', INVITATION_INVALID);
    const user = await upsertTenantUser(db, { email: invitation.email, passwordHash, fullName: input.fullName ?? invitation.full_name });
    // An existing user's password was just replaced: their other sessions end, as after a reset.
    await revokeAllTenantSessions(db, user.id, app.clock.now());
    await grantRoleProfile(db, user.id, invitation.role_profile);
    await markTenantInvitationAccepted(db, invitation.id, user.id, app.clock.now());
    await recordTenantAudit(db, {
      action: 'invitation_accepted',
      actorType: 'user',
      actorId: user.id,
      resourceType: 'invitation',
      resourceId: invitation.id,
      clientIp: from.ip,
      metadata: { role_profile: invitation.role_profile },
    });
    return mintTenantSession(app, db, from, tenant, user);
  });
}
