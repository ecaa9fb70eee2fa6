/**
 * The tenant of an /admin/tenants/{tenant_id}/… request, or 404 `Tenant not found.`; for onboarding
 * data, a provisioned one (`onboarding` or `live`, the gate of domain/tenantLifecycle.ts), 409 otherwise.
 */
import type { Queryable } from '../../lib/db.ts';
import { AppError } from '../../lib/errors.ts';
import { onboardingDataRefusal } from '../../domain/tenantLifecycle.ts';
import { appliedTenantMigrations } from '../../sql/tenant/schema.ts';
import { findTenant, lockTenant, type TenantRow } from '../../sql/tenants.ts';

/** `lock` takes its row lock (inside a transaction). */
export async function requireTenant(db: Queryable, tenantId: string, lock = false): Promise<TenantRow> {
  const tenant = await (lock ? lockTenant(db, tenantId) : findTenant(db, tenantId));
  if (!tenant) throw new AppError('not_found', 'Tenant not found.');
  return tenant;
}

export async function requireProvisionedTenant(db: Queryable, tenantId: string, unprovisionedMessage?: string): Promise<TenantRow> {
  const tenant = await requireTenant(db, tenantId);
  const refused = onboardingDataRefusal(tenant.lifecycle_state, unprovisionedMessage);
  if (refused) throw refused;
  return tenant;
}

const ONBOARDING_MIGRATION = '0002_onboarding';

/** True once provisioning created the onboarding tables in the tenant's schema (reads answer empty before). */
export async function hasOnboardingSchema(db: Queryable, tenant: TenantRow): Promise<boolean> {
  return (await appliedTenantMigrations(db, tenant.schema_name)).includes(ONBOARDING_MIGRATION);
}
