/** The tenant registry (control schema): slug, company, lifecycle state and the tenant's schema name. */
import type { Queryable } from '../lib/db.ts';
import type { LifecycleState } from '../domain/tenantLifecycle.ts';

export interface TenantRow {
  id: string;
  slug: string;
  company: string;
  industry: string | null;
  lifecycle_state: LifecycleState;
  schema_name: string;
  created_at: Date;
  updated_at: Date;
}

/** Inserts a draft tenant; null when the slug is taken. */
export async function insertTenant(db: Queryable, t: { slug: string; company: string; industry: string | null }): Promise<TenantRow | null> {
  const { rows } = await db.query<TenantRow>(`insert into tenants (slug, company, industry) values ($1, $2, $3) on conflict (slug) do nothing returning *`, [
    t.slug,
    t.company,
    t.industry,
  ]);
  return rows[0] ?? null;
}

export async function listTenants(db: Queryable): Promise<TenantRow[]> {
  const { rows } = await db.query<TenantRow>('select * from tenants order by created_at, id');
  return rows;
}

export async function listLiveTenants(db: Queryable): Promise<TenantRow[]> {
  const { rows } = await db.query<TenantRow>(`select * from tenants where lifecycle_state = 'live' order by slug`);
  return rows;
}

export async function findTenant(db: Queryable, id: string): Promise<TenantRow | null> {
  const { rows } = await db.query<TenantRow>('select * from tenants where id = $1', [id]);
  return rows[0] ?? null;
}

export async function lockTenant(db: Queryable, id: string): Promise<TenantRow | null> {
  const { rows } = await db.query<TenantRow>('select * from tenants where id = $1 for update', [id]);
  return rows[0] ?? null;
}

export async function findTenantBySlug(db: Queryable, slug: string): Promise<TenantRow | null> {
  const { rows } = await db.query<TenantRow>('select * from tenants where slug = $1', [slug]);
  return rows[0] ?? null;
}

/** Moves the tenant to `next` only from one of `from`; returns the row when it moved. */
export async function transitionTenant(db: Queryable, id: string, from: readonly LifecycleState[], next: LifecycleState): Promise<TenantRow | null> {
  const { rows } = await db.query<TenantRow>(
    `update tenants set lifecycle_state = $3, updated_at = now() where id = $1 and lifecycle_state = any($2) returning *`,
    [id, from, next],
  );
  return rows[0] ?? null;
}
