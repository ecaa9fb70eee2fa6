/**
 * Members and invitations of the caller's workspace: list members with roles, change a role, remove
 * a member, invite by e-mail with a role, list and revoke invitations, and accept one (public: the
 * invitee signs in with the identity provider and presents the invitation token).
 */
import { z } from 'zod';
import { sha256Hex } from '../../../lib/crypto.ts';
import { withTransaction } from '../../../lib/db.ts';
import { AppError } from '../../../lib/errors.ts';
import { recordAudit } from '../../../sql/audit.ts';
import * as invitations from '../../../sql/invitations.ts';
import * as users from '../../../sql/users.ts';
import { revokeUserFamilies } from '../../../sql/tokenFamilies.ts';
import { findWorkspace } from '../../../sql/workspaces.ts';
import { reply } from '../../http/routes.ts';
import { verifySubjectToken } from '../auth/identityProvider.ts';
import { canGrant, roles, type Role } from '../../../domain/memberRoles.ts';
import { tokenPairSchema } from '../auth/routes.ts';
import { signInBlocked } from '../../../usecases/signInPolicy.ts';
import { issueTokenPair } from '../../../usecases/tokenPairs.ts';
import { listQuery, listResponse, paginate } from '../pagination.ts';
import type { Principal } from '../principal.ts';
import { platformRoute } from '../route.ts';
import { createInvitation } from './invitationMail.ts';
import { isUuid } from '../../../lib/ids.ts';

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

/** The role the caller acts with: a user's membership role; machine credentials act as admins. */
async function actingRole(db: Parameters<typeof users.findMembership>[0], principal: Principal): Promise<Role> {
  if (principal.kind !== 'user') return 'admin';
  const membership = await users.findMembership(db, principal.workspaceId, principal.userId!);
  return (membership?.role as Role | undefined) ?? 'viewer';
}

const actor = (p: Principal) => ({ actorType: p.kind, actorId: p.subjectId });
const memberParams = z.object({ user_id: z.string() });
const memberNotFound = () => new AppError('not_found', 'Member not found');

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
      withTransaction(app.pool, async (client) => {
        if (!isUuid(params.user_id)) throw memberNotFound();
        const owners = await users.lockOwners(client, principal.workspaceId);
        const current = await users.findMembership(client, principal.workspaceId, params.user_id);
        if (!current) throw memberNotFound();
        const role = await actingRole(client, principal);
        if (!canGrant(role, body.role) || !canGrant(role, current.role))
          throw new AppError('forbidden', `A ${role} cannot change a ${current.role} into a ${body.role}`);
        if (current.role === 'owner' && body.role !== 'owner' && owners.length <= 1)
          throw new AppError('conflict', 'The workspace must keep at least one owner');
        const updated = (await users.updateMembershipRole(client, principal.workspaceId, params.user_id, body.role))!;
        await recordAudit(client, {
          workspaceId: principal.workspaceId,
          action: 'member.role_changed',
          ...actor(principal),
          targetType: 'user',
          targetId: params.user_id,
          clientIp: req.clientIp,
          metadata: { from: current.role, to: body.role },
        });
        const user = (await users.findUser(client, params.user_id))!;
        return reply.ok(
          toMember({
            user_id: updated.user_id,
            membership_id: updated.id,
            email: user.email,
            name: user.name,
            role: updated.role,
            created_at: updated.created_at,
          }),
        );
      }),
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
    handler: async ({ params, principal, app, req }) =>
      withTransaction(app.pool, async (client) => {
        if (!isUuid(params.user_id)) throw memberNotFound();
        const owners = await users.lockOwners(client, principal.workspaceId);
        const current = await users.findMembership(client, principal.workspaceId, params.user_id);
        if (!current) throw memberNotFound();
        const role = await actingRole(client, principal);
        if (!canGrant(role, current.role)) throw new AppError('forbidden', `A ${role} cannot remove a ${current.role}`);
        if (current.role === 'owner' && owners.length <= 1) throw new AppError('conflict', 'The workspace must keep at least one owner');
        await users.deleteMembership(client, principal.workspaceId, params.user_id);
        await revokeUserFamilies(client, principal.workspaceId, params.user_id, 'membership_removed');
        await recordAudit(client, {
          workspaceId: principal.workspaceId,
          action: 'member.removed',
          ...actor(principal),
          targetType: 'user',
          targetId: params.user_id,
          clientIp: req.clientIp,
          metadata: { role: current.role },
        });
        return reply.noContent();
      }),
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
    handler: async ({ body, principal, app, req }) =>
      withTransaction(app.pool, async (client) => {
        const role = await actingRole(client, principal);
        if (!canGrant(role, body.role)) throw new AppError('forbidden', `A ${role} cannot invite a ${body.role}`);
        const existing = await users.findUserByEmail(client, body.email);
        if (existing && (await users.findMembership(client, principal.workspaceId, existing.id)))
          throw new AppError('conflict', `${body.email} is already a member`);
        await invitations.revokePendingInvitations(client, principal.workspaceId, body.email);
        const workspace = (await findWorkspace(client, principal.workspaceId))!;
        const { invitation, url } = await createInvitation(app, client, {
          workspaceId: workspace.id,
          workspaceName: workspace.name,
          email: body.email,
          role: body.role,
          invitedBy: principal.userId,
        });
        await recordAudit(client, {
          workspaceId: principal.workspaceId,
          action: 'invitation.created',
          ...actor(principal),
          targetType: 'invitation',
          targetId: invitation.id,
          clientIp: req.clientIp,
          metadata: { email: body.email, role: body.role },
        });
        return reply.created({ ...toInvitation(invitation, app.clock.now()), url });
      }),
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
        await paginate(app.pool, invitations.invitationList(principal.workspaceId, query), { query, cursorKey: app.secrets.cursorKey }, (row) =>
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
      withTransaction(app.pool, async (client) => {
        const found = await invitations.findInvitation(client, principal.workspaceId, params.id);
        if (!found) throw new AppError('not_found', 'Invitation not found');
        const revoked = await invitations.revokeInvitation(client, principal.workspaceId, params.id);
        if (!revoked) throw new AppError('conflict', `Invitation is ${found.status}; only pending invitations can be revoked`);
        await recordAudit(client, {
          workspaceId: principal.workspaceId,
          action: 'invitation.revoked',
          ...actor(principal),
          targetType: 'invitation',
          targetId: revoked.id,
          clientIp: req.clientIp,
        });
        return reply.ok(toInvitation(revoked, app.clock.now()));
      }),
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
      const outcome = await withTransaction(app.pool, async (client) => {
        const invitation = await invitations.lockInvitationByTokenHash(client, sha256Hex(body.invitation_token));
        if (!invitation) throw new AppError('not_found', 'Invitation not found');
        if (invitation.status !== 'pending') throw new AppError('conflict', `Invitation is ${invitation.status}`);
        if (invitation.expires_at <= app.clock.now()) throw new AppError('conflict', 'Invitation has expired');
        const oidc = app.config.AUTH_PROVIDER === 'oidc';
        if (oidc && (!identity.emailVerified || identity.email?.toLowerCase() !== invitation.email.toLowerCase())) {
          throw new AppError('forbidden', 'The signed-in identity is not the invited e-mail address');
        }
        const { user } = await users.upsertUserByEmail(client, invitation.email, identity.name ?? invitation.email.split('@')[0]);
        if (oidc) await users.linkIdentity(client, user.id, identity);
        const { membership } = await users.ensureMembership(client, invitation.workspace_id, user.id, invitation.role);
        await invitations.markInvitationAccepted(client, invitation.id, user.id);
        await recordAudit(client, {
          workspaceId: invitation.workspace_id,
          action: 'invitation.accepted',
          actorType: 'user',
          actorId: user.id,
          targetType: 'invitation',
          targetId: invitation.id,
          clientIp: req.clientIp,
          metadata: { role: membership.role },
        });
        // The membership stands; the sign-in itself follows the workspace's policy (SSO, MFA).
        const blocked = await signInBlocked(
          app,
          client,
          (await findWorkspace(client, invitation.workspace_id))!,
          user.id,
          { method: 'exchange' },
          req.clientIp,
        );
        if (blocked) return { blocked };
        return { pair: await issueTokenPair(app, client, user.id, invitation.workspace_id, membership.role as Role, req.clientIp) };
      });
      if ('blocked' in outcome) throw outcome.blocked;
      return reply.ok(outcome.pair);
    },
  }),
];
