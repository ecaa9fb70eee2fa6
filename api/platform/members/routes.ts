/**
 * Members and invitations of the caller's workspace: list members with roles, change a role, remove
 * a member, invite by e-mail with a role, list and revoke invitations, and accept one (public: the
 * invitee signs in with the identity provider and presents the invitation token).
 */
import { z } from 'zod';
import { roles, type Role } from '../../../domain/memberRoles.ts';
import type * as invitations from '../../../sql/invitations.ts';
import { invitationList } from '../../../sql/invitations.ts';
import * as users from '../../../sql/users.ts';
import { acceptInvitation } from '../../../usecases/members/acceptInvitation.ts';
import { changeMemberRole } from '../../../usecases/members/changeMemberRole.ts';
import { inviteMember, revokeInvitation } from '../../../usecases/members/inviteMember.ts';
import { removeMember } from '../../../usecases/members/removeMember.ts';
import { reply } from '../../http/routes.ts';
import { verifySubjectToken } from '../auth/identityProvider.ts';
import { tokenPairSchema } from '../auth/routes.ts';
import { listQuery, listResponse, paginate } from '../pagination.ts';
import { workspaceActor } from '../principal.ts';
import { platformRoute } from '../route.ts';

const roleSchema = z.enum(roles, { error: `must be one of ${roles.join(', ')}` });

const memberSchema = z.object({
  user_id: z.string(),
  membership_id: z.string(),
  email: z.string(),
  name: z.string(),
  role: roleSchema,
  joined_at: z.string(),
});
const invitationSchema = z.object({
  id: z.string(),
  email: z.string(),
  role: roleSchema,
  status: z.enum(['pending', 'accepted', 'revoked', 'expired']),
  expires_at: z.string(),
  accepted_at: z.string().nullable(),
  created_at: z.string(),
});

type MemberRow = { user_id: string; membership_id: string; email: string; name: string; role: Role; created_at: Date };
const toMember = (r: MemberRow) => ({
  user_id: r.user_id,
  membership_id: r.membership_id,
  email: r.email,
  name: r.name,
  role: r.role,
  joined_at: r.created_at.toISOString(),
});
const toInvitation = (r: invitations.InvitationRow, now: Date) => ({
  id: r.id,
  email: r.email,
  role: r.role,
  status: r.status === 'pending' && r.expires_at <= now ? ('expired' as const) : r.status,
  expires_at: r.expires_at.toISOString(),
  accepted_at: r.accepted_at?.toISOString() ?? null,
  created_at: r.created_at.toISOString(),
});

const memberParams = z.object({ user_id: z.string() });

export const memberRoutes = [
  platformRoute({
    method: 'get',
    path: '/v1/members',
    operationId: 'listMembers',
    summary: 'List members of the workspace with their roles',
    tags: ['members'],
    scope: 'members:read',
    query: listQuery({ role: roleSchema.optional() }, ['joined_at', 'email'], 'joined_at'),
    responses: { 200: { description: 'A page of members', schema: listResponse(memberSchema) } },
    handler: async ({ query, principal, app }) => {
      return reply.ok(
        await paginate(app.pool, users.memberList(principal.workspaceId, query), { query, cursorKey: app.secrets.cursorKey }, (row) =>
          toMember(row as unknown as MemberRow),
        ),
      );
    },
  }),
  platformRoute({
    method: 'patch',
    path: '/v1/members/{user_id}',
    operationId: 'updateMemberRole',
    summary: "Change a member's role",
    description: 'Admins manage admins, members and viewers; only owners grant or take away the owner role. The last owner cannot be demoted.',
    tags: ['members'],
    scope: 'members:write',
    params: memberParams,
    body: z.object({ role: roleSchema }),
    responses: {
      200: { description: 'The member', schema: memberSchema },
      403: { description: 'The caller may not grant or change this role' },
      404: { description: 'Not a member of this workspace' },
      409: { description: 'Would leave the workspace without an owner' },
    },
    handler: async ({ params, body, principal, app, req }) =>
      reply.ok(toMember(await changeMemberRole(app, workspaceActor(principal, req.clientIp), params.user_id, body.role))),
  }),
  platformRoute({
    method: 'delete',
    path: '/v1/members/{user_id}',
    operationId: 'removeMember',
    summary: 'Remove a member (their tokens stop working at once)',
    tags: ['members'],
    scope: 'members:write',
    params: memberParams,
    responses: {
      204: { description: 'Removed' },
      403: { description: 'The caller may not remove this member' },
      404: { description: 'Not a member' },
      409: { description: 'Would remove the last owner' },
    },
    handler: async ({ params, principal, app, req }) => {
      await removeMember(app, workspaceActor(principal, req.clientIp), params.user_id);
      return reply.noContent();
    },
  }),
];

export const invitationRoutes = [
  platformRoute({
    method: 'post',
    path: '/v1/invitations',
    operationId: 'createInvitation',
    summary: 'Invite someone by e-mail with a role (the e-mail is sent by a background job)',
    description: 'A pending invitation to the same address is replaced. The link is also returned once, in `url`.',
    tags: ['members'],
    scope: 'members:write',
    body: z.object({ email: z.email({ error: 'must be an e-mail address' }).transform((e) => e.toLowerCase()), role: roleSchema.default('member') }),
    responses: {
      201: { description: 'The invitation', schema: invitationSchema.extend({ url: z.string() }) },
      403: { description: 'The caller may not grant this role' },
      409: { description: 'Already a member' },
    },
    handler: async ({ body, principal, app, req }) => {
      const { invitation, url } = await inviteMember(app, workspaceActor(principal, req.clientIp), body.email, body.role);
      return reply.created({ ...toInvitation(invitation, app.clock.now()), url });
    },
  }),
  platformRoute({
    method: 'get',
    path: '/v1/invitations',
    operationId: 'listInvitations',
    summary: 'List invitations of the workspace',
    tags: ['members'],
    scope: 'members:read',
    query: listQuery(
      { status: z.enum(['pending', 'accepted', 'revoked'], { error: 'must be one of pending, accepted, revoked' }).optional() },
      ['created_at'],
      '-created_at',
    ),
    responses: { 200: { description: 'A page of invitations', schema: listResponse(invitationSchema) } },
    handler: async ({ query, principal, app }) => {
      const now = app.clock.now();
      return reply.ok(
        await paginate(app.pool, invitationList(principal.workspaceId, query), { query, cursorKey: app.secrets.cursorKey }, (row) =>
          toInvitation(row as invitations.InvitationRow, now),
        ),
      );
    },
  }),
  platformRoute({
    method: 'delete',
    path: '/v1/invitations/{id}',
    operationId: 'revokeInvitation',
    summary: 'Revoke a pending invitation',
    tags: ['members'],
    scope: 'members:write',
    params: z.object({ id: z.string() }),
    responses: {
      200: { description: 'The revoked invitation', schema: invitationSchema },
      404: { description: 'Not found' },
      409: { description: 'Not pending' },
    },
    handler: async ({ params, principal, app, req }) =>
      reply.ok(toInvitation(await revokeInvitation(app, workspaceActor(principal, req.clientIp), params.id), app.clock.now())),
  }),
  platformRoute({
    method: 'post',
    path: '/v1/invitations/accept',
    operationId: 'acceptInvitation',
    summary: 'Accept an invitation with an identity-provider token; answers a token pair',
    description:
      'With AUTH_PROVIDER=oidc the identity must carry a verified e-mail equal to the invited address. With AUTH_PROVIDER=none (development) the invited address is trusted.',
    tags: ['members'],
    auth: 'public',
    body: z.object({ invitation_token: z.string().min(1, 'must not be empty'), subject_token: z.string().min(1, 'must not be empty') }),
    responses: {
      200: { description: 'Token pair for the new member', schema: tokenPairSchema },
      401: { description: 'The subject token cannot be verified (`invalid_grant`)' },
      403: {
        description:
          'The identity is not the invited address (`forbidden`); the membership was created but the workspace requires SSO (`sso_required`) or the user a second factor (`mfa_required`)',
      },
      404: { description: 'Unknown invitation token' },
      409: { description: 'The invitation is not pending or has expired' },
    },
    handler: async ({ body, app, req }) => {
      const identity = await verifySubjectToken(app, body.subject_token);
      return reply.ok(await acceptInvitation(app, identity, body.invitation_token, req.clientIp));
    },
  }),
];
