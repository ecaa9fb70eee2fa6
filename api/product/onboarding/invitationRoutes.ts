/**
 * Invitations: staff invite a user into a tenant (an opaque token whose SHA-256 alone is stored,
 * valid 7 days, mailed by the `mail__send` job as `<APP_URL>/accept-invite?workspace=<slug>&token=<token>`)
 * and list them; POST /accept-invite (public, CSRF-exempt, login rate limited) creates or updates the
 * user on (tenant, email), grants the invitation's role profile, marks it accepted and signs in.
 */
import { z } from 'zod';
import { acceptTenantInvitation, INVITATION_INVALID } from '../../../usecases/tenants/acceptInvitation.ts';
import { inviteTenantUser } from '../../../usecases/tenants/inviteTenantUser.ts';
import { MIN_PASSWORD_LENGTH } from '../../../lib/passwords.ts';
import { roleProfileNames } from '../../../sql/tenant/roles.ts';
import { listTenantInvitations, type TenantInvitationRow } from '../../../sql/tenant/invitations.ts';
import { withTenant } from '../../../sql/tenant/schema.ts';
import { reply } from '../../http/routes.ts';
import { setSessionCookies, TENANT_COOKIE } from '../cookies.ts';
import { detailSchema } from '../errors.ts';
import { productRoute } from '../route.ts';
import { sessionOrigin, tenantMeSchema } from '../session/identity.ts';
import { requireTenant, tenantParams } from '../tenants/lookup.ts';
import { iso } from '../../../lib/isoTimestamp.ts';
import { hasOnboardingSchema } from '../../../usecases/tenants/requireTenant.ts';

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
      const invitation = await inviteTenantUser(
        app,
        params.tenant_id,
        { email: body.email, roleProfile: body.role_profile, fullName: body.full_name ?? null },
        staff.employeeId,
      );
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
      const minted = await acceptTenantInvitation(
        app,
        { workspace: body.workspace, token: body.token, password: body.password, fullName: body.full_name },
        req.clientIp,
        sessionOrigin(req),
      );
      setSessionCookies(app, req, res, TENANT_COOKIE, minted.cookie);
      return reply.ok(minted.me);
    },
  }),
];
