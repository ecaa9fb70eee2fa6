/**
 * Report jobs and what a report reads: the stored outputs of one engine run (its patterns, hazard,
 * predict and recommend stage outputs, read from the run or, for a slice, from the run it was based
 * on), the run's pattern membership relation (engine_pattern_outputs.member_ids, never provenance
 * arrays) and the occurrence times its snapshot froze.
 */
import type { Queryable } from '../lib/db.ts';
import { decodeOutput } from '../engine/manifest.ts';
import { patternsNeeded, type ReportKind, type ReportSources } from '../engine/report/facts.ts';
import type { SnapshotOutput } from '../engine/stages/01_snapshot.ts';
import type { PatternsOutput } from '../engine/stages/07_patterns.ts';
import type { HazardOutput } from '../engine/stages/08_hazard.ts';
import type { PredictOutput } from '../engine/stages/09_predict.ts';
import type { RecommendOutput } from '../engine/stages/10_recommend.ts';
import type { TaxonomyConfig } from '../engine/config/taxonomy.ts';
import { loadStageOutput, resolveConfigs, type EngineRunRow } from './engineRuns.ts';
import type { JobStatus } from './jobRuns.ts';
import { isUuid } from '../lib/ids.ts';

export interface ReportJobRow {
  id: string;
  workspace_id: string;
  job_run_id: string | null;
  kind: ReportKind;
  run_id: string;
  pattern_id: string | null;
  template: string | null;
  facts: string | null;
  facts_digest: string | null;
  narrative_markdown: string | null;
  narrative_html: string | null;
  generator: string | null;
  error: { code: string; message: string; details?: unknown } | null;
  created_at: Date;
  finished_at: Date | null;
  /** Of its job_runs row. */
  status: JobStatus;
  progress: number;
}

export async function insertReportJob(
  db: Queryable,
  r: { id: string; workspaceId: string; kind: ReportKind; runId: string; patternId: string | null; template: string | null },
): Promise<void> {
  await db.query('insert into report_jobs (id, workspace_id, kind, run_id, pattern_id, template) values ($1, $2, $3, $4, $5, $6)', [
    r.id,
    r.workspaceId,
    r.kind,
    r.runId,
    r.patternId,
    r.template,
  ]);
}

export async function setReportJobRun(db: Queryable, id: string, jobRunId: string): Promise<void> {
  await db.query('update report_jobs set job_run_id = $2 where id = $1', [id, jobRunId]);
}

export async function findReportJob(db: Queryable, workspaceId: string, id: string): Promise<ReportJobRow | null> {
  if (!isUuid(id)) return null;
  const { rows } = await db.query<ReportJobRow>(
    `select r.*, coalesce(j.status, case when r.finished_at is null then 'queued' else 'succeeded' end) as status, coalesce(j.progress, 0) as progress
       from report_jobs r left join job_runs j on j.id = r.job_run_id
      where r.workspace_id = $1 and r.id = $2`,
    [workspaceId, id],
  );
  return rows[0] ?? null;
}

export async function completeReport(
  db: Queryable,
  id: string,
  r: { facts: string; factsDigest: string; markdown: string; html: string; generator: string },
): Promise<void> {
  await db.query(
    `update report_jobs set facts = $2, facts_digest = $3, narrative_markdown = $4, narrative_html = $5, generator = $6, error = null, finished_at = now() where id = $1`,
    [id, r.facts, r.factsDigest, r.markdown, r.html, r.generator],
  );
}

/** Records why a report failed, with the facts it was checked against when they were built. */
export async function failReport(db: Queryable, id: string, error: ReportJobRow['error'], facts?: { facts: string; factsDigest: string }): Promise<void> {
  await db.query('update report_jobs set error = $2, facts = $3, facts_digest = $4, finished_at = now() where id = $1', [
    id,
    JSON.stringify(error),
    facts?.facts ?? null,
    facts?.factsDigest ?? null,
  ]);
}

/** A run's outcome: succeeded only once it finished and its job (when it had one) succeeded. */
export async function engineRunStatus(db: Queryable, run: EngineRunRow): Promise<JobStatus> {
  if (!run.job_run_id) return run.finished_at ? 'succeeded' : 'running';
  const { rows } = await db.query<{ status: JobStatus }>('select status from job_runs where id = $1', [run.job_run_id]);
  const status = rows[0]?.status ?? (run.finished_at ? 'succeeded' : 'running');
  return status === 'succeeded' && !run.finished_at ? 'running' : status;
}

/** The latest run of the workspace that succeeded through the last stage (what a report defaults to). */
export async function latestReportableRun(db: Queryable, workspaceId: string): Promise<EngineRunRow | null> {
  const { rows } = await db.query<EngineRunRow>(
    `select r.* from engine_runs r left join job_runs j on j.id = r.job_run_id
      where r.workspace_id = $1 and r.finished_at is not null and r.stage_to = 'recommend' and (j.id is null or j.status = 'succeeded')
      order by r.created_at desc, r.id desc limit 1`,
    [workspaceId],
  );
  return rows[0] ?? null;
}

/** Whether the run (or the run its slice was based on) produced this pattern. */
export async function runHasPattern(db: Queryable, run: EngineRunRow, patternId: string): Promise<boolean> {
  if (!isUuid(patternId)) return false;
  const { rowCount } = await db.query('select 1 from engine_pattern_outputs where run_id = any($1::uuid[]) and workspace_id = $2 and pattern_id = $3', [
    [run.id, run.base_run_id].filter(Boolean),
    run.workspace_id,
    patternId,
  ]);
  return (rowCount ?? 0) > 0;
}

/** Member issue ids of patterns as the run recorded them (the run's membership relation). */
export async function runPatternMembers(db: Queryable, runIds: string[], patternIds: string[]): Promise<Record<string, string[]>> {
  if (!patternIds.length) return {};
  const { rows } = await db.query<{ pattern_id: string; member_ids: string[] }>(
    `select distinct on (o.pattern_id) o.pattern_id, o.member_ids from engine_pattern_outputs o
      where o.run_id = any($1::uuid[]) and o.pattern_id = any($2::uuid[])
      order by o.pattern_id, array_position($1::uuid[], o.run_id)`,
    [runIds, patternIds],
  );
  return Object.fromEntries(rows.map((r) => [r.pattern_id, [...r.member_ids].sort()]));
}

/** The stage output of a run, or of the run a slice read its earlier stages from. */
async function stageOf<T>(db: Queryable, run: EngineRunRow, stage: string): Promise<{ output: T; digest: string }> {
  for (const id of [run.id, run.base_run_id]) {
    if (!id) continue;
    const stored = await loadStageOutput(db, id, stage);
    if (stored) return { output: decodeOutput<T>(stored.encoded), digest: stored.digest };
  }
  throw new Error(`run ${run.id} has no stored ${stage} output`);
}

/** Everything the facts of a report of `kind` are built from; `progress` after each part read. */
export async function loadReportSources(
  db: Queryable,
  run: EngineRunRow,
  kind: ReportKind,
  patternId: string | undefined,
  progress: (step: string) => Promise<void>,
): Promise<ReportSources> {
  const patterns = await stageOf<PatternsOutput>(db, run, 'patterns');
  const hazard = await stageOf<HazardOutput>(db, run, 'hazard');
  const predict = await stageOf<PredictOutput>(db, run, 'predict');
  const recommend = await stageOf<RecommendOutput>(db, run, 'recommend');
  await progress('stage_outputs');
  const needed = patternsNeeded(kind, patterns.output.patterns, recommend.output, patternId);
  const runIds = [run.id, run.base_run_id].filter((x): x is string => !!x);
  const members = await runPatternMembers(db, runIds, needed);
  const occurrences: Record<string, string[]> = {};
  let snapshotDigest: string | null = null;
  if (needed.length) {
    const snapshot = await stageOf<SnapshotOutput>(db, run, 'snapshot');
    snapshotDigest = snapshot.digest;
    const patternOf = new Map<string, string>();
    for (const [pid, ids] of Object.entries(members)) for (const id of ids) patternOf.set(id, pid);
    for (const pid of needed) occurrences[pid] = [];
    for (const issue of snapshot.output.issues) {
      const pid = patternOf.get(issue.id);
      if (pid && issue.occurred_at) occurrences[pid].push(issue.occurred_at);
    }
    for (const pid of needed) occurrences[pid].sort();
  }
  await progress('membership');
  const configs = await resolveConfigs(db, run.workspace_id, run.config_versions);
  const taxonomy = configs.taxonomy.document as TaxonomyConfig;
  const stages = [
    ...(snapshotDigest ? [{ stage: 'snapshot', digest: snapshotDigest }] : []),
    { stage: 'patterns', digest: patterns.digest },
    { stage: 'hazard', digest: hazard.digest },
    { stage: 'predict', digest: predict.digest },
    { stage: 'recommend', digest: recommend.digest },
  ];
  return {
    run: {
      id: run.id,
      as_of: run.as_of.toISOString(),
      engine_version: run.engine_version,
      output_digest: run.output_digest ?? '',
      config_versions: run.config_versions,
    },
    stages,
    patterns: patterns.output.patterns,
    hazard: hazard.output,
    predict: predict.output,
    recommend: recommend.output,
    members,
    occurrences,
    rootCauseNames: Object.fromEntries(taxonomy.root_causes.map((r) => [r.id, r.name])),
  };
}
