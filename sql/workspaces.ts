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
  mfa_required: boolean;
  sso_required: boolean;
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
  patch: { name?: string; jit_enabled?: boolean; jit_domains?: string[]; jit_role?: string; mfa_required?: boolean; sso_required?: boolean },
): Promise<WorkspaceRow> {
  const { rows } = await db.query<WorkspaceRow>(
    `update workspaces set name = coalesce($2, name), jit_enabled = coalesce($3, jit_enabled),
       jit_domains = coalesce($4, jit_domains), jit_role = coalesce($5, jit_role),
       mfa_required = coalesce($6, mfa_required), sso_required = coalesce($7, sso_required)
     where id = $1 returning *`,
    [
      id,
      patch.name ?? null,
      patch.jit_enabled ?? null,
      patch.jit_domains ?? null,
      patch.jit_role ?? null,
      patch.mfa_required ?? null,
      patch.sso_required ?? null,
    ],
  );
  return rows[0];
}

/** Workspaces whose just-in-time provisioning admits e-mail addresses of `domain`: listed in its settings and verified by it (DNS). */
export async function jitWorkspacesForDomain(db: Queryable, domain: string): Promise<WorkspaceRow[]> {
  const { rows } = await db.query<WorkspaceRow>(
    `select w.* from workspaces w
      where w.jit_enabled and $1 = any(w.jit_domains)
        and exists (select 1 from workspace_domains d where d.workspace_id = w.id and d.domain = $1 and d.verified_at is not null)
      order by w.created_at, w.id`,
    [domain.toLowerCase()],
  );
  return rows;
}

/** The workspaces of the organization with this slug (the CLI accepts a slug where it takes a workspace). */
export async function workspacesOfOrganizationSlug(db: Queryable, slug: string): Promise<WorkspaceRow[]> {
  const { rows } = await db.query<WorkspaceRow>(
    'select w.* from workspaces w join organizations o on o.id = w.organization_id where o.slug = $1 order by w.created_at, w.id',
    [slug],
  );
  return rows;
}

/** Whether the workspace enforces SSO, locking its row (a change of its connections must see a stable flag). */
export async function lockSsoRequired(db: Queryable, workspaceId: string): Promise<boolean> {
  const { rows } = await db.query<{ sso_required: boolean }>('select sso_required from workspaces where id = $1 for update', [workspaceId]);
  return rows[0]?.sso_required ?? false;
}

/** Every workspace (the weekly digest visits each). */
export async function allWorkspaces(db: Queryable): Promise<Array<{ id: string; name: string }>> {
  const { rows } = await db.query<{ id: string; name: string }>('select id, name from workspaces order by id');
  return rows;
}
