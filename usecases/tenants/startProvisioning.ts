/**
 * Queueing a tenant's provisioning (POST /admin/tenants/{tenant_id}/provision): only from a state
 * domain/tenantLifecycle.ts `mayProvision` allows (409 otherwise). Idempotent through the durable
 * job key `provision:{tenant_id}`: a repeat returns the existing job; a failed or cancelled one is
 * queued again. A draft tenant moves to `provisioning` with the job, in one transaction.
 */
import type { AppContext } from '../../lib/context.ts';
import { withTransaction } from '../../lib/db.ts';
import { conflict } from '../../lib/errors.ts';
import { mayProvision } from '../../domain/tenantLifecycle.ts';
import { provisionJobKey, tenantProvision } from '../../jobs/queue/tenant__provision.ts';
import { enqueueJob } from '../../jobs/runtime.ts';
import { transitionTenant } from '../../sql/tenants.ts';
import { requireTenant } from './requireTenant.ts';

export async function startProvisioning(app: AppContext, tenantId: string) {
  return withTransaction(app.pool, async (client) => {
    const tenant = await requireTenant(client, tenantId, true);
    if (!mayProvision(tenant.lifecycle_state)) {
      throw conflict(`Tenant is '${tenant.lifecycle_state}'; provisioning only applies to draft/onboarding tenants.`);
    }
    const { job, created } = await enqueueJob(
      client,
      tenantProvision,
      { tenant_id: tenant.id },
      { jobKey: provisionJobKey(tenant.id), tenantId: tenant.id, retryTerminal: true },
    );
    if (created) await transitionTenant(client, tenant.id, ['draft'], 'provisioning');
    return job;
  });
}
