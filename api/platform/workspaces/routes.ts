/** GET and PATCH /v1/workspaces/current: the caller's workspace and its just-in-time provisioning settings. */
import { z } from 'zod';
import { findWorkspace, type WorkspaceRow } from '../../../sql/workspaces.ts';
import { changeWorkspaceSettings } from '../../../usecases/admin/workspaceSettings.ts';
import { reply } from '../../http/routes.ts';
import { workspaceActor } from '../principal.ts';
import { platformRoute } from '../route.ts';

const jitRoles = ['admin', 'member', 'viewer'] as const;
const workspaceSchema = z.object({
  id: z.string(),
  organization_id: z.string(),
  name: z.string(),
  jit_provisioning: z.object({ enabled: z.boolean(), domains: z.array(z.string()), role: z.enum(jitRoles) }),
  mfa_required: z.boolean(),
  sso_required: z.boolean(),
  created_at: z.string(),
});

const toWorkspace = (w: WorkspaceRow) => ({
  id: w.id,
  organization_id: w.organization_id,
  name: w.name,
  jit_provisioning: { enabled: w.jit_enabled, domains: w.jit_domains, role: w.jit_role },
  mfa_required: w.mfa_required,
  sso_required: w.sso_required,
  created_at: w.created_at.toISOString(),
});

const domain = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, 'must be a domain name');

export const workspaceRoutes = [
  platformRoute({
    method: 'get',
    path: '/v1/workspaces/current',
    operationId: 'getCurrentWorkspace',
    summary: "The caller's workspace",
    tags: ['workspaces'],
    scope: 'members:read',
    responses: { 200: { description: 'The workspace', schema: workspaceSchema } },
    handler: async ({ principal, app }) => reply.ok(toWorkspace((await findWorkspace(app.pool, principal.workspaceId))!)),
  }),
  platformRoute({
    method: 'patch',
    path: '/v1/workspaces/current',
    operationId: 'updateCurrentWorkspace',
    summary: 'Rename the workspace or change just-in-time provisioning (off by default)',
    description: 'With JIT enabled, a first sign-in whose verified e-mail is in one of `domains` becomes a member with `role`.',
    tags: ['workspaces'],
    scope: 'workspace:admin',
    body: z.object({
      name: z.string().trim().min(1, 'must not be empty').max(200).optional(),
      jit_provisioning: z
        .object({
          enabled: z.boolean().optional(),
          domains: z.array(domain).max(50).optional(),
          role: z.enum(jitRoles, { error: 'must be one of admin, member, viewer' }).optional(),
        })
        .optional(),
      mfa_required: z.boolean().optional().describe('Members without a verified factor get 403 mfa_required outside /v1/mfa'),
      sso_required: z.boolean().optional().describe('Sign-in other than through an SSO connection gets 403 sso_required'),
    }),
    responses: {
      200: { description: 'The updated workspace', schema: workspaceSchema },
      409: { description: 'sso_required without an SSO connection (`conflict`)' },
    },
    handler: async ({ body, principal, app, req }) => reply.ok(toWorkspace(await changeWorkspaceSettings(app, workspaceActor(principal, req.clientIp), body))),
  }),
];
