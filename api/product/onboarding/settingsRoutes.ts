/**
 * Per-tenant onboarding settings (staff, CONTRACT's paths): the training configuration (the engine's
 * cluster settings; PUT replaces it, unset fields take the shipped defaults), the data policy, and
 * seeding the tenant's sources.
 */
import { z } from 'zod';
import { jsonValue } from '../../http/jsonValue.ts';
import { AppError } from '../../../lib/errors.ts';
import { clusterSchema } from '../../../engine/config/cluster.ts';
import { configDefinitions, validateConfig } from '../../../engine/config/index.ts';
import { HISTORICAL_IMPORT, seedSources, sourceKinds } from '../../../sql/tenant/sources.ts';
import { withTenant } from '../../../sql/tenant/schema.ts';
import { latestDataset, retentionReach } from '../../../sql/tenant/datasets.ts';
import type { Queryable } from '../../../lib/db.ts';
import { saveDataPolicy, saveTrainingConfig } from '../../../sql/tenant/trainingSettings.ts';
import { reply } from '../../http/routes.ts';
import { detailSchema } from '../errors.ts';
import { productRoute } from '../route.ts';
import { sourceBody, sourceSchema } from '../sources/schema.ts';
import { tenantParams } from '../tenants/lookup.ts';
import { iso } from '../../../lib/isoTimestamp.ts';
import { requireProvisionedTenant } from '../../../usecases/tenants/requireTenant.ts';

const trainingConfigSchema = z
  .object({
    config_hash: z.string().describe('SHA-256 of the canonical configuration: part of the train job key'),
    config: clusterSchema,
    updated_at: z.iso.datetime().nullable(),
  })
  .meta({ title: 'TrainingConfig' });

const dataPolicySchema = z
  .object({
    retention_days: z.number().int().nullable().describe('Records that occurred longer ago than this before the dataset was committed are not trained on'),
    redact_pii: z.boolean().describe('E-mail addresses and phone numbers are masked in records committed from now on'),
    updated_at: z.iso.datetime().nullable(),
  })
  .meta({ title: 'DataPolicy' });

const DAY_MS = 86_400_000;

/**
 * A retention period that would leave none of the latest dataset version's records to train on is
 * refused when it is set (422 naming the shortest period that keeps the newest record), not found out
 * when training fails.
 */
async function refuseRetentionThatDropsEverything(db: Queryable, retentionDays: number | null): Promise<void> {
  if (retentionDays === null) return;
  const dataset = await latestDataset(db);
  if (!dataset) return;
  const reach = await retentionReach(db, dataset.id, new Date(dataset.created_at.getTime() - retentionDays * DAY_MS));
  if (reach.total === 0 || reach.kept > 0 || !reach.newest) return;
  const needed = Math.ceil((dataset.created_at.getTime() - reach.newest.getTime()) / DAY_MS);
  throw new AppError('unprocessable', 'retention_days drops every record', [
    {
      loc: ['body', 'retention_days'],
      msg:
        `A retention of ${retentionDays} days would leave none of the ${reach.total} records of dataset version ${dataset.version} to train on ` +
        `(the newest occurred ${needed} days before the version was committed); set at least ${needed} days, or null to keep every record`,
      type: 'value_error',
      input: retentionDays,
    },
  ]);
}

const notProvisioned = {
  404: { description: 'Tenant not found.', schema: detailSchema },
  409: { description: 'The tenant is not provisioned yet', schema: detailSchema },
};

export const settingsRoutes = [
  productRoute({
    method: 'put',
    path: '/admin/tenants/{tenant_id}/training-config',
    operationId: 'put_training_config',
    summary: 'Set the training configuration',
    description: 'Any of the engine’s cluster settings; those left out take the shipped defaults. A changed configuration gives a new train job.',
    tags: ['onboarding'],
    auth: 'staff',
    params: tenantParams,
    body: clusterSchema.partial(),
    responses: { 200: { description: 'The configuration now in force', schema: trainingConfigSchema }, ...notProvisioned },
    handler: async ({ app, params, body, staff }) => {
      const tenant = await requireProvisionedTenant(app.pool, params.tenant_id);
      const checked = validateConfig('cluster', { ...configDefinitions.cluster.defaults, ...body });
      if (!checked.ok) {
        const detail = Object.entries(checked.details).map(([path, msg]) => ({
          loc: ['body', ...path.split('.')],
          msg,
          type: 'value_error',
          input: (body as Record<string, unknown>)[path] ?? null,
        }));
        throw new AppError('unprocessable', 'Invalid training configuration', detail);
      }
      const saved = await withTenant(app.pool, tenant.schema_name, (db) => saveTrainingConfig(db, checked.value, staff.employeeId));
      return reply.ok({ config_hash: saved.config_hash, config: saved.document, updated_at: iso(saved.updated_at) });
    },
  }),
  productRoute({
    method: 'put',
    path: '/admin/tenants/{tenant_id}/data-policy',
    operationId: 'put_data_policy',
    summary: 'Set the data policy',
    tags: ['onboarding'],
    auth: 'staff',
    params: tenantParams,
    body: z.strictObject({
      retention_days: z.number().int().min(1).max(36500).nullable().default(null),
      redact_pii: z.boolean().default(false),
    }),
    responses: { 200: { description: 'The policy now in force', schema: dataPolicySchema }, ...notProvisioned },
    handler: async ({ app, params, body, staff }) => {
      const tenant = await requireProvisionedTenant(app.pool, params.tenant_id);
      const saved = await withTenant(app.pool, tenant.schema_name, async (db) => {
        await refuseRetentionThatDropsEverything(db, body.retention_days);
        return saveDataPolicy(db, body, staff.employeeId);
      });
      return reply.ok({ retention_days: saved.retention_days, redact_pii: saved.redact_pii, updated_at: iso(saved.updated_at) });
    },
  }),
  productRoute({
    method: 'post',
    path: '/admin/tenants/{tenant_id}/sources/seed',
    operationId: 'seed_sources',
    summary: 'Seed the tenant’s sources',
    description:
      'Adds the listed sources (default: one `file_upload` source named "Historical import") whose names the tenant does ' +
      'not have yet; existing names are left as they are. Answers every source of the tenant.',
    tags: ['onboarding'],
    auth: 'staff',
    params: tenantParams,
    body: z
      .strictObject({
        sources: z
          .array(
            z.strictObject({
              name: z.string().trim().min(1).max(200),
              kind: z.enum(sourceKinds),
              config: z.record(z.string(), jsonValue('A setting of the source, by kind')).optional(),
            }),
          )
          .min(1)
          .max(100)
          .optional(),
      })
      .optional(),
    responses: { 200: { description: 'Every source of the tenant', schema: z.array(sourceSchema) }, ...notProvisioned },
    handler: async ({ app, params, body, staff }) => {
      const tenant = await requireProvisionedTenant(app.pool, params.tenant_id);
      const wanted = body?.sources ?? [HISTORICAL_IMPORT];
      const sources = await withTenant(app.pool, tenant.schema_name, (db) =>
        seedSources(
          db,
          wanted.map((s) => ({ ...s, createdBy: { type: 'employee' as const, id: staff.employeeId } })),
        ),
      );
      return reply.ok(sources.map(sourceBody));
    },
  }),
];
