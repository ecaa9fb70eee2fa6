/**
 * Invitations: staff invite a user into a tenant (an opaque token whose SHA-256 alone is stored,
 * valid 7 days, mailed by the `mail__send` job as `<APP_URL>/accept-invite?workspace=<slug>&token=<token>`)
 * and list them; POST /accept-invite (public, CSRF-exempt, login rate limited) creates or updates the
 * user on (tenant, email), grants the invitation's role profile, marks it accepted and signs in.
 */
import { z } from 'zod';
import type { AppContext } from '../../../lib/context.ts';
import { randomToken, sha256Hex } from '../../../lib/crypto.ts';
import { withTransaction } from '../../../lib/db.ts';
import { AppError } from '../../../lib/errors.ts';
import { hashPassword, MIN_PASSWORD_LENGTH } from '../../../lib/passwords.ts';
import { queueMail } from '../../../jobs/queue/mail__send.ts';
import { roleProfileNames } from '../../../sql/tenant/roles.ts';
import { recordTenantAudit } from '../../../sql/tenant/audit.ts';
import {
  insertTenantInvitation,
  listTenantInvitations,
  findTenantInvitationByTokenHash,
  markTenantInvitationAccepted,
  type TenantInvitationRow,
} from '../../../sql/tenant/invitations.ts';
import { findTenantBySlug, type TenantRow } from '../../../sql/tenants.ts';
import { useTenantSchema, withTenant } from '../../../sql/tenant/schema.ts';
import { revokeAllTenantSessions } from '../../../sql/tenant/sessions.ts';
import { grantRoleProfile, upsertTenantUser } from '../../../sql/tenant/users.ts';
import { reply } from '../../http/routes.ts';
import { setSessionCookies, TENANT_COOKIE } from '../cookies.ts';
import { detailSchema } from '../errors.ts';
import { productRoute } from '../route.ts';
import { mintTenantSession } from '../../../usecases/tenantSessions.ts';
import { requestIp, sessionOrigin, tenantMeSchema } from '../session/identity.ts';
import { enforceLoginRateLimit, tenantAccountKey } from '../../../usecases/loginRateLimit.ts';
import { requireTenant, tenantParams } from '../tenants/lookup.ts';
import { iso } from './iso.ts';
import { hasOnboardingSchema, requireProvisionedTenant } from '../../../usecases/tenants/requireTenant.ts';
import { isProvisioned } from '../../../domain/tenantLifecycle.ts';

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
const INVITATION_INVALID = 'This invitation is not pending or has expired.';

const invitationSchema = z
  .object({
    id: z.uuid(),
    email: z.string(),
    full_name: z.string().nullable(),
    role_profile: z.enum(roleProfileNames),
    status: z.enum(['pending', 'accepted']),
    expired: z.boolean().describe('A pending invitation past expires_at can no longer be accepted'),
    expires_at: z.iso.datetime(),
    created_at: z.iso.datetime(),
    accepted_at: z.iso.datetime().nullable(),
  })
  .meta({ title: 'Invitation' });

const invitationBody = (i: TenantInvitationRow, now: Date): z.output<typeof invitationSchema> => ({
  id: i.id,
  email: i.email,
  full_name: i.full_name,
  role_profile: i.role_profile as z.output<typeof invitationSchema>['role_profile'],
  status: i.status,
  expired: i.status === 'pending' && i.expires_at <= now,
  expires_at: iso(i.expires_at)!,
  created_at: iso(i.created_at)!,
  accepted_at: iso(i.accepted_at),
});

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

/** The tenant of an accept-invite request: one that exists and is onboarding or live. */
async function invitingTenant(app: AppContext, slug: string): Promise<TenantRow | null> {
  const tenant = await findTenantBySlug(app.pool, slug);
  return tenant && isProvisioned(tenant.lifecycle_state) ? tenant : null;
}

export const invitationRoutes = [
  productRoute({
    method: 'post',
    path: '/admin/tenants/{tenant_id}/invite',
    operationId: 'invite_user',
    summary: 'Invite a user into the tenant',
    description:
      'Creates a pending invitation (7 days) and, in the same transaction, the e-mail job carrying the link ' +
      '`<APP_URL>/accept-invite?workspace=<slug>&token=<token>`. The token is never returned or stored, only its hash.',
    tags: ['onboarding'],
    auth: 'staff',
    params: tenantParams,
    body: z.strictObject({
      email: z
        .email()
        .max(320)
        .transform((e) => e.toLowerCase()),
      role_profile: z.enum(roleProfileNames),
      full_name: z.string().trim().min(1).max(200).optional(),
    }),
    responses: {
      201: { description: 'The invitation (the e-mail is on its way)', schema: invitationSchema },
      404: { description: 'Tenant not found.', schema: detailSchema },
      409: { description: 'The tenant is not provisioned yet', schema: detailSchema },
    },
    handler: async ({ app, params, body, staff }) => {
      const tenant = await requireProvisionedTenant(app.pool, params.tenant_id);
      const token = randomToken(32);
      const invitation = await withTransaction(app.pool, async (client) => {
        await queueMail(client, invitationMail(app, tenant, body.email, body.role_profile, token));
        await useTenantSchema(client, tenant.schema_name);
        return insertTenantInvitation(client, {
          email: body.email,
          fullName: body.full_name ?? null,
          roleProfile: body.role_profile,
          tokenHash: sha256Hex(token),
          invitedBy: staff.employeeId,
          expiresAt: new Date(app.clock.now().getTime() + INVITATION_TTL_MS),
        });
      });
      return reply.created(invitationBody(invitation, app.clock.now()));
    },
  }),
  productRoute({
    method: 'get',
    path: '/admin/tenants/{tenant_id}/invitations',
    operationId: 'list_invitations',
    summary: 'The tenant’s invitations, newest first (unpaginated)',
    tags: ['onboarding'],
    auth: 'staff',
    params: tenantParams,
    responses: {
      200: { description: 'Invitations', schema: z.array(invitationSchema) },
      404: { description: 'Tenant not found.', schema: detailSchema },
    },
    handler: async ({ app, params }) => {
      const tenant = await requireTenant(app.pool, params.tenant_id);
      if (!(await hasOnboardingSchema(app.pool, tenant))) return reply.ok([]);
      const now = app.clock.now();
      return reply.ok((await withTenant(app.pool, tenant.schema_name, listTenantInvitations)).map((i) => invitationBody(i, now)));
    },
  }),
  productRoute({
    method: 'post',
    path: '/accept-invite',
    operationId: 'accept_invite',
    summary: 'Accept an invitation: set a password and sign in',
    description:
      'Needs a pending, unexpired invitation of the workspace (else 400). Creates the user, or updates the one with the ' +
      'same e-mail in that workspace, grants the invitation’s role profile, marks it accepted and signs in like POST /login ' +
      '(both cookies). Rate limited like the logins. The session works once the workspace is live.',
    tags: ['authentication'],
    auth: 'public',
    csrfExempt: true,
    body: z.object({
      workspace: z.string().trim().min(1).max(63).describe('The tenant slug'),
      token: z.string().min(1).max(200),
      password: z.string().min(MIN_PASSWORD_LENGTH).max(1024),
      full_name: z.string().trim().min(1).max(200).optional(),
    }),
    responses: {
      200: { description: 'Signed in', schema: tenantMeSchema },
      400: { description: INVITATION_INVALID, schema: detailSchema },
      429: { description: 'Too many login attempts. Try again later.', schema: detailSchema },
    },
    handler: async ({ app, req, res, body }) => {
      const tenant = await invitingTenant(app, body.workspace);
      const tokenHash = sha256Hex(body.token);
      // The account budget is the invitation's e-mail; an unknown token spends the IP budget only.
      const invited = tenant && (await withTenant(app.pool, tenant.schema_name, (db) => findTenantInvitationByTokenHash(db, tokenHash)));
      await enforceLoginRateLimit(app, req.clientIp, tenant && invited ? tenantAccountKey(tenant.id, invited.email) : null);
      if (!tenant || !invited) throw new AppError('bad_request', INVITATION_INVALID);
      const passwordHash = await hashPassword(body.password);
      const minted = await withTenant(app.pool, tenant.schema_name, async (db) => {
        const invitation = await findTenantInvitationByTokenHash(db, tokenHash, true);
        if (!invitation || invitation.status !== 'pending' || invitation.expires_at <= app.clock.now()) throw new AppError('bad_request', INVITATION_INVALID);
        const user = await upsertTenantUser(db, { email: invitation.email, passwordHash, fullName: body.full_name ?? invitation.full_name });
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
          clientIp: requestIp(req),
          metadata: { role_profile: invitation.role_profile },
        });
        return mintTenantSession(app, db, sessionOrigin(req), tenant, user);
      });
      setSessionCookies(app, req, res, TENANT_COOKIE, minted.cookie);
      return reply.ok(minted.me);
    },
  }),
];
