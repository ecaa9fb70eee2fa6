/**
 * Tenant permissions and the role profiles that bundle them: the one declaration. Provisioning
 * writes these profiles into each tenant's `role_profiles` (so re-provisioning updates them); a
 * user's permissions are the union of the profiles granted to them.
 */
import type { Queryable } from '../../lib/db.ts';

export const tenantPermissions = [
  'insights.read',
  'members.read',
  'sources.read',
  'sources.manage',
  'caps.read',
  'caps.write',
  'reviews.read',
  'reviews.write',
  'exports.create',
  'audit.read',
] as const;
export type TenantPermission = (typeof tenantPermissions)[number];

const viewer: TenantPermission[] = ['insights.read', 'members.read', 'sources.read', 'caps.read', 'reviews.read'];

export const roleProfiles = {
  viewer,
  analyst: [...viewer, 'sources.manage', 'caps.write', 'reviews.write', 'exports.create'],
  admin: [...tenantPermissions],
} as const satisfies Record<string, readonly TenantPermission[]>;
export const roleProfileNames = Object.keys(roleProfiles) as Array<keyof typeof roleProfiles>;

/** Upserts the declared profiles into the current tenant schema (search_path set by the caller). */
export async function seedRoleProfiles(db: Queryable): Promise<void> {
  await db.query(
    `insert into role_profiles (name, permissions)
     select name, array(select jsonb_array_elements_text(permissions) order by 1)
       from jsonb_each($1::jsonb) as p (name, permissions)
     on conflict (name) do update set permissions = excluded.permissions`,
    [JSON.stringify(roleProfiles)],
  );
}
