/**
 * Executing an engine run: freeze the input (the event log up to the cut-off), run the pipeline,
 * store every stage's output with its digest, report progress after each stage, and write the
 * results. Used by the `engine__run` task and by `svc engine run` in the foreground. Runs of one
 * workspace never overlap: jobs share a graphile-worker queue per workspace, and every execution
 * holds the workspace's engine advisory lock.
 */
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../lib/context.ts';
import { withTransaction, type Queryable } from '../lib/db.ts';
import { AppError } from '../lib/errors.ts';
import { configKinds, type ConfigKind } from '../engine/config/index.ts';
import { ENGINE_VERSION, outputDigest } from '../engine/manifest.ts';
import { runPipelineInThread } from '../lib/engineThread.ts';
import { stageIndex, stageNames, type StageName } from '../engine/pipeline.ts';
import type { StageContext } from '../engine/stages/context.ts';
import type { SnapshotInput } from '../engine/stages/01_snapshot.ts';
import { activeConfigs, findConfigVersion, configVersionId } from '../sql/configs.ts';
import { configDefinitions } from '../engine/config/index.ts';
import * as runs from '../sql/engineRuns.ts';
import { patternTotals } from '../sql/patterns.ts';
import {
  applyRunResults,
  lockPatternState,
  type AppliedForecasts,
  type AppliedResults,
  type ForecastResults,
  type PatternResults,
  type PatternWrite,
} from '../sql/engineResults.ts';
import { runPatternStatuses } from '../domain/patternLifecycle.ts';
import { enqueueVerifications } from '../jobs/queue/recommendation__verify.ts';
import { engineQueue, engineRun } from '../jobs/queue/engine__run.ts';
import { enqueueJob } from '../jobs/runtime.ts';
import { engineStageDuration } from '../lib/metrics.ts';
import { enqueueNotifications } from '../jobs/queue/notification__route.ts';

export interface RunRequest {
  workspaceId: string;
  trigger: 'api' | 'cli';
  asOf?: Date;
  /** Config version ids to use instead of the active ones. */
  configs?: Partial<Record<ConfigKind, string>>;
  from?: StageName;
  to?: StageName;
}

/** Validates the request and records the run (inside the caller's transaction). */
export async function createEngineRun(db: Queryable, app: AppContext, request: RunRequest): Promise<runs.EngineRunRow> {
  const active = await activeConfigs(db, request.workspaceId);
  const versions = {} as Record<ConfigKind, string>;
  for (const kind of configKinds) {
    const wanted = request.configs?.[kind];
    if (wanted && wanted !== active[kind].id && wanted !== configVersionId(configDefinitions[kind].defaults)) {
      if (!(await findConfigVersion(db, request.workspaceId, kind, wanted))) {
        throw new AppError('validation_error', 'Request validation failed', { [`configs.${kind}`]: 'is not a version of this kind in the registry' });
      }
    }
    versions[kind] = wanted ?? active[kind].id;
  }
  const clusterDocument = (await runs.resolveConfigs(db, request.workspaceId, versions)).cluster.document;
  return runs.insertEngineRun(db, {
    id: randomUUID(),
    workspace_id: request.workspaceId,
    trigger: request.trigger,
    as_of: request.asOf ?? app.clock.now(),
    config_versions: versions,
    engine_version: ENGINE_VERSION,
    seed: clusterDocument.seed,
    stage_from: request.from ?? stageNames[0],
    stage_to: request.to ?? stageNames.at(-1)!,
  });
}

/**
 * A run's summary counts what the API counts and says what it left out and why: `issues` is every issue
 * of the workspace at the cut-off (GET /v1/issues), of which the engine read `issues_analysed`;
 * `patterns` is every pattern of the workspace after the run (GET /v1/patterns), of which the run found
 * `patterns_found`; the rest are listed with their reason.
 */
export interface EngineRunSummary {
  issues: number | null;
  issues_analysed: number | null;
  issues_left_out: Array<{ engine_status: string; reason: string; count: number }> | null;
  k: number | null;
  unclustered: number | null;
  patterns: number | null;
  patterns_found: number | null;
  patterns_not_found: Array<{ status: string; count: number; reason: string }> | null;
  abstentions: number | null;
  applied: AppliedResults | null;
  forecasts: AppliedForecasts | null;
}

const NOT_FOUND_REASON: Record<string, string> = {
  watching: 'found by an earlier run, not by this one: kept with its history and no issues, watched for a recurrence',
  resolved: 'not found by this run nor the one before: resolved, kept with its history',
  active: 'found by an earlier run, not by this one: kept with its history',
};

export interface ProgressReport {
  stage: StageName;
  index: number;
  total: number;
  percent: number;
  duration_ms: number;
}

export async function contextOf(app: AppContext, run: runs.EngineRunRow): Promise<StageContext> {
  return {
    runId: run.id,
    seed: Number(run.seed),
    asOf: run.as_of.toISOString(),
    configs: await runs.resolveConfigs(app.pool, run.workspace_id, run.config_versions),
  };
}

/** The outputs the results and the summary are written from (the others stay in the thread and are released there). */
const RESULT_STAGES: StageName[] = ['snapshot', 'extract', 'cluster', 'stability', 'patterns', 'hazard', 'predict', 'recommend'];

/**
 * POST /v1/engine/runs: records the run (its configs checked by `createEngineRun`) and queues it on
 * the workspace's engine queue, in one transaction. A cut-off in the future is a 400.
 */
export async function startEngineRun(app: AppContext, request: Omit<RunRequest, 'trigger'>): Promise<{ run: runs.EngineRunRow; jobId: string }> {
  if (request.asOf && request.asOf > app.clock.now())
    throw new AppError('validation_error', 'Request validation failed', { as_of: 'must not be in the future' });
  return withTransaction(app.pool, async (client) => {
    const run = await createEngineRun(client, app, { ...request, trigger: 'api' });
    const { job } = await enqueueJob(
      client,
      engineRun,
      { run_id: run.id, workspace_id: request.workspaceId },
      { workspaceId: request.workspaceId, queueName: engineQueue(request.workspaceId) },
    );
    await runs.setEngineRunJob(client, run.id, job.id);
    return { run, jobId: job.id };
  });
}

/** The most recent finished run of the workspace that stored `stage`'s output. */
async function baseRunFor(app: AppContext, run: runs.EngineRunRow, stage: StageName): Promise<string> {
  const baseRunId = await runs.adoptBaseRun(app.pool, run, stage);
  if (!baseRunId) throw new AppError('conflict', `No earlier run stored the ${stage} stage; run the stages before ${run.stage_from} first`);
  return baseRunId;
}

/**
 * The pattern lifecycle of a run's results: reads (and locks) what the rule needs, then decides the
 * status of every pattern the run touches (domain/patternLifecycle.ts) for `applyRunResults` to write.
 */
async function decidePatternStatuses(db: Queryable, workspaceId: string, results: PatternResults): Promise<PatternWrite> {
  const state = await lockPatternState(db, workspaceId, results.snapshot);
  const issueStatuses = new Map([...state.issueRows].map(([id, row]) => [id, row.status]));
  const statuses = runPatternStatuses(results.patterns.patterns, state.patternRows, issueStatuses, state.verdicts);
  return { ...results, state, statuses };
}

/**
 * Writes a run's results (the whole of the caller's transaction): the pattern statuses decided here,
 * then everything `applyRunResults` stores; `beforeFlush` enqueues jobs on the transaction.
 */
export async function writeRunResults(
  db: Queryable,
  workspaceId: string,
  ctx: StageContext,
  outputs: { patterns?: PatternResults; forecasts?: ForecastResults },
  beforeFlush?: () => Promise<unknown>,
) {
  const patterns = outputs.patterns ? await decidePatternStatuses(db, workspaceId, outputs.patterns) : undefined;
  return applyRunResults(db, workspaceId, ctx, { patterns, forecasts: outputs.forecasts }, beforeFlush);
}

export async function executeEngineRun(
  app: AppContext,
  runId: string,
  workspaceId: string,
  onProgress: (p: ProgressReport) => Promise<void> | void,
  signal?: AbortSignal,
) {
  const lockClient = await app.pool.connect();
  try {
    await runs.lockWorkspaceEngine(lockClient, workspaceId);
    const run = (await runs.findEngineRun(app.pool, workspaceId, runId))!;
    // A retry of a run whose results committed (its worker died before the job was recorded):
    // the results and the run's completion are one commit, so there is nothing left to do.
    if (run.finished_at) return { run, records: run.stages, summary: run.summary as EngineRunSummary };
    const ctx = await contextOf(app, run);
    const from = run.stage_from as StageName;
    const to = run.stage_to as StageName;
    const total = stageIndex(to) - stageIndex(from) + 1;

    // The input is read while the thread starts (loads its modules); it is handed over once read.
    let snapshotInput: Promise<SnapshotInput> | undefined;
    let baseRunId: string | null = null;
    if (from === 'snapshot') {
      const sequence = await runs.sequenceAsOf(app.pool, workspaceId, run.as_of);
      const previous = await runs.previousPatternRun(app.pool, workspaceId, sequence, run.id);
      await runs.recordSnapshot(app.pool, run.id, sequence, previous);
      snapshotInput = runs.buildSnapshotInput(app.pool, workspaceId, sequence, previous);
    } else {
      baseRunId = await baseRunFor(app, run, stageNames[stageIndex(from) - 1]);
    }

    const pipeline = runPipelineInThread({
      ctx,
      snapshotInput,
      from,
      to,
      timed: true,
      keep: RESULT_STAGES,
      signal,
      load: async (stage) => {
        const stored = await runs.loadStageOutput(app.pool, baseRunId!, stage);
        if (!stored) throw new AppError('conflict', `Run ${baseRunId} has no stored ${stage} output`);
        return stored.encoded;
      },
      onStage: async (result) => {
        const { stage, digest, bytes, duration_ms } = result;
        engineStageDuration.observe({ stage }, duration_ms / 1000);
        await runs.recordStage(app.pool, run.id, { stage, digest, bytes, duration_ms }, result.encoded);
        await onProgress({
          stage: result.stage as StageName,
          index: result.index,
          total,
          percent: Math.round(((result.index - stageIndex(from) + 1) / total) * 100),
          duration_ms: result.duration_ms,
        });
      },
    });
    snapshotInput = undefined; // the thread gets its own copy
    const { outputs, records } = await pipeline;

    const o = outputs;
    const patternResults = o.snapshot && o.extract && o.patterns ? { snapshot: o.snapshot, extract: o.extract, patterns: o.patterns } : undefined;
    const forecastResults = o.hazard && o.predict && o.recommend ? { hazard: o.hazard, predict: o.predict, recommend: o.recommend } : undefined;
    // The results and the run's completion commit together: a run is finished exactly when its
    // results are applied.
    const summary = await withTransaction(app.pool, async (client): Promise<EngineRunSummary> => {
      let applied: AppliedResults | null = null;
      let forecasts: AppliedForecasts | null = null;
      if (patternResults || forecastResults) {
        ({ patterns: applied, forecasts } = await writeRunResults(
          client,
          workspaceId,
          ctx,
          { patterns: patternResults, forecasts: forecastResults },
          // Pattern membership changed: implemented fixes of the workspace are verified again (with the results),
          // and its findings are routed to the members as notifications (committed with them).
          async () => {
            await enqueueVerifications(client, workspaceId);
            await enqueueNotifications(client, { source: 'engine_run', workspace_id: workspaceId, run_id: run.id });
          },
        ));
      }
      const leftOut = o.snapshot ? (o.snapshot.left_out ?? []) : null;
      const totals = o.patterns ? await patternTotals(client, workspaceId) : null;
      const summary = {
        issues: o.snapshot ? o.snapshot.issues.length + leftOut!.reduce((n, l) => n + l.count, 0) : null,
        issues_analysed: o.snapshot?.issues.length ?? null,
        issues_left_out: leftOut,
        k: o.cluster?.k ?? null,
        // Issues the run left without a pattern (stage 7 places some that stage 5 left out: issue 31).
        unclustered: o.patterns ? o.patterns.pattern_ids.reduce((u, p) => u + (p === null ? 1 : 0), 0) : (o.cluster?.unclustered ?? null),
        patterns: totals?.total ?? null,
        patterns_found: o.patterns?.patterns.length ?? null,
        patterns_not_found: totals?.empty.map((e) => ({ ...e, reason: NOT_FOUND_REASON[e.status] ?? 'not found by this run' })) ?? null,
        abstentions: o.extract?.abstentions.length ?? null,
        applied,
        forecasts,
      };
      await runs.finishEngineRun(client, run.id, {
        input_digest: o.snapshot?.input_digest ?? null,
        output_digest: outputDigest(records),
        stability_report: o.stability ?? null,
        summary,
      });
      return summary;
    });
    return { run: (await runs.findEngineRun(app.pool, workspaceId, runId))!, records, summary };
  } finally {
    await runs.unlockWorkspaceEngine(lockClient, workspaceId).catch(() => {});
    lockClient.release();
  }
}

export interface ReplayResult {
  identical: boolean;
  diff_summary: {
    input_digest: { expected: string | null; actual: string | null; identical: boolean };
    /** The engine that stored the run against the one replaying it: a newer engine may group differently. */
    engine_version: { expected: string; actual: string; identical: boolean };
    stages: Array<{ stage: string; expected: string | null; actual: string; identical: boolean }>;
    first_divergent_stage: string | null;
    /** Why nothing was compared, else null. */
    reason: string | null;
  };
}

/** The engine version that stored a run beside this one's. */
export const engineVersionOf = (run: Pick<runs.EngineRunRow, 'engine_version'>) => ({
  expected: run.engine_version,
  actual: ENGINE_VERSION,
  identical: run.engine_version === ENGINE_VERSION,
});

/**
 * Re-executes a run from its frozen inputs (the event log up to its sequence, its previous run's
 * patterns, its config versions and seed) without writing anything, and compares every stage's
 * digest with the stored one. A difference is a result, not an error.
 */
export async function replayEngineRun(app: AppContext, run: runs.EngineRunRow): Promise<ReplayResult> {
  const ctx = await contextOf(app, run);
  const from = run.stage_from as StageName;
  let snapshotInput: SnapshotInput | undefined;
  if (from === 'snapshot') {
    if (run.event_sequence === null) throw new AppError('conflict', 'The run has not frozen its input yet');
    snapshotInput = await runs.buildSnapshotInput(app.pool, run.workspace_id, run.event_sequence, run.previous_run_id);
  }
  const { outputs, records } = await runPipelineInThread({
    ctx,
    snapshotInput,
    from,
    to: run.stage_to as StageName,
    keep: ['snapshot'],
    load: async (stage) => {
      const stored = run.base_run_id ? await runs.loadStageOutput(app.pool, run.base_run_id, stage) : null;
      if (!stored) throw new AppError('conflict', `The run's base has no stored ${stage} output`);
      return stored.encoded;
    },
  });
  const expected = new Map(run.stages.map((s) => [s.stage, s.digest]));
  const stages = records.map((r) => ({
    stage: r.stage,
    expected: expected.get(r.stage) ?? null,
    actual: r.digest,
    identical: expected.get(r.stage) === r.digest,
  }));
  const actualInput = outputs.snapshot?.input_digest ?? null;
  const input = { expected: run.input_digest, actual: actualInput, identical: run.input_digest === actualInput };
  const firstDivergent = stages.find((s) => !s.identical)?.stage ?? null;
  return {
    identical: input.identical && firstDivergent === null,
    diff_summary: {
      input_digest: input,
      engine_version: engineVersionOf(run),
      stages,
      first_divergent_stage: firstDivergent,
      reason: null,
    },
  };
}
