/**
 * Engine runs: trigger (202, a job per run, one at a time per workspace), list, read the manifest and
 * stability report, and replay as a determinism check (200 {identical, diff_summary} whatever the
 * outcome). Also GET /v1/issues/{id}/root-cause.
 */
import { z } from 'zod';
import { jsonValue } from '../../http/jsonValue.ts';
import type { AppContext } from '../../../lib/context.ts';
import { AppError } from '../../../lib/errors.ts';
import { configKinds } from '../../../engine/config/index.ts';
import { stageIndex, stageNames, type StageName } from '../../../engine/pipeline.ts';
import { engineVersionOf, startEngineRun, type ReplayResult } from '../../../usecases/runEngine.ts';
import { enqueueJob } from '../../../jobs/runtime.ts';
import { engineQueue } from '../../../jobs/queue/engine__run.ts';
import { engineReplay } from '../../../jobs/queue/engine__replay.ts';
import { activeConfig } from '../../../sql/configs.ts';
import { findEngineRun, type EngineRunRow } from '../../../sql/engineRuns.ts';
import { findJobRun, jobStatuses, type JobRun } from '../../../sql/jobRuns.ts';
import { findIssueExtraction } from '../../../sql/engineResults.ts';
import { findIssue } from '../../../sql/issues.ts';
import { latestReviewItemOfIssue } from '../../../sql/reviewItems.ts';
import { reply } from '../../http/routes.ts';
import { listQuery, listResponse, paginate } from '../pagination.ts';
import { platformRoute } from '../route.ts';
import { engineRunList } from '../../../sql/engineRuns.ts';

const stageEnum = z.enum(stageNames as [StageName, ...StageName[]], { error: `must be one of ${stageNames.join(', ')}` });

const stageRecordSchema = z.object({ stage: z.string(), digest: z.string(), bytes: z.number().int(), duration_ms: z.number().int() });
const count = z.number().int();
/** Counts as the API counts them; fields of runs recorded before a count existed are absent. */
const runSummarySchema = z.object({
  issues: count.nullable().describe('Issues of the workspace at the cut-off (what GET /v1/issues counts); null when the run did not take a snapshot'),
  issues_analysed: count.nullable().optional().describe('Of those, the eligible issues the engine read'),
  issues_left_out: z
    .array(z.object({ engine_status: z.string(), reason: z.string().describe('e.g. "no narrative"'), count }))
    .nullable()
    .optional()
    .describe('The issues the engine did not read, by engine status and reason'),
  k: count.nullable(),
  unclustered: count.nullable().describe('Issues of the snapshot the run left without a pattern'),
  patterns: count.nullable().describe('Patterns of the workspace after the run (what GET /v1/patterns counts)'),
  patterns_found: count.nullable().optional().describe('Of those, the patterns this run found'),
  patterns_not_found: z
    .array(z.object({ status: z.string(), count, reason: z.string() }))
    .nullable()
    .optional()
    .describe('Patterns of earlier runs this run did not find (kept with their history and no issues), by status, with the reason'),
  abstentions: count.nullable(),
  applied: z.record(z.string(), count).nullable().describe('What the run wrote of stages 1-7: patterns created and updated, issues assigned, review items'),
  forecasts: z
    .record(z.string(), count)
    .nullable()
    .describe('What the run wrote of stages 8-10: hazards (fitted, dormant included), dormant, predictions, recommendations, alerts'),
});

const runSchema = z.object({
  id: z.string(),
  status: z.enum(jobStatuses),
  progress: z.number().int(),
  steps_completed: z.array(z.string()),
  error_detail: z.string().nullable(),
  job_id: z.string().nullable(),
  trigger: z.enum(['api', 'cli']),
  stage_from: z.string(),
  stage_to: z.string(),
  manifest: z.object({
    engine_version: z.string(),
    seed: z.number().int(),
    as_of: z.string(),
    event_sequence: z.number().int().nullable(),
    previous_run_id: z.string().nullable(),
    base_run_id: z.string().nullable(),
    input_digest: z.string().nullable(),
    config_versions: z.record(z.string(), z.string()),
    stages: z.array(stageRecordSchema),
    output_digest: z.string().nullable(),
  }),
  stability_report: jsonValue('The clustering stability report of the run').nullable(),
  summary: runSummarySchema.nullable().describe('null until the run finished'),
  created_at: z.string(),
  finished_at: z.string().nullable(),
});

function toRun(run: EngineRunRow, job: JobRun | null): z.infer<typeof runSchema> {
  return {
    id: run.id,
    status: job?.status ?? (run.finished_at ? 'succeeded' : 'running'),
    progress: job?.progress ?? (run.finished_at ? 100 : 0),
    steps_completed: job?.steps_completed ?? run.stages.map((s) => s.stage),
    error_detail: job?.error_detail ?? null,
    job_id: run.job_run_id,
    trigger: run.trigger,
    stage_from: run.stage_from,
    stage_to: run.stage_to,
    manifest: {
      engine_version: run.engine_version,
      seed: Number(run.seed),
      as_of: run.as_of.toISOString(),
      event_sequence: run.event_sequence,
      previous_run_id: run.previous_run_id,
      base_run_id: run.base_run_id,
      input_digest: run.input_digest,
      config_versions: run.config_versions,
      stages: run.stages,
      output_digest: run.output_digest,
    },
    stability_report: run.stability_report ?? null,
    summary: (run.summary as z.infer<typeof runSummarySchema> | null) ?? null,
    created_at: run.created_at.toISOString(),
    finished_at: run.finished_at?.toISOString() ?? null,
  };
}

async function runWithJob(app: AppContext, run: EngineRunRow) {
  const job = run.job_run_id ? await findJobRun(app.pool, run.job_run_id, { workspaceId: run.workspace_id }) : null;
  return toRun(run, job);
}

/** Waits for a job to finish (the replay runs on a worker so that the API's event loop stays free); null when it did not in time. */
async function waitForJob(app: AppContext, jobId: string, workspaceId: string, timeoutMs: number): Promise<JobRun | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = (await findJobRun(app.pool, jobId, { workspaceId }))!;
    if (job.status === 'succeeded' || job.status === 'failed' || job.status === 'cancelled') return job;
    if (Date.now() > deadline) return null;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The replay outcome when no replay could compare the stages: identical false, and why. */
const notReplayed = (run: EngineRunRow, reason: string) => ({
  identical: false,
  diff_summary: {
    input_digest: { expected: run.input_digest, actual: null, identical: false },
    engine_version: engineVersionOf(run),
    stages: [],
    first_divergent_stage: null,
    reason,
  },
});

const replaySchema = z.object({
  identical: z.boolean(),
  diff_summary: z.object({
    input_digest: z.object({ expected: z.string().nullable(), actual: z.string().nullable(), identical: z.boolean() }),
    engine_version: z
      .object({ expected: z.string(), actual: z.string(), identical: z.boolean() })
      .describe('The engine version that stored the run and the one that replayed it; a newer engine may group differently, so its digests may differ'),
    stages: z.array(z.object({ stage: z.string(), expected: z.string().nullable(), actual: z.string(), identical: z.boolean() })),
    first_divergent_stage: z.string().nullable(),
    reason: z.string().nullable().describe('Why nothing was compared (the run has not finished, the replay failed or is still running), else null'),
  }),
  replay_job_id: z.string().nullable(),
});

const judgementSchema = z.object({
  value: z.string().nullable(),
  confidence: z.number(),
  source: z.string(),
  abstained: z.boolean(),
  candidates: z.array(z.object({ id: z.string(), score: z.number() })),
  evidence: z.array(z.string()),
});
const rootCauseSchema = z.object({
  issue_id: z.string(),
  status: z.enum(['decided', 'abstained']),
  root_cause: z.object({ id: z.string(), name: z.string() }).nullable(),
  confidence: z.number().nullable(),
  source: z.string().nullable(),
  evidence: z.array(z.string()),
  candidates: z.array(z.object({ id: z.string(), score: z.number() })),
  domain: judgementSchema.nullable(),
  criticality: jsonValue('The criticality assessment of the pattern').nullable(),
  review_item_id: z.string().nullable(),
  reason: z.string().nullable(),
  provenance: z.record(z.string(), jsonValue('A provenance value (config version ids, digests, counts)')).nullable(),
});

export const engineRoutes = [
  platformRoute({
    method: 'post',
    path: '/v1/engine/runs',
    operationId: 'createEngineRun',
    summary: 'Trigger an engine run (Idempotency-Key mandatory)',
    description:
      'Runs the engine over the eligible issues as of `as_of` (default now) with the active config versions, or those named in `configs`. ' +
      `Optional \`stages\` runs a slice (${stageNames.join(', ')}); a slice after the snapshot reads earlier outputs from the latest run that stored them.`,
    tags: ['engine'],
    scope: 'engine:run',
    body: z
      .object({
        as_of: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 timestamp' }).optional(),
        configs: z.partialRecord(z.enum(configKinds), z.string().regex(/^[0-9a-f]{64}$/, 'must be a config version id')).optional(),
        stages: z.object({ from: stageEnum.default('snapshot'), to: stageEnum.default(stageNames.at(-1)!) }).optional(),
      })
      .refine((b) => !b.stages || stageIndex(b.stages.from) <= stageIndex(b.stages.to), { message: 'from must not come after to', path: ['stages', 'to'] })
      .optional(),
    responses: { 202: { description: 'Queued', schema: z.object({ run_id: z.string(), job_id: z.string(), status: z.literal('queued') }) } },
    handler: async ({ body, principal, app }) => {
      const { run, jobId } = await startEngineRun(app, {
        workspaceId: principal.workspaceId,
        asOf: body?.as_of ? new Date(body.as_of) : undefined,
        configs: body?.configs,
        from: body?.stages?.from,
        to: body?.stages?.to,
      });
      return reply.accepted({ run_id: run.id, job_id: jobId, status: 'queued' as const });
    },
  }),
  platformRoute({
    method: 'get',
    path: '/v1/engine/runs',
    operationId: 'listEngineRuns',
    summary: 'List engine runs, newest first',
    tags: ['engine'],
    scope: 'engine:read',
    query: listQuery({}, ['created_at'], '-created_at'),
    responses: { 200: { description: 'A page of runs', schema: listResponse(runSchema) } },
    handler: async ({ query, principal, app }) => {
      const page = await paginate(
        app.pool,
        engineRunList(principal.workspaceId),
        { query, cursorKey: app.secrets.cursorKey },
        // `job` is the joined job_runs row as JSON; toRun reads only its status fields.
        (row) => toRun(row as unknown as EngineRunRow, row.job as JobRun | null),
      );
      return reply.ok(page);
    },
  }),
  platformRoute({
    method: 'get',
    path: '/v1/engine/runs/{id}',
    operationId: 'getEngineRun',
    summary: 'An engine run: status, per-stage progress and timings, manifest and stability report',
    tags: ['engine'],
    scope: 'engine:read',
    params: z.object({ id: z.string() }),
    responses: { 200: { description: 'The run', schema: runSchema }, 404: { description: 'Not found' } },
    handler: async ({ params, principal, app }) => {
      const run = await findEngineRun(app.pool, principal.workspaceId, params.id);
      if (!run) throw new AppError('not_found', 'Engine run not found');
      return reply.ok(await runWithJob(app, run));
    },
  }),
  platformRoute({
    method: 'post',
    path: '/v1/engine/runs/{id}/replay',
    operationId: 'replayEngineRun',
    summary: 'Re-execute a run from its frozen inputs and compare every stage digest',
    description:
      'Always 200 with {identical, diff_summary} for a run of the workspace; identical: false is a result, not an error (diff_summary.reason says why when ' +
      "nothing could be compared: the run has not finished, the replay failed or is still running). Concurrent replays of one run share one job on the workspace's engine queue.",
    tags: ['engine'],
    scope: 'engine:run',
    params: z.object({ id: z.string() }),
    responses: { 200: { description: 'Replay outcome', schema: replaySchema }, 404: { description: 'Not found' } },
    handler: async ({ params, principal, app }) => {
      const run = await findEngineRun(app.pool, principal.workspaceId, params.id);
      if (!run) throw new AppError('not_found', 'Engine run not found');
      if (!run.finished_at) return reply.ok({ ...notReplayed(run, 'The run has not finished; replay it once it succeeded'), replay_job_id: null });
      // One job per run while it waits (the key is released when it starts), behind the workspace's engine runs.
      const { job } = await enqueueJob(
        app.pool,
        engineReplay,
        { run_id: run.id, workspace_id: principal.workspaceId },
        { workspaceId: principal.workspaceId, queueName: engineQueue(principal.workspaceId), jobKey: `engine_replay:${run.id}` },
      );
      const done = await waitForJob(app, job.id, principal.workspaceId, 10 * 60_000);
      if (!done) return reply.ok({ ...notReplayed(run, `The replay is still running; poll GET /v1/jobs/${job.id}`), replay_job_id: job.id });
      if (done.status !== 'succeeded')
        return reply.ok({ ...notReplayed(run, `The replay ${done.status}: ${done.error_detail ?? 'no detail'}`), replay_job_id: job.id });
      return reply.ok({ ...(done.result as ReplayResult), replay_job_id: job.id });
    },
  }),
  platformRoute({
    method: 'get',
    path: '/v1/issues/{id}/root-cause',
    operationId: 'getIssueRootCause',
    summary: "The issue's root cause with its evidence, or status abstained with a pointer into the review queue",
    tags: ['issues'],
    scope: 'issues:read',
    params: z.object({ id: z.string() }),
    responses: {
      200: { description: 'Root cause or abstention', schema: rootCauseSchema },
      404: { description: 'No such issue, or the engine has not looked at it yet' },
    },
    handler: async ({ params, principal, app }) => {
      const issue = await findIssue(app.pool, principal.workspaceId, params.id);
      if (!issue) throw new AppError('not_found', 'Issue not found');
      const base = {
        issue_id: issue.id,
        evidence: [] as string[],
        candidates: [] as Array<{ id: string; score: number }>,
        domain: null,
        criticality: null,
        provenance: null,
        confidence: null,
        source: null,
        root_cause: null,
      };
      if (issue.engine_status !== 'eligible') {
        return reply.ok({
          ...base,
          status: 'abstained' as const,
          review_item_id: await latestReviewItemOfIssue(app.pool, principal.workspaceId, issue.id, ['missing_narrative']),
          reason: issue.engine_status === 'blocked_no_narrative' ? 'The issue has no narrative.' : `The issue is not eligible: ${issue.ineligible_reason}`,
        });
      }
      const extraction = await findIssueExtraction(app.pool, principal.workspaceId, issue.id);
      if (!extraction) throw new AppError('not_found', 'The engine has not analysed this issue yet; trigger an engine run');
      const rc = extraction.root_cause;
      const common = {
        ...base,
        confidence: rc.confidence,
        source: rc.source,
        evidence: rc.evidence,
        candidates: rc.candidates,
        domain: extraction.domain,
        criticality: extraction.criticality,
        provenance: extraction.provenance,
      };
      if (rc.abstained || !rc.value) {
        return reply.ok({
          ...common,
          status: 'abstained' as const,
          review_item_id: await latestReviewItemOfIssue(app.pool, principal.workspaceId, issue.id, ['root_cause']),
          reason: 'The evidence does not single out a root cause; a reviewer decides.',
        });
      }
      const names = (await activeConfig(app.pool, principal.workspaceId, 'taxonomy')).document.root_causes;
      return reply.ok({
        ...common,
        status: 'decided' as const,
        root_cause: { id: rc.value, name: names.find((r) => r.id === rc.value)?.name ?? rc.value },
        review_item_id: null,
        reason: null,
      });
    },
  }),
];
