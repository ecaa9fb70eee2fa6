/**
 * Writing a run's results, in one transaction: pattern.created / pattern.updated events (folded into
 * `patterns`), issue.pattern_assigned events for issues whose pattern changed (folded into `issues`),
 * review items for abstentions (none re-opened where a reviewer dismissed one), the latest extraction
 * per issue, and the run's patterns for the next run to match against. Every written output carries
 * its provenance.
 *
 * The write protocol of sql/events.ts: the snapshot's issues are locked first (in id order, like every
 * writer of several issues; the review items and extractions written below reference them), then the
 * workspace's patterns, so that no concurrent ingest or edit is overwritten by a row read here; the
 * events are flushed last. Pattern rows carry the sequence of their last event, so they are folded
 * and written after the flush: rows this transaction already holds (existing patterns) or new ids of
 * this run (runs of a workspace never overlap), so that write waits for nobody.
 *
 * A run through stages 8-10 also replaces the workspace's latest hazard fits, predictions and
 * financials, stores its backtest, writes its recommendations and opens or resolves crest alerts
 * (sql/patternResults.ts, predictions.ts, recommendations.ts, alerts.ts); the refined risk score of
 * stage 10 is the pattern's risk score. Those rows come after the patterns in the lock order
 * (recommendations, then alerts), and `beforeFlush` lets the caller enqueue jobs on the transaction
 * before the events take the workspace's counter.
 */
import { canonicalJson } from '../lib/crypto.ts';
import type { Queryable } from '../lib/db.ts';
import type { StageContext } from '../engine/stages/context.ts';
import { provenance } from '../engine/stages/context.ts';
import type { SnapshotOutput } from '../engine/stages/01_snapshot.ts';
import type { CriticalityJudgement, ExtractOutput, Judgement } from '../engine/stages/03_extract.ts';
import type { PatternOutput, PatternsOutput } from '../engine/stages/07_patterns.ts';
import type { HazardOutput } from '../engine/stages/08_hazard.ts';
import type { PredictOutput } from '../engine/stages/09_predict.ts';
import type { RecommendOutput } from '../engine/stages/10_recommend.ts';
import { applyAlerts } from './alerts.ts';
import { EventBatch, type Actor, type NewEvent, type SequencedEvent } from './events.ts';
import { applyIssueEvent, patternAssignmentColumns, updateIssueColumns, type IssueRow } from './issueProjection.ts';
import { lockIssuesById } from './issues.ts';
import { applyPatternEvent, patternColumns, upsertPatternRows, type PatternRow } from './patternProjection.ts';
import { replaceFinancials, replaceHazards } from './patternResults.ts';
import { replacePredictions, saveBacktest } from './predictions.ts';
import { applyRecommendations } from './recommendations.ts';
import { openReviewItems } from './reviewItems.ts';

const ENGINE: Actor = { type: 'engine', id: null };
const CHUNK = 5000;

function patternFields(p: PatternOutput, refinedRisk: number | undefined) {
  return {
    name: p.name,
    risk_score: refinedRisk ?? p.risk_score,
    issue_count: p.issue_count,
    first_seen_at: p.first_seen_at,
    last_seen_at: p.last_seen_at,
    domain: p.domain,
    root_cause: p.root_cause,
    top_terms: p.top_terms,
    provenance: { ...p.provenance, issue_ids: p.member_ids },
  };
}

const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

async function inChunks<T>(items: T[], write: (chunk: T[]) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < items.length; start += CHUNK) await write(items.slice(start, start + CHUNK));
}

export interface PatternResults {
  snapshot: SnapshotOutput;
  extract: ExtractOutput;
  patterns: PatternsOutput;
}

export interface ForecastResults {
  hazard: HazardOutput;
  predict: PredictOutput;
  recommend: RecommendOutput;
}

export interface AppliedResults {
  patterns_created: number;
  patterns_updated: number;
  issues_assigned: number;
  review_items_opened: number;
}

export interface AppliedForecasts {
  hazards: number;
  predictions: number;
  recommendations: number;
  implemented_kept: number;
  alerts_raised: number;
  alerts_resolved: number;
}

/**
 * Writes a run's results: its patterns (stages 1-7) and/or its forecasts (stages 8-10), whichever
 * the run produced. Must be the whole of its transaction: it flushes the workspace's events
 * (sql/events.ts).
 */
export async function applyRunResults(
  db: Queryable,
  workspaceId: string,
  ctx: StageContext,
  outputs: { patterns?: PatternResults; forecasts?: ForecastResults },
  beforeFlush?: () => Promise<unknown>,
): Promise<{ patterns: AppliedResults | null; forecasts: AppliedForecasts | null }> {
  const events = await EventBatch.start(db, workspaceId);
  const refinedRisk = new Map(outputs.forecasts?.recommend.risk_scores.map((r) => [r.pattern_id, r.risk_score]));
  const patterns = outputs.patterns ? await writePatterns(db, events, ctx, outputs.patterns, refinedRisk) : null;
  const forecasts = outputs.forecasts ? await writeForecasts(db, events, ctx, outputs.forecasts) : null;
  await beforeFlush?.();
  // Last: the events, then the pattern rows that carry their sequences.
  const written = await events.flush();
  await patterns?.afterFlush(written);
  return { patterns: patterns?.applied ?? null, forecasts };
}

async function writeForecasts(db: Queryable, events: EventBatch, ctx: StageContext, outputs: ForecastResults): Promise<AppliedForecasts> {
  const workspaceId = events.workspaceId;
  await replaceHazards(db, workspaceId, ctx.runId, outputs.hazard);
  await replacePredictions(db, workspaceId, ctx.runId, outputs.predict.predictions);
  await saveBacktest(db, workspaceId, ctx.runId, outputs.predict.as_of, outputs.predict.backtest);
  await replaceFinancials(db, workspaceId, ctx.runId, outputs.recommend.financials);
  const recommendations = await applyRecommendations(db, workspaceId, ctx.runId, outputs.recommend.recommendations);
  const alerts = await applyAlerts(db, events, ENGINE, ctx.runId, outputs.hazard.alerts);
  return {
    hazards: outputs.hazard.patterns.filter((p) => p.status === 'fitted').length,
    predictions: outputs.predict.predictions.length,
    recommendations: recommendations.written,
    implemented_kept: recommendations.implemented_kept,
    alerts_raised: alerts.raised,
    alerts_resolved: alerts.resolved,
  };
}

/** Everything of stages 1-7 up to the flush; `afterFlush` writes the pattern rows. */
async function writePatterns(
  db: Queryable,
  events: EventBatch,
  ctx: StageContext,
  outputs: PatternResults,
  refinedRisk: Map<string, number>,
): Promise<{ applied: AppliedResults; afterFlush(written: SequencedEvent[]): Promise<void> }> {
  const workspaceId = events.workspaceId;
  // Rows first, in the one lock order: issues (by id, in sorted chunks), then patterns.
  const ids = outputs.snapshot.issues.map((i) => i.id);
  const sortedIds = [...new Set(ids)].sort();
  const issueRows = new Map<string, IssueRow>();
  await inChunks(sortedIds, async (chunk) => {
    for (const r of await lockIssuesById(db, workspaceId, chunk)) if (r.engine_status === 'eligible') issueRows.set(r.id, r);
  });
  const patternRows = new Map(
    (await db.query<PatternRow>(`select ${patternColumns} from patterns where workspace_id = $1 order by id for update`, [workspaceId])).rows.map((r) => [r.id, r]),
  );

  const patternEvents: NewEvent[] = [];
  let created = 0;
  for (const p of outputs.patterns.patterns) {
    const fields = patternFields(p, refinedRisk.get(p.id));
    const existing = patternRows.get(p.id);
    if (!existing) {
      created++;
      patternEvents.push({ aggregateType: 'pattern', aggregateId: p.id, eventType: 'pattern.created', payload: { ...fields, status: 'active' } });
      continue;
    }
    const changes: Record<string, unknown> = {};
    const now = existing as unknown as Record<string, unknown>;
    for (const [key, value] of Object.entries(fields)) {
      const before = now[key] instanceof Date ? (now[key] as Date).toISOString() : now[key];
      if (!same(before, value)) changes[key] = value;
    }
    if (Object.keys(changes).length) patternEvents.push({ aggregateType: 'pattern', aggregateId: p.id, eventType: 'pattern.updated', payload: { changes } });
  }
  const produced = new Set(outputs.patterns.patterns.map((p) => p.id));
  for (const row of patternRows.values()) {
    if (!produced.has(row.id) && row.issue_count !== 0) {
      patternEvents.push({ aggregateType: 'pattern', aggregateId: row.id, eventType: 'pattern.updated', payload: { changes: { issue_count: 0, provenance: provenance(ctx, 'patterns', []) } } });
    }
  }
  events.add(ENGINE, patternEvents);

  // Assignments: only issues of the snapshot that are still eligible and whose pattern changed.
  const assignEvents: NewEvent[] = [];
  outputs.patterns.pattern_ids.forEach((patternId, i) => {
    const row = issueRows.get(ids[i]);
    if (row && row.pattern_id !== patternId) {
      assignEvents.push({ aggregateType: 'issue', aggregateId: row.id, eventType: 'issue.pattern_assigned', payload: { pattern_id: patternId, run_id: ctx.runId } });
    }
  });
  const assigned = new Map<string, IssueRow>();
  for (const e of assignEvents) {
    const state = assigned.get(e.aggregateId) ?? issueRows.get(e.aggregateId);
    assigned.set(e.aggregateId, applyIssueEvent(state, { workspace_id: workspaceId, aggregate_id: e.aggregateId, event_type: e.eventType, payload: e.payload, recorded_at: events.recordedAt }));
  }
  await inChunks([...assigned.values()], (rows) => updateIssueColumns(db, rows, patternAssignmentColumns));
  events.add(ENGINE, assignEvents);

  // Abstentions become review items, unless a reviewer already dismissed that question.
  const dismissed = new Set(
    (await db.query<{ key: string }>(`select issue_id || ':' || kind as key from review_items where workspace_id = $1 and status = 'dismissed'`, [workspaceId])).rows.map((r) => r.key),
  );
  const items = outputs.extract.abstentions
    .filter((a) => issueRows.has(a.issue_id) && !dismissed.has(`${a.issue_id}:${a.kind}`))
    .map((a) => ({ kind: a.kind, issueId: a.issue_id, reason: a.reason, candidates: a.candidates, provenance: { ...provenance(ctx, 'extract', [a.issue_id]) } }));
  let opened = 0;
  await inChunks(items, async (chunk) => (opened += (await openReviewItems(db, events, ENGINE, chunk)).length));

  // The latest extraction of every issue of the snapshot, and this run's patterns.
  const config_versions = provenance(ctx, 'extract', []).config_versions;
  for (let start = 0; start < outputs.extract.results.length; start += CHUNK) {
    const chunk = outputs.extract.results.slice(start, start + CHUNK).filter((r) => issueRows.has(r.issue_id));
    await db.query(
      `insert into issue_extractions (issue_id, workspace_id, run_id, domain, root_cause, criticality, provenance)
       select r.issue_id, $1, $2::uuid, r.domain, r.root_cause, r.criticality, jsonb_build_object('run_id', $2::uuid::text, 'stage', 'extract', 'config_versions', $3::jsonb, 'issue_ids', jsonb_build_array(r.issue_id))
         from jsonb_to_recordset($4::jsonb) as r(issue_id uuid, domain jsonb, root_cause jsonb, criticality jsonb)
       on conflict (issue_id) do update set run_id = excluded.run_id, domain = excluded.domain, root_cause = excluded.root_cause,
         criticality = excluded.criticality, provenance = excluded.provenance, updated_at = now()`,
      [workspaceId, ctx.runId, JSON.stringify(config_versions), JSON.stringify(chunk)],
    );
  }
  // A retried run (its first attempt failed after this commit) writes the same deterministic patterns again.
  await db.query(
    `insert into engine_pattern_outputs (run_id, pattern_id, workspace_id, member_ids, terms, rollup, stability, risk_components, provenance)
     select $1, p.id, $2, p.member_ids, p.terms, p.rollup, p.stability, p.risk_components, p.provenance
       from jsonb_to_recordset($3::jsonb) as p(id uuid, member_ids uuid[], terms jsonb, rollup jsonb, stability jsonb, risk_components jsonb, provenance jsonb)
     on conflict (run_id, pattern_id) do nothing`,
    [ctx.runId, workspaceId, JSON.stringify(outputs.patterns.patterns)],
  );

  return {
    applied: { patterns_created: created, patterns_updated: patternEvents.length - created, issues_assigned: assignEvents.length, review_items_opened: opened },
    async afterFlush(written) {
      const touched = new Map<string, PatternRow>();
      for (const e of written) {
        if (e.aggregate_type !== 'pattern') continue;
        const next = applyPatternEvent(touched.get(e.aggregate_id) ?? patternRows.get(e.aggregate_id), e);
        touched.set(e.aggregate_id, next);
      }
      await inChunks([...touched.values()], (rows) => upsertPatternRows(db, rows));
    },
  };
}

/** The issue's latest extraction (written by the last run whose snapshot held it); null before any run. */
export async function findIssueExtraction(
  db: Queryable,
  workspaceId: string,
  issueId: string,
): Promise<{ domain: Judgement; root_cause: Judgement; criticality: CriticalityJudgement; provenance: Record<string, unknown> } | null> {
  const { rows } = await db.query<{ domain: Judgement; root_cause: Judgement; criticality: CriticalityJudgement; provenance: Record<string, unknown> }>(
    'select domain, root_cause, criticality, provenance from issue_extractions where workspace_id = $1 and issue_id = $2',
    [workspaceId, issueId],
  );
  return rows[0] ?? null;
}
