/**
 * Trains a tenant's model on one dataset version (POST /admin/tenants/{id}/train). Durable key
 * `train:{tenant_id}:{dataset_id}:{config_hash}`; the configuration travels in the payload, so the
 * job trains with exactly the settings its key names even if they change while it waits.
 */
import { z } from 'zod';
import { clusterSchema } from '../../engine/config/cluster.ts';
import { trainTenantModel } from '../tenantTraining.ts';
import { defineTask } from '../runtime.ts';

export const tenantTrain = defineTask({
  name: 'tenant__train',
  payload: z.object({ tenant_id: z.uuid(), dataset_id: z.uuid(), config_hash: z.string().regex(/^[0-9a-f]{64}$/), config: clusterSchema }),
  maxAttempts: 3,
  async run(payload, job) {
    const checkpoint = await trainTenantModel(job.app, payload, job);
    return { checkpoint_id: checkpoint.id, model_version: checkpoint.model_version, metrics: checkpoint.metrics };
  },
});

export const trainJobKey = (tenantId: string, datasetId: string, configHash: string) => `train:${tenantId}:${datasetId}:${configHash}`;
