/**
 * What the onboarding-data routes share: the tenant must exist (404 `Tenant not found.`) and be
 * provisioned, i.e. `onboarding` or `live` (409 otherwise, or the route's own 409 text for a tenant not yet
 * provisioned, such as train's "no dataset"), before data goes into its schema. Reads
 * ask whether the schema holds the onboarding tables at all (none before provisioning).
 */
import type { Queryable } from '../../../lib/db.ts';
import { conflict } from '../../../lib/errors.ts';
import type { TenantRow } from '../../../sql/tenants.ts';
import { beforeProvisioning, isProvisioned } from '../../../domain/tenantLifecycle.ts';
import { appliedTenantMigrations } from '../../../sql/tenant/schema.ts';
import { requireTenant } from '../tenants/lookup.ts';

export async function requireProvisionedTenant(db: Queryable, tenantId: string, unprovisionedMessage?: string): Promise<TenantRow> {
  const tenant = await requireTenant(db, tenantId);
  if (!isProvisioned(tenant.lifecycle_state)) {
    throw conflict(
      beforeProvisioning(tenant.lifecycle_state) && unprovisionedMessage
        ? unprovisionedMessage
        : `Tenant is '${tenant.lifecycle_state}'; onboarding data needs a provisioned tenant -- provision it first.`,
    );
  }
  return tenant;
}

const ONBOARDING_MIGRATION = '0002_onboarding';

/** True once provisioning created the onboarding tables in the tenant's schema. */
export async function hasOnboardingSchema(db: Queryable, tenant: TenantRow): Promise<boolean> {
  return (await appliedTenantMigrations(db, tenant.schema_name)).includes(ONBOARDING_MIGRATION);
}

export const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());
