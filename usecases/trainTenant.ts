/**
 * Training a tenant's model: the engine's stages snapshot..patterns over one dataset version with
 * the training configuration the job was queued with, then one transaction that stores the
 * checkpoint (model version, config hash, metrics) and materialises its insight collection for
 * (dataset_version, model_version). A job attempt that finds its checkpoint already stored returns
 * it, so a retry after a crash never trains twice.
 */
import type { AppContext } from '../lib/context.ts';
import { configDefinitions, configKinds } from '../engine/config/index.ts';
import type { ClusterConfig } from '../engine/config/cluster.ts';
import { ENGINE_VERSION } from '../engine/manifest.ts';
import { stageIndex, type StageOutputs } from '../engine/pipeline.ts';
import { runPipelineInThread } from '../jobs/engineThread.ts';
import type { SnapshotInput } from '../engine/stages/01_snapshot.ts';
import type { ResolvedConfigs, StageContext } from '../engine/stages/context.ts';
import { checkpointOfJobRun, insertCheckpoint, latestCheckpoint, type CheckpointMetrics, type CheckpointRow } from '../sql/tenant/checkpoints.ts';
import { configVersionId } from '../sql/configs.ts';
import { findDataset, trainingRecords, type TrainingRecord } from '../sql/tenant/datasets.ts';
import { insertInsightCollection, previousModelPatterns, type InsightPattern } from '../sql/tenant/insights.ts';
import { findTenant } from '../sql/tenants.ts';
import { withTenant } from '../sql/tenant/schema.ts';
import { dataPolicy } from '../sql/tenant/trainingSettings.ts';
import { PermanentJobError, type JobContext } from '../jobs/runtime.ts';

export interface TrainRequest {
  tenant_id: string;
  dataset_id: string;
  config_hash: string;
  config: ClusterConfig;
}

const DAY_MS = 86_400_000;

/** The fewest usable records the cluster stage forms clusters from (below it, it gives up). */
export const minimumRecords = (config: ClusterConfig) => 2 * Math.max(config.k_min, config.min_cluster_size);

function stageContext(runId: string, asOf: Date, config: ClusterConfig, configHash: string): StageContext {
  const configs = {} as Record<string, { id: string; document: unknown }>;
  for (const kind of configKinds) configs[kind] = { id: configVersionId(configDefinitions[kind].defaults), document: configDefinitions[kind].defaults };
  configs.cluster = { id: configHash, document: config };
  return { runId, seed: config.seed, asOf: asOf.toISOString(), configs: configs as unknown as ResolvedConfigs };
}

function collectionOf(records: TrainingRecord[], outputs: StageOutputs): InsightPattern[] {
  const severityOf = new Map(records.map((r) => [r.record_id, r.severity]));
  return outputs.patterns.patterns.map((p) => {
    const severity_counts = { critical: 0, high: 0, medium: 0, low: 0 };
    for (const id of p.member_ids) severity_counts[severityOf.get(id)!]++;
    return {
      pattern_id: p.id,
      name: p.name,
      size: p.issue_count,
      risk_score: p.risk_score,
      risk_components: p.risk_components,
      top_terms: p.top_terms,
      terms: p.terms,
      severity_counts,
      stability: p.stability,
      first_seen_at: p.first_seen_at,
      last_seen_at: p.last_seen_at,
      member_ids: p.member_ids,
    };
  });
}

export async function trainTenantModel(
  app: AppContext,
  request: TrainRequest,
  job: Pick<JobContext, 'runId' | 'progress'> & { signal?: AbortSignal },
): Promise<CheckpointRow> {
  const tenant = await findTenant(app.pool, request.tenant_id);
  if (!tenant) throw new PermanentJobError(`Tenant ${request.tenant_id} no longer exists.`);
  const schema = tenant.schema_name;

  const stored = await withTenant(app.pool, schema, (db) => checkpointOfJobRun(db, job.runId));
  if (stored) return stored;
  const { dataset, usable, previous, previousPatterns } = await withTenant(app.pool, schema, async (db) => {
    const dataset = await findDataset(db, request.dataset_id);
    if (!dataset) throw new PermanentJobError(`Dataset ${request.dataset_id} no longer exists.`);
    const policy = await dataPolicy(db);
    const notBefore = policy.retention_days === null ? null : new Date(dataset.created_at.getTime() - policy.retention_days * DAY_MS);
    const previous = await latestCheckpoint(db);
    return {
      dataset,
      usable: await trainingRecords(db, dataset.id, notBefore),
      previous,
      previousPatterns: previous ? await previousModelPatterns(db, previous.id) : [],
    };
  });

  const needed = minimumRecords(request.config);
  if (usable.records.length < needed) {
    const left = [
      usable.withoutNarrative ? `${usable.withoutNarrative} without a narrative` : '',
      usable.outsideRetention ? `${usable.outsideRetention} outside the retention period` : '',
    ].filter(Boolean);
    throw new PermanentJobError(
      `Not enough records to train on: dataset version ${dataset.version} has ${usable.records.length} usable record(s)` +
        `${left.length ? ` (${left.join(', ')} left out)` : ''}; training needs at least ${needed}.`,
    );
  }
  await job.progress(5, 'load_dataset');

  const snapshotInput: SnapshotInput = {
    workspace_id: tenant.id,
    event_sequence: dataset.version,
    previous_run_id: previous?.id ?? null,
    issues: usable.records.map((r) => ({
      id: r.record_id,
      title: r.title,
      narrative: r.narrative,
      severity: r.severity,
      source: r.source,
      occurred_at: r.occurred_at?.toISOString() ?? null,
      created_at: (r.occurred_at ?? dataset.created_at).toISOString(),
    })),
    decisions: [],
    previous_patterns: previousPatterns,
  };
  const ctx = stageContext(job.runId, dataset.created_at, request.config, request.config_hash);
  const last = stageIndex('patterns');
  const { outputs } = await runPipelineInThread({
    ctx,
    snapshotInput,
    to: 'patterns',
    signal: job.signal,
    onStage: (stage) => job.progress(5 + Math.round(((stage.index + 1) / (last + 1)) * 85), stage.stage),
  });
  const o = outputs as StageOutputs;
  const patterns = collectionOf(usable.records, o);
  const metrics: CheckpointMetrics = {
    records: usable.records.length,
    records_without_narrative: usable.withoutNarrative,
    records_outside_retention: usable.outsideRetention,
    k: o.cluster.k,
    silhouette: o.cluster.selection.find((s) => s.k === o.cluster.k)?.silhouette ?? null,
    patterns: patterns.length,
    unclustered: o.cluster.unclustered,
    stability: o.stability.summary,
  };

  const checkpoint = await withTenant(app.pool, schema, async (db) => {
    const stored = await insertCheckpoint(db, {
      datasetId: dataset.id,
      datasetVersion: dataset.version,
      configHash: request.config_hash,
      config: request.config,
      engineVersion: ENGINE_VERSION,
      metrics,
      jobRunId: job.runId,
    });
    const clustered = patterns.reduce((n, p) => n + p.size, 0);
    await insertInsightCollection(db, stored, { recordCount: usable.records.length, clusteredCount: clustered, patterns });
    return stored;
  });
  await job.progress(100, 'store_checkpoint');
  return checkpoint;
}
