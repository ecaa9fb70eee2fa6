/**
 * A tenant model's training (jobs/tasks/tenant__train.ts); one per tenant, dataset and configuration
 * (`trainJobKey`).
 */
import { z } from 'zod';
import { clusterSchema } from '../../engine/config/cluster.ts';
import { defineJob } from '../runtime.ts';

export const tenantTrain = defineJob({
  name: 'tenant__train',
  payload: z.object({ tenant_id: z.uuid(), dataset_id: z.uuid(), config_hash: z.string().regex(/^[0-9a-f]{64}$/), config: clusterSchema }),
  maxAttempts: 3,
});

export const trainJobKey = (tenantId: string, datasetId: string, configHash: string) => `train:${tenantId}:${datasetId}:${configHash}`;
