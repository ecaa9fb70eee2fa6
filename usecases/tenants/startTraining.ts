/**
 * Queueing a tenant's model training (POST /admin/tenants/{tenant_id}/train) on its latest dataset and
 * current training configuration. The job key is (tenant, dataset, config hash): a repeat answers the
 * same job; a failed or cancelled one is queued again only with `retryTerminal`, else 409 (product-api.md:
 * failed or cancelled -> train with the retry-terminal option -> queued).
 */
import type { AppContext } from '../../lib/context.ts';
import { withTransaction } from '../../lib/db.ts';
import { conflict } from '../../lib/errors.ts';
import { tenantTrain, trainJobKey } from '../../jobs/queue/tenant__train.ts';
import { enqueueJob } from '../../jobs/runtime.ts';
import { latestDataset } from '../../sql/tenant/datasets.ts';
import { withTenant } from '../../sql/tenant/schema.ts';
import { trainingConfig } from '../../sql/tenant/trainingSettings.ts';
import { requireProvisionedTenant } from './requireTenant.ts';

export const NO_DATASET = 'No ingested dataset to train on -- complete the ingest step first.';

export async function startTraining(app: AppContext, tenantId: string, retryTerminal: boolean) {
  // A tenant not provisioned yet has no dataset either: the spec's text, not the generic one.
  const tenant = await requireProvisionedTenant(app.pool, tenantId, NO_DATASET);
  const { dataset, config } = await withTenant(app.pool, tenant.schema_name, async (db) => ({
    dataset: await latestDataset(db),
    config: await trainingConfig(db),
  }));
  if (!dataset) throw conflict(NO_DATASET);
  const { job, created } = await withTransaction(app.pool, (client) =>
    enqueueJob(
      client,
      tenantTrain,
      { tenant_id: tenant.id, dataset_id: dataset.id, config_hash: config.config_hash, config: config.document },
      { jobKey: trainJobKey(tenant.id, dataset.id, config.config_hash), tenantId: tenant.id, retryTerminal },
    ),
  );
  // Answering the dead job as if it were queued would leave the caller polling a failure.
  if (!created && (job.status === 'failed' || job.status === 'cancelled'))
    throw conflict(
      `The training of this dataset version and configuration ${job.status}${job.error_detail ? `: ${job.error_detail}` : '.'} ` +
        'Send {"retry_terminal": true} to queue it again, or change the dataset or the training configuration.',
    );
  return job;
}
