/**
 * Training (staff): POST …/train queues the `tenant__train` job on the latest dataset version with
 * the tenant's training configuration, under the durable key `train:{tenant_id}:{dataset_id}:{config_hash}`
 * (a repeat answers the same job; `{"retry_terminal": true}` queues a failed or cancelled one again);
 * GET …/train/status polls the latest train job; checkpoints are listed and one is activated.
 */
import { z } from 'zod';
import { NO_DATASET, startTraining } from '../../../usecases/tenants/startTraining.ts';
import { notFound } from '../../../lib/errors.ts';
import { tenantTrain } from '../../../jobs/queue/tenant__train.ts';
import { activateCheckpoint, listCheckpoints, type CheckpointRow } from '../../../sql/tenant/checkpoints.ts';
import { jobStatuses, latestTenantJobRun } from '../../../sql/jobRuns.ts';
import { withTenant } from '../../../sql/tenant/schema.ts';
import { reply } from '../../http/routes.ts';
import { detailSchema } from '../errors.ts';
import { productRoute } from '../route.ts';
import { queuedBody, queuedSchema, requireTenant, tenantParams } from '../tenants/lookup.ts';
import { iso } from '../../../lib/isoTimestamp.ts';
import { hasOnboardingSchema, requireProvisionedTenant } from '../../../usecases/tenants/requireTenant.ts';

const checkpointSchema = z
  .object({
    id: z.uuid(),
    model_version: z.number().int(),
    dataset_id: z.uuid(),
    dataset_version: z.number().int(),
    config_hash: z.string(),
    engine_version: z.string(),
    metrics: z.object({
      records: z.number().int().describe('Records trained on'),
      records_without_narrative: z.number().int(),
      records_outside_retention: z.number().int(),
      k: z.number().int().describe('Clusters chosen by silhouette'),
      silhouette: z.number().nullable(),
      patterns: z.number().int().describe('Stable clusters promoted to patterns'),
      unclustered: z.number().int(),
      stability: z.record(z.string(), z.number().int()),
    }),
    active: z.boolean(),
    job_id: z.uuid().nullable(),
    created_at: z.iso.datetime(),
    activated_at: z.iso.datetime().nullable(),
  })
  .meta({ title: 'Checkpoint' });

const checkpointBody = (c: CheckpointRow): z.output<typeof checkpointSchema> => ({
  id: c.id,
  model_version: c.model_version,
  dataset_id: c.dataset_id,
  dataset_version: c.dataset_version,
  config_hash: c.config_hash,
  engine_version: c.engine_version,
  metrics: c.metrics,
  active: c.active,
  job_id: c.job_run_id,
  created_at: iso(c.created_at)!,
  activated_at: iso(c.activated_at),
});

const trainStatusSchema = z.object({
  status: z.enum(['not_started', ...jobStatuses]),
  progress: z.number().int(),
  error_detail: z.string().nullable(),
});

export const trainingRoutes = [
  productRoute({
    method: 'post',
    path: '/admin/tenants/{tenant_id}/train',
    operationId: 'train_model',
    summary: 'Queue training on the latest dataset version',
    description:
      'Durable key `train:{tenant_id}:{dataset_id}:{config_hash}`: a repeat answers the existing job_id; ' +
      'a new dataset version or training configuration gives a new job. `{"retry_terminal": true}` puts a failed or ' +
      'cancelled job of the same key back in the queue. Poll `/train/status`.',
    tags: ['onboarding'],
    auth: 'staff',
    params: tenantParams,
    body: z.strictObject({ retry_terminal: z.boolean().default(false) }).optional(),
    responses: {
      202: { description: '`{status: queued, job_id}` (a repeat: the existing job_id of the same key)', schema: queuedSchema },
      404: { description: 'Tenant not found.', schema: detailSchema },
      409: { description: `${NO_DATASET} / The training of this key failed or was cancelled: send {"retry_terminal": true}`, schema: detailSchema },
    },
    handler: async ({ app, params, body }) => reply.accepted(queuedBody(await startTraining(app, params.tenant_id, body?.retry_terminal ?? false))),
  }),
  productRoute({
    method: 'get',
    path: '/admin/tenants/{tenant_id}/train/status',
    operationId: 'train_status',
    summary: 'Status of the latest train job (`not_started` when none was queued)',
    tags: ['onboarding'],
    auth: 'staff',
    params: tenantParams,
    responses: { 200: { description: 'Job status', schema: trainStatusSchema }, 404: { description: 'Tenant not found.', schema: detailSchema } },
    handler: async ({ app, params }) => {
      const tenant = await requireTenant(app.pool, params.tenant_id);
      const job = await latestTenantJobRun(app.pool, tenant.id, tenantTrain.name);
      if (!job) return reply.ok({ status: 'not_started', progress: 0, error_detail: null });
      return reply.ok({ status: job.status, progress: job.progress, error_detail: job.error_detail });
    },
  }),
  productRoute({
    method: 'get',
    path: '/admin/tenants/{tenant_id}/checkpoints',
    operationId: 'list_checkpoints',
    summary: 'Model checkpoints, oldest first (unpaginated)',
    tags: ['onboarding'],
    auth: 'staff',
    params: tenantParams,
    responses: {
      200: { description: 'Checkpoints', schema: z.array(checkpointSchema) },
      404: { description: 'Tenant not found.', schema: detailSchema },
    },
    handler: async ({ app, params }) => {
      const tenant = await requireTenant(app.pool, params.tenant_id);
      if (!(await hasOnboardingSchema(app.pool, tenant))) return reply.ok([]);
      return reply.ok((await withTenant(app.pool, tenant.schema_name, listCheckpoints)).map(checkpointBody));
    },
  }),
  productRoute({
    method: 'post',
    path: '/admin/tenants/{tenant_id}/checkpoints/{checkpoint_id}/activate',
    operationId: 'activate_checkpoint',
    summary: 'Make a checkpoint the active model',
    description: 'The insight snapshot reads the active checkpoint’s collection. Activating the active checkpoint changes nothing.',
    tags: ['onboarding'],
    auth: 'staff',
    params: tenantParams.extend({ checkpoint_id: z.uuid() }),
    responses: {
      200: { description: 'The checkpoint, now active', schema: checkpointSchema },
      404: { description: 'Tenant not found. / Checkpoint not found.', schema: detailSchema },
      409: { description: 'The tenant is not provisioned yet', schema: detailSchema },
    },
    handler: async ({ app, params }) => {
      const tenant = await requireProvisionedTenant(app.pool, params.tenant_id);
      const checkpoint = await withTenant(app.pool, tenant.schema_name, (db) => activateCheckpoint(db, params.checkpoint_id));
      if (!checkpoint) throw notFound('Checkpoint not found.');
      return reply.ok(checkpointBody(checkpoint));
    },
  }),
];
