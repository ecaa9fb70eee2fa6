/**
 * Provisioning a tenant's isolated schema (the `tenant__provision` job) in four idempotent steps:
 * create the schema, apply the tenant migrations, seed the role profiles, seed the defaults. Every step
 * can run again safely, so a retry after a failure half-way resumes: the schema exists, recorded
 * migrations are skipped, seeds upsert. The tenant is `provisioning` while it runs and `onboarding` once
 * it succeeded; a tenant gone or in a state domain/tenantLifecycle.ts `mayProvision` refuses fails for good.
 */
import type { Pool } from '../../lib/db.ts';
import { mayProvision } from '../../domain/tenantLifecycle.ts';
import { PermanentJobError } from '../../jobs/runtime.ts';
import { seedRoleProfiles } from '../../sql/tenant/roles.ts';
import { createTenantSchema, migrateTenantSchema, seedTenantDefaults, withTenant } from '../../sql/tenant/schema.ts';
import { findTenant, transitionTenant } from '../../sql/tenants.ts';

export const PROVISION_STEPS = ['create_schema', 'apply_migrations', 'seed_role_profiles', 'seed_defaults'] as const;
export type ProvisionStep = (typeof PROVISION_STEPS)[number];

/** The four steps, in order, each reported to `done` as it completes (also used by bench/tenants.ts). */
export async function provisionSchema(pool: Pool, schema: string, done: (step: ProvisionStep, index: number) => Promise<void>): Promise<string[]> {
  await createTenantSchema(pool, schema);
  await done('create_schema', 0);
  const migrationsApplied = await migrateTenantSchema(pool, schema);
  await done('apply_migrations', 1);
  await withTenant(pool, schema, seedRoleProfiles);
  await done('seed_role_profiles', 2);
  await seedTenantDefaults(pool, schema);
  await done('seed_defaults', 3);
  return migrationsApplied;
}

export async function provisionTenant(
  pool: Pool,
  tenantId: string,
  done: (step: ProvisionStep, index: number) => Promise<void>,
): Promise<{ schema: string; migrations_applied: string[] }> {
  const tenant = await findTenant(pool, tenantId);
  if (!tenant) throw new PermanentJobError(`tenant ${tenantId} does not exist`);
  if (!mayProvision(tenant.lifecycle_state)) throw new PermanentJobError(`tenant is '${tenant.lifecycle_state}'; provisioning does not apply`);
  await transitionTenant(pool, tenant.id, ['draft'], 'provisioning');
  const migrationsApplied = await provisionSchema(pool, tenant.schema_name, done);
  await transitionTenant(pool, tenant.id, ['draft', 'provisioning'], 'onboarding');
  return { schema: tenant.schema_name, migrations_applied: migrationsApplied };
}
