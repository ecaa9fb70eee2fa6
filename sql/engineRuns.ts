/**
 * Engine runs and their frozen inputs. A run's input is the event log up to its `event_sequence`:
 * folding those events gives exactly the issues the run saw, so a replay (or a data engineer's
 * re-run of one stage) reconstructs the same input without a copy of it. Stage outputs are stored
 * gzip-compressed with their digests.
 */
import { groupingDecisionsAt } from './groupingDecisions.ts';
import { promisify } from 'node:util';
import { gunzipSync, gzip } from 'node:zlib';
import type { Queryable } from '../lib/db.ts';
import type { ConfigKind } from '../engine/config/index.ts';
import type { StageRecord } from '../engine/manifest.ts';
import type { SnapshotInput } from '../engine/stages/01_snapshot.ts';
import type { ResolvedConfigs } from '../engine/stages/context.ts';
import { configDefinitions, configKinds } from '../engine/config/index.ts';
import { configVersionId, findConfigVersion } from './configs.ts';
import { applyIssueEvent, type IssueRow } from './issueProjection.ts';
import type { StoredEvent } from './events.ts';
import { equalityFilters, type ListSource } from './pagination.ts';
import { isUuid } from '../lib/ids.ts';

const gzipAsync = promisify(gzip);

export interface EngineRunRow {
  id: string;
  workspace_id: string;
  job_run_id: string | null;
  trigger: 'api' | 'cli';
  as_of: Date;
  event_sequence: number | null;
  previous_run_id: string | null;
  base_run_id: string | null;
  config_versions: Record<ConfigKind, string>;
  engine_version: string;
  seed: number;
  stage_from: string;
  stage_to: string;
  input_digest: string | null;
  output_digest: string | null;
  stages: StageRecord[];
  stability_report: unknown;
  summary: unknown;
  created_at: Date;
  finished_at: Date | null;
}

export async function insertEngineRun(
  db: Queryable,
  run: Pick<EngineRunRow, 'id' | 'workspace_id' | 'trigger' | 'as_of' | 'config_versions' | 'engine_version' | 'seed' | 'stage_from' | 'stage_to'>,
): Promise<EngineRunRow> {
  const { rows } = await db.query<EngineRunRow>(
    `insert into engine_runs (id, workspace_id, trigger, as_of, config_versions, engine_version, seed, stage_from, stage_to)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning *`,
    [run.id, run.workspace_id, run.trigger, run.as_of, JSON.stringify(run.config_versions), run.engine_version, run.seed, run.stage_from, run.stage_to],
  );
  return rows[0];
}

export async function setEngineRunJob(db: Queryable, runId: string, jobRunId: string): Promise<void> {
  await db.query('update engine_runs set job_run_id = $2 where id = $1', [runId, jobRunId]);
}

export async function findEngineRun(db: Queryable, workspaceId: string, id: string): Promise<EngineRunRow | null> {
  if (!isUuid(id)) return null;
  const { rows } = await db.query<EngineRunRow>('select * from engine_runs where workspace_id = $1 and id = $2', [workspaceId, id]);
  return rows[0] ?? null;
}

/** Records what the snapshot froze: the log position, the previous run matched against, the input digest. */
export async function recordSnapshot(db: Queryable, runId: string, eventSequence: number, previousRunId: string | null): Promise<void> {
  await db.query('update engine_runs set event_sequence = $2, previous_run_id = $3 where id = $1', [runId, eventSequence, previousRunId]);
}

export async function recordStage(db: Queryable, runId: string, record: StageRecord, encoded: Buffer): Promise<void> {
  // Compressed on the libuv thread pool: a worker's event loop (heartbeats, other jobs) is not held for seconds.
  const compressed = await gzipAsync(encoded, { level: 1 });
  await db.query(
    `insert into engine_stage_outputs (run_id, stage, digest, bytes, duration_ms, data) values ($1, $2, $3, $4, $5, $6)
     on conflict (run_id, stage) do update set digest = excluded.digest, bytes = excluded.bytes, duration_ms = excluded.duration_ms, data = excluded.data, created_at = now()`,
    [runId, record.stage, record.digest, record.bytes, record.duration_ms, compressed],
  );
  // Stages are recorded in pipeline order; a stage recorded again replaces its entry.
  await db.query(
    `update engine_runs set stages = (
       select coalesce(jsonb_agg(e), '[]'::jsonb) from jsonb_array_elements(stages) e where e->>'stage' <> $2
     ) || jsonb_build_array($3::jsonb) where id = $1`,
    [runId, record.stage, JSON.stringify(record)],
  );
}

export async function loadStageOutput(db: Queryable, runId: string, stage: string): Promise<{ digest: string; encoded: Buffer } | null> {
  const { rows } = await db.query<{ digest: string; data: Buffer }>('select digest, data from engine_stage_outputs where run_id = $1 and stage = $2', [
    runId,
    stage,
  ]);
  return rows[0] ? { digest: rows[0].digest, encoded: gunzipSync(rows[0].data) } : null;
}

export async function finishEngineRun(
  db: Queryable,
  runId: string,
  result: { input_digest: string | null; output_digest: string; stability_report: unknown; summary: unknown },
): Promise<void> {
  await db.query(
    `update engine_runs set input_digest = coalesce($2, input_digest), output_digest = $3, stability_report = $4, summary = $5, finished_at = now() where id = $1`,
    [runId, result.input_digest, result.output_digest, JSON.stringify(result.stability_report ?? null), JSON.stringify(result.summary ?? null)],
  );
}

/** The log position of the run's cut-off: the last event recorded at or before `asOf`. */
export async function sequenceAsOf(db: Queryable, workspaceId: string, asOf: Date): Promise<number> {
  const { rows } = await db.query<{ s: number | null }>('select max(sequence) as s from events where workspace_id = $1 and recorded_at <= $2', [
    workspaceId,
    asOf,
  ]);
  return rows[0].s ?? 0;
}

/** The latest finished run of the workspace that produced patterns, other than `exceptRunId`. */
export async function previousPatternRun(db: Queryable, workspaceId: string, beforeSequence: number, exceptRunId: string): Promise<string | null> {
  const { rows } = await db.query<{ id: string }>(
    `select r.id from engine_runs r
      where r.workspace_id = $1 and r.id <> $3 and r.finished_at is not null and r.event_sequence <= $2
        and exists (select 1 from engine_stage_outputs o where o.run_id = r.id and o.stage = 'patterns')
      order by r.event_sequence desc, r.created_at desc limit 1`,
    [workspaceId, beforeSequence, exceptRunId],
  );
  return rows[0]?.id ?? null;
}

const PAGE = 5000;

/**
 * The frozen input of a run: the eligible issues as the event log describes them at `eventSequence`
 * (issue.pattern_assigned events, which change none of the input fields, are skipped), the reviewers'
 * latest decisions up to then, and the patterns of `previousRunId`, and people's grouping decisions in
 * force at `eventSequence` (sql/groupingDecisions.ts).
 */
export async function buildSnapshotInput(db: Queryable, workspaceId: string, eventSequence: number, previousRunId: string | null): Promise<SnapshotInput> {
  const states = new Map<string, IssueRow>();
  let after = 0;
  for (;;) {
    const { rows } = await db.query<StoredEvent>(
      `select workspace_id, sequence, aggregate_id, event_type, payload, recorded_at from events
        where workspace_id = $1 and aggregate_type = 'issue' and event_type <> 'issue.pattern_assigned'
          and sequence > $2 and sequence <= $3
        order by sequence limit $4`,
      [workspaceId, after, eventSequence, PAGE],
    );
    for (const e of rows) states.set(e.aggregate_id, applyIssueEvent(states.get(e.aggregate_id), e));
    if (rows.length < PAGE) break;
    after = rows.at(-1)!.sequence;
  }
  const leftOut = new Map<string, { engine_status: string; reason: string; count: number }>();
  for (const s of states.values()) {
    if (s.engine_status === 'eligible' && s.narrative !== null) continue;
    const reason = s.engine_status === 'blocked_no_narrative' || s.narrative === null ? 'no narrative' : (s.ineligible_reason ?? 'not eligible');
    const key = `${s.engine_status}\n${reason}`;
    const entry = leftOut.get(key) ?? { engine_status: s.engine_status, reason, count: 0 };
    entry.count++;
    leftOut.set(key, entry);
  }
  const issues = [...states.values()]
    .filter((s) => s.engine_status === 'eligible' && s.narrative !== null)
    .map((s) => ({
      id: s.id,
      title: s.title,
      narrative: s.narrative!,
      severity: s.severity,
      source: s.source,
      occurred_at: s.occurred_at?.toISOString() ?? null,
      created_at: s.created_at.toISOString(),
    }));
  // Reviewers' decisions on one issue, or on a pattern's question (which settles all its members).
  const decisions = await db.query<{
    issue_id: string | null;
    pattern_id: string | null;
    kind: 'extraction' | 'root_cause' | 'criticality';
    decision: Record<string, unknown>;
    recorded_at: Date;
  }>(
    `select payload->>'issue_id' as issue_id, payload->>'pattern_id' as pattern_id, payload->>'kind' as kind, payload->'decision' as decision, recorded_at from events
      where workspace_id = $1 and aggregate_type = 'review_item' and event_type = 'review_item.resolved'
        and payload->>'kind' in ('extraction', 'root_cause', 'criticality') and (payload->>'issue_id' is not null or payload->>'pattern_id' is not null) and sequence <= $2
      order by sequence`,
    [workspaceId, eventSequence],
  );
  const previousSequence = previousRunId
    ? Number((await db.query<{ s: string | null }>('select event_sequence as s from engine_runs where id = $1', [previousRunId])).rows[0]?.s ?? 0)
    : 0;
  const previous = previousRunId
    ? await db.query<{ pattern_id: string; member_ids: string[]; terms: Array<[string, number]> }>(
        'select pattern_id, member_ids, terms from engine_pattern_outputs where run_id = $1 order by pattern_id',
        [previousRunId],
      )
    : { rows: [] };
  return {
    workspace_id: workspaceId,
    event_sequence: eventSequence,
    previous_run_id: previousRunId,
    issues,
    left_out: [...leftOut.values()],
    decisions: decisions.rows.map((d) => ({
      issue_id: d.issue_id,
      pattern_id: d.issue_id ? null : d.pattern_id,
      kind: d.kind,
      decision: d.decision ?? {},
      decided_at: d.recorded_at.toISOString(),
    })),
    previous_patterns: previous.rows.map((p) => ({ id: p.pattern_id, member_ids: p.member_ids, terms: p.terms })),
    grouping_decisions: await groupingDecisionsAt(db, workspaceId, eventSequence, previousSequence),
  };
}

/** The config documents of the versions a run used (registry versions or the shipped defaults). */
export async function resolveConfigs(db: Queryable, workspaceId: string, versions: Record<ConfigKind, string>): Promise<ResolvedConfigs> {
  const out: Partial<Record<ConfigKind, { id: string; document: unknown }>> = {};
  for (const kind of configKinds) {
    const id = versions[kind];
    const defaults = configDefinitions[kind].defaults;
    if (id === configVersionId(defaults)) out[kind] = { id, document: defaults };
    else {
      const version = await findConfigVersion(db, workspaceId, kind, id);
      if (!version) throw new Error(`config ${kind} version ${id} is not in the registry of this workspace`);
      out[kind] = { id, document: version.document };
    }
  }
  return out as ResolvedConfigs;
}

/** GET /v1/engine/runs: each run with its job_runs row as JSON (`job`). */
export function engineRunList(workspaceId: string): ListSource {
  return {
    ...equalityFilters({ 'r.workspace_id': workspaceId }),
    select: 'r.*, to_jsonb(j) as job',
    from: 'engine_runs r left join job_runs j on j.id = r.job_run_id',
    sortColumns: { created_at: { expr: 'r.created_at', type: 'timestamptz' } },
    idExpr: 'r.id',
  };
}

/** Records as the run's base the workspace's most recent other run that stored `stage`; null when none did. */
export async function adoptBaseRun(db: Queryable, run: { id: string; workspace_id: string }, stage: string): Promise<string | null> {
  const { rows } = await db.query<{ id: string }>(
    `update engine_runs set base_run_id = (
        select r.id from engine_runs r join engine_stage_outputs o on o.run_id = r.id and o.stage = $3
         where r.workspace_id = $2 and r.id <> $1 order by r.created_at desc limit 1)
      where id = $1 returning base_run_id as id`,
    [run.id, run.workspace_id, stage],
  );
  return rows[0]?.id ?? null;
}

/** Runs of one workspace never overlap: a session advisory lock held on `client` for the whole run. */
export async function lockWorkspaceEngine(client: Queryable, workspaceId: string): Promise<void> {
  await client.query('select pg_advisory_lock(hashtext($1))', [`engine:${workspaceId}`]);
}

export async function unlockWorkspaceEngine(client: Queryable, workspaceId: string): Promise<void> {
  await client.query('select pg_advisory_unlock(hashtext($1))', [`engine:${workspaceId}`]);
}
