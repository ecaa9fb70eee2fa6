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
import { meanResidualDays } from '../engine/hazard/trend.ts';
import { clockOf, fitOf, type PatternHazard } from '../engine/stages/08_hazard.ts';
import { runPipelineInThread } from '../lib/engineThread.ts';
import type { SnapshotInput } from '../engine/stages/01_snapshot.ts';
import type { ResolvedConfigs, StageContext } from '../engine/stages/context.ts';
import { checkpointOfJobRun, insertCheckpoint, latestCheckpoint, type CheckpointMetrics, type CheckpointRow } from '../sql/tenant/checkpoints.ts';
import { configVersionId } from '../sql/configs.ts';
import { findDataset, trainingRecords, type TrainingRecord } from '../sql/tenant/datasets.ts';
import { insertInsightCollection, previousModelPatterns, type CollectionForecasts, type InsightPattern, type PatternForecast } from '../sql/tenant/insights.ts';
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

/** Four significant digits: what a chart needs, and 500 patterns' curves stay a small answer. */
const short = (x: number) => Number(x.toPrecision(4));
const plusDays = (iso: string, days: number) => new Date(Date.parse(iso) + days * DAY_MS).toISOString();

/**
 * The insights page's view of a pattern's recurrence model: the hazard curve with its pointwise
 * interval, the expected next occurrence (as-of plus the mean residual life, with the interval of
 * that mean) and P(recurrence within the alert horizon); or why no model could be fitted.
 */
export function forecastOf(h: PatternHazard, asOf: string, level: number): PatternForecast {
  if (h.status === 'not_fitted') return { status: 'not_fitted', reason: h.reason, detail: h.detail, occurrences: h.n_occurrences };
  // A dormant pattern (quiet for longer than its model explains) keeps its fit but gets no forecast.
  if (h.p_alert === null) {
    return { status: 'not_fitted', reason: 'dormant', detail: 'quiet for longer than its model explains: no forecast', occurrences: h.n_occurrences };
  }
  // On the model's clock when stage 8 kept a trend of the pace (engine/hazard/trend.ts); in days either way.
  const next = meanResidualDays(fitOf(h, level), clockOf(h), h.since_last_days, level);
  const expected = { estimate: short(next.estimate), lower: short(next.lower), upper: short(next.upper) };
  return {
    status: 'fitted',
    model: h.model,
    occurrences: h.n_occurrences,
    last_occurrence_at: h.last_occurrence_at,
    since_last_days: short(h.since_last_days),
    expected_next_days: expected,
    expected_next_at: { estimate: plusDays(asOf, next.estimate), lower: plusDays(asOf, next.lower), upper: plusDays(asOf, next.upper) },
    recurrence_probability: { estimate: short(h.p_alert.estimate), lower: short(h.p_alert.lower), upper: short(h.p_alert.upper) },
    hazard_curve: {
      times_days: h.curves.times_days.map(short),
      hazard: h.curves.hazard.map(short),
      lower: h.curves.hazard_lower.map(short),
      upper: h.curves.hazard_upper.map(short),
    },
  };
}

function collectionOf(records: TrainingRecord[], outputs: StageOutputs): InsightPattern[] {
  const severityOf = new Map(records.map((r) => [r.record_id, r.severity]));
  const hazardOf = new Map(outputs.hazard.patterns.map((h) => [h.pattern_id, h]));
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
      forecast: forecastOf(hazardOf.get(p.id)!, outputs.hazard.as_of, outputs.hazard.interval_level),
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
  const last = stageIndex('hazard');
  const { outputs } = await runPipelineInThread({
    ctx,
    snapshotInput,
    to: 'hazard',
    keep: ['cluster', 'stability', 'patterns', 'hazard'],
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
    const forecasts: CollectionForecasts = {
      as_of: o.hazard.as_of,
      interval_level: o.hazard.interval_level,
      recurrence_horizon_days: ctx.configs.hazard.document.alert_horizon_days,
    };
    await insertInsightCollection(db, stored, { recordCount: usable.records.length, clusteredCount: clustered, forecasts, patterns });
    return stored;
  });
  await job.progress(100, 'store_checkpoint');
  return checkpoint;
}
