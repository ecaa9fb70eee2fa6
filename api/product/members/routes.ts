/** GET /members: the workspace's read-only member directory (active users and their role labels). */
import { z } from 'zod';
import { memberDirectory } from '../../../sql/tenant/members.ts';
import { withTenant } from '../../../sql/tenant/schema.ts';
import { reply } from '../../http/routes.ts';
import { iso } from '../../../lib/isoTimestamp.ts';
import { productRoute } from '../route.ts';

/** `analyst` -> `Analyst`: what the console shows for a role profile. */
const roleLabel = (profile: string) => profile.charAt(0).toUpperCase() + profile.slice(1).replace(/_/g, ' ');

const memberSchema = z
  .object({
    user_id: z.uuid(),
    email: z.string(),
    full_name: z.string(),
    roles: z.array(z.object({ profile: z.string(), label: z.string() })),
    joined_at: z.iso.datetime(),
  })
  .meta({ title: 'Member' });

export const memberRoutes = [
  productRoute({
    method: 'get',
    path: '/members',
    operationId: 'list_members',
    summary: 'Member directory (read-only, unpaginated)',
    description: 'Active users of the workspace, by name, with their role profiles and labels.',
    tags: ['members'],
    auth: 'tenant',
    permission: 'members.read',
    responses: { 200: { description: 'Members', schema: z.array(memberSchema) } },
    handler: async ({ app, tenant }) => {
      const members = await withTenant(app.pool, tenant.schema, memberDirectory);
      return reply.ok(
        members.map((m) => ({
          user_id: m.user_id,
          email: m.email,
          full_name: m.full_name,
          roles: m.role_profiles.map((profile) => ({ profile, label: roleLabel(profile) })),
          joined_at: iso(m.joined_at)!,
        })),
      );
    },
  }),
];
