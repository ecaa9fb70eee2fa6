/** Provisions a tenant's schema (usecases/tenants/provisionTenant.ts), reporting each of the four steps as progress. */
import { PROVISION_STEPS, provisionTenant } from '../../usecases/tenants/provisionTenant.ts';
import { tenantProvision } from '../queue/tenant__provision.ts';
import { defineTask } from '../runtime.ts';

export const tenantProvisionTask = defineTask({
  ...tenantProvision,
  run: ({ tenant_id }, job) => provisionTenant(job.app.pool, tenant_id, (step, index) => job.progress(((index + 1) * 95) / PROVISION_STEPS.length, step)),
});
