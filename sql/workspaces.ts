/** Organizations and their workspaces. */
import type { Queryable } from '../lib/db.ts';

export interface OrganizationRow {
  id: string;
  slug: string;
  name: string;
  plan: 'free' | 'starter' | 'growth' | 'enterprise';
  seats: number | null;
  timezone: string | null;
  created_at: Date;
}

export interface WorkspaceRow {
  id: string;
  organization_id: string;
  name: string;
  jit_enabled: boolean;
  jit_domains: string[];
  jit_role: 'admin' | 'member' | 'viewer';
  created_at: Date;
}

export async function findOrganizationBySlug(db: Queryable, slug: string): Promise<OrganizationRow | null> {
  const { rows } = await db.query<OrganizationRow>('select * from organizations where slug = $1', [slug]);
  return rows[0] ?? null;
}

/** Inserts an organization; null when the slug is already taken (a concurrent provisioning won). */
export async function insertOrganization(
  db: Queryable,
  org: { slug: string; name: string; plan: string; seats?: number | null; timezone?: string | null },
): Promise<OrganizationRow | null> {
  const { rows } = await db.query<OrganizationRow>(
    `insert into organizations (slug, name, plan, seats, timezone) values ($1, $2, $3, $4, $5)
     on conflict (slug) do nothing returning *`,
    [org.slug, org.name, org.plan, org.seats ?? null, org.timezone ?? null],
  );
  return rows[0] ?? null;
}

export async function insertWorkspace(db: Queryable, organizationId: string, name: string): Promise<WorkspaceRow> {
  const { rows } = await db.query<WorkspaceRow>('insert into workspaces (organization_id, name) values ($1, $2) returning *', [organizationId, name]);
  return rows[0];
}

export async function findWorkspace(db: Queryable, id: string): Promise<WorkspaceRow | null> {
  const { rows } = await db.query<WorkspaceRow>('select * from workspaces where id = $1', [id]);
  return rows[0] ?? null;
}

export async function firstWorkspaceOfOrganization(db: Queryable, organizationId: string): Promise<WorkspaceRow | null> {
  const { rows } = await db.query<WorkspaceRow>('select * from workspaces where organization_id = $1 order by created_at, id limit 1', [organizationId]);
  return rows[0] ?? null;
}

export async function updateWorkspaceSettings(
  db: Queryable,
  id: string,
  patch: { name?: string; jit_enabled?: boolean; jit_domains?: string[]; jit_role?: string },
): Promise<WorkspaceRow> {
  const { rows } = await db.query<WorkspaceRow>(
    `update workspaces set name = coalesce($2, name), jit_enabled = coalesce($3, jit_enabled),
       jit_domains = coalesce($4, jit_domains), jit_role = coalesce($5, jit_role)
     where id = $1 returning *`,
    [id, patch.name ?? null, patch.jit_enabled ?? null, patch.jit_domains ?? null, patch.jit_role ?? null],
  );
  return rows[0];
}

/** Workspaces whose just-in-time provisioning admits e-mail addresses of `domain`. */
export async function jitWorkspacesForDomain(db: Queryable, domain: string): Promise<WorkspaceRow[]> {
  const { rows } = await db.query<WorkspaceRow>(
    `select * from workspaces where jit_enabled and $1 = any(jit_domains) order by created_at, id`,
    [domain.toLowerCase()],
  );
  return rows;
}
