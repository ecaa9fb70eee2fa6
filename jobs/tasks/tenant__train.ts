/**
 * Trains a tenant's model on one dataset version (POST /admin/tenants/{id}/train). Durable key
 * `train:{tenant_id}:{dataset_id}:{config_hash}`; the configuration travels in the payload, so the
 * job trains with exactly the settings its key names even if they change while it waits.
 */
import { trainTenantModel } from '../../usecases/trainTenant.ts';
import { defineTask } from '../runtime.ts';
import { tenantTrain } from '../queue/tenant__train.ts';

export const tenantTrainTask = defineTask({
  ...tenantTrain,
  async run(payload, job) {
    const checkpoint = await trainTenantModel(job.app, payload, job);
    return { checkpoint_id: checkpoint.id, model_version: checkpoint.model_version, metrics: checkpoint.metrics };
  },
});
