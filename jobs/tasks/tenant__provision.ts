/**
 * Provisions a tenant's isolated schema in four idempotent steps: create the schema, apply the tenant
 * migrations, seed the role profiles, seed the defaults. Every step can run again safely, so a retry
 * after a failure half-way resumes: the schema exists, recorded migrations are skipped, seeds upsert.
 * The tenant is `provisioning` while it runs and `onboarding` once it succeeded.
 */
import { z } from 'zod';
import { seedRoleProfiles } from '../../sql/tenantRoles.ts';
import { createTenantSchema, migrateTenantSchema, seedTenantDefaults, withTenant } from '../../sql/tenantSchema.ts';
import { findTenant, transitionTenant, type LifecycleState } from '../../sql/tenants.ts';
import { defineTask, PermanentJobError } from '../runtime.ts';

/** States from which provisioning may run (product-api.md, states table). */
export const PROVISIONABLE_STATES: readonly LifecycleState[] = ['draft', 'provisioning', 'onboarding'];
export const PROVISION_STEPS = ['create_schema', 'apply_migrations', 'seed_role_profiles', 'seed_defaults'] as const;
export const provisionJobKey = (tenantId: string) => `provision:${tenantId}`;

export const tenantProvision = defineTask({
  name: 'tenant__provision',
  payload: z.object({ tenant_id: z.uuid() }),
  maxAttempts: 3,
  async run({ tenant_id }, job) {
    const { pool } = job.app;
    const tenant = await findTenant(pool, tenant_id);
    if (!tenant) throw new PermanentJobError(`tenant ${tenant_id} does not exist`);
    if (!PROVISIONABLE_STATES.includes(tenant.lifecycle_state)) throw new PermanentJobError(`tenant is '${tenant.lifecycle_state}'; provisioning does not apply`);
    const schema = tenant.schema_name;
    await transitionTenant(pool, tenant.id, ['draft'], 'provisioning');

    await createTenantSchema(pool, schema);
    await job.progress(25, 'create_schema');
    const migrationsApplied = await migrateTenantSchema(pool, schema);
    await job.progress(50, 'apply_migrations');
    await withTenant(pool, schema, seedRoleProfiles);
    await job.progress(75, 'seed_role_profiles');
    await seedTenantDefaults(pool, schema);
    await job.progress(95, 'seed_defaults');

    await transitionTenant(pool, tenant.id, ['draft', 'provisioning'], 'onboarding');
    return { schema, migrations_applied: migrationsApplied };
  },
});
