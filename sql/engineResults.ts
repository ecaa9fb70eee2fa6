/**
 * Writing a run's results, in one transaction: pattern.created / pattern.updated events (folded into
 * `patterns`), issue.pattern_assigned events for issues whose pattern changed (folded into `issues`),
 * pattern.status_changed events for the statuses the caller decided (usecases/runEngine.ts by
 * domain/patternLifecycle.ts, from what `lockPatternState` read), the run's review questions
 * (sql/reviewItems.ts syncEngineQuestions: none re-opened where a reviewer dismissed one), the latest
 * extraction per issue (abstentions settled by the issue's pattern), and the run's patterns for the next
 * run to match against; lineage (merged_into, split_into) as pattern.updated events, also sent to webhooks. Every written output carries its bounded provenance.
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
import { recordOutboundEvent } from './outboundEvents.ts';
import { EventBatch, type Actor, type NewEvent, type SequencedEvent } from './events.ts';
import { assignPatterns } from './issueProjection.ts';
import { lockIssueStatesById, type IssueState } from './issues.ts';
import { applyPatternEvent, patternColumns, upsertPatternRows, type PatternRow } from './patternProjection.ts';
import { replaceFinancials, replaceHazards } from './patternResults.ts';
import { replacePredictions, saveBacktest } from './predictions.ts';
import { applyRecommendations } from './recommendations.ts';
import { linkQuestionPatterns, syncEngineQuestions } from './reviewItems.ts';
import { issueDigest, issueLink, membersLink } from '../engine/stages/context.ts';
import type { PatternStatus } from '../domain/patternLifecycle.ts';

const ENGINE: Actor = { type: 'engine', id: null };
const CHUNK = 5000;

function patternFields(p: PatternOutput, refinedRisk: number | undefined) {
  return {
    name: p.name,
    path: p.path,
    template: p.template,
    examples: p.examples,
    risk_score: refinedRisk ?? p.risk_score,
    issue_count: p.issue_count,
    first_seen_at: p.first_seen_at,
    last_seen_at: p.last_seen_at,
    domain: p.domain,
    root_cause: p.root_cause,
    top_terms: p.top_terms,
    provenance: p.provenance,
    // A pattern a run produces is not merged away (an undone merge brings its source back).
    merged_into: null,
  };
}

const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

async function inChunks<T>(items: T[], write: (chunk: T[]) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < items.length; start += CHUNK) await write(items.slice(start, start + CHUNK));
}

/**
 * Writes `items` in chunks with one statement each, building the next chunk's parameters (`build`, CPU
 * here) while the database runs the previous statement (`send`): at 100,000 extractions the documents
 * cost seconds of this process's time that would otherwise add to the insert's (issue 31). One
 * statement at a time, in chunk order, as a plain loop would write them.
 */
async function overlapped<T, P>(items: T[], build: (chunk: T[], start: number) => P, send: (params: P) => Promise<unknown>): Promise<void> {
  let running: Promise<unknown> | null = null;
  try {
    for (let start = 0; start < items.length; start += CHUNK) {
      const params = build(items.slice(start, start + CHUNK), start);
      if (running) await running;
      running = send(params);
    }
    if (running) await running;
  } catch (err) {
    // A statement still running when building failed: its outcome is not this write's error.
    running?.catch(() => {});
    throw err;
  }
}

/** The snapshot as the results read it: its issues' ids (an engine thread hands back no texts: lib/engineThread.ts). */
export type SnapshotIds = { issues: ReadonlyArray<Pick<SnapshotOutput['issues'][number], 'id'>> };

export interface PatternResults {
  snapshot: SnapshotIds;
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
  review_items_refreshed: number;
  review_items_superseded: number;
}

export interface AppliedForecasts {
  /** Patterns with a fitted hazard model, dormant ones included. */
  hazards: number;
  /** Of those, dormant: fitted, but silent for longer than the model allows, so not forecast (engine/hazard/dormancy.ts). */
  dormant: number;
  predictions: number;
  recommendations: number;
  implemented_kept: number;
  alerts_raised: number;
  alerts_resolved: number;
}

/**
 * What writing a run's patterns reads, locked in the one lock order: the snapshot's issues (by id, in
 * sorted chunks; only the eligible ones are kept), then the workspace's patterns; and the latest fix
 * verdict of each pattern. The first statements of the results' transaction.
 */
export interface PatternState {
  /** Each eligible issue's state, not its row: the texts of 100,000 issues are hundreds of megabytes (issue 31). */
  issueRows: Map<string, IssueState>;
  patternRows: Map<string, PatternRow>;
  verdicts: Map<string, string>;
}

export async function lockPatternState(db: Queryable, workspaceId: string, snapshot: SnapshotIds): Promise<PatternState> {
  const sortedIds = [...new Set(snapshot.issues.map((i) => i.id))].sort();
  const issueRows = new Map<string, IssueState>();
  await inChunks(sortedIds, async (chunk) => {
    for (const r of await lockIssueStatesById(db, workspaceId, chunk)) if (r.engine_status === 'eligible') issueRows.set(r.id, r);
  });
  const patternRows = new Map(
    (await db.query<PatternRow>(`select ${patternColumns} from patterns where workspace_id = $1 order by id for update`, [workspaceId])).rows.map((r) => [
      r.id,
      r,
    ]),
  );
  const verdicts = new Map(
    (
      await db.query<{ pattern_id: string; verdict: string }>(
        `select distinct on (pattern_id) pattern_id, verdict from recommendation_verifications where workspace_id = $1 order by pattern_id, computed_at desc`,
        [workspaceId],
      )
    ).rows.map((r) => [r.pattern_id, r.verdict]),
  );
  return { issueRows, patternRows, verdicts };
}

/** The patterns of stages 1-7 to write: the outputs, what `lockPatternState` read, and the status decided for each pattern the run touches. */
export interface PatternWrite extends PatternResults {
  state: PatternState;
  statuses: ReadonlyMap<string, PatternStatus>;
}

/**
 * Writes a run's results: its patterns (stages 1-7) and/or its forecasts (stages 8-10), whichever
 * the run produced. Must be the whole of its transaction after `lockPatternState`: it flushes the
 * workspace's events (sql/events.ts).
 */
export async function applyRunResults(
  db: Queryable,
  workspaceId: string,
  ctx: StageContext,
  outputs: { patterns?: PatternWrite; forecasts?: ForecastResults },
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
    dormant: outputs.hazard.patterns.filter((p) => p.status === 'fitted' && p.dormancy?.dormant).length,
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
  outputs: PatternWrite,
  refinedRisk: Map<string, number>,
): Promise<{ applied: AppliedResults; afterFlush(written: SequencedEvent[]): Promise<void> }> {
  const workspaceId = events.workspaceId;
  const ids = outputs.snapshot.issues.map((i) => i.id);
  const { issueRows, patternRows } = outputs.state;
  const statusOf = (id: string) => {
    const status = outputs.statuses.get(id);
    if (!status) throw new Error(`no status decided for pattern ${id}`);
    return status;
  };

  const patternEvents: NewEvent[] = [];
  let created = 0;
  for (const p of outputs.patterns.patterns) {
    const fields = patternFields(p, refinedRisk.get(p.id));
    const existing = patternRows.get(p.id);
    const status = statusOf(p.id);
    if (!existing) {
      created++;
      patternEvents.push({ aggregateType: 'pattern', aggregateId: p.id, eventType: 'pattern.created', payload: { ...fields, status } });
      continue;
    }
    const changes: Record<string, unknown> = {};
    const now = existing as unknown as Record<string, unknown>;
    for (const [key, value] of Object.entries(fields)) {
      const before = now[key] instanceof Date ? (now[key] as Date).toISOString() : now[key];
      if (!same(before, value)) changes[key] = value;
    }
    if (Object.keys(changes).length) patternEvents.push({ aggregateType: 'pattern', aggregateId: p.id, eventType: 'pattern.updated', payload: { changes } });
    if (status !== existing.status)
      patternEvents.push({
        aggregateType: 'pattern',
        aggregateId: p.id,
        eventType: 'pattern.status_changed',
        payload: { from: existing.status, to: status, run_id: ctx.runId },
      });
  }
  const produced = new Set(outputs.patterns.patterns.map((p) => p.id));
  for (const row of patternRows.values()) {
    if (produced.has(row.id)) continue;
    if (row.issue_count !== 0) {
      patternEvents.push({
        aggregateType: 'pattern',
        aggregateId: row.id,
        eventType: 'pattern.updated',
        payload: { changes: { issue_count: 0, provenance: provenance(ctx, 'patterns', [], membersLink(row.id)) } },
      });
    }
    const status = statusOf(row.id);
    if (status !== row.status)
      patternEvents.push({
        aggregateType: 'pattern',
        aggregateId: row.id,
        eventType: 'pattern.status_changed',
        payload: { from: row.status, to: status, run_id: ctx.runId },
      });
  }
  // Lineage (engine/cluster/identity.ts): a merged pattern says where it went, a split names its
  // successors; both go out as pattern.updated (realtime from the log, webhooks here).
  const lineageChanges = new Map<string, Record<string, unknown>>();
  const lineage = outputs.patterns.lineage ?? [];
  for (const l of lineage) {
    const row = patternRows.get(l.from);
    if (!row) continue;
    if (l.kind === 'merge' && row.merged_into !== l.to[0]) lineageChanges.set(l.from, { ...lineageChanges.get(l.from), merged_into: l.to[0] });
    if (l.kind === 'split') {
      const successors = [...new Set([...row.split_into, ...l.to.filter((to) => to !== l.from)])].sort();
      if (!same(successors, row.split_into)) lineageChanges.set(l.from, { ...lineageChanges.get(l.from), split_into: successors });
    }
  }
  for (const [id, changes] of [...lineageChanges].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    patternEvents.push({ aggregateType: 'pattern', aggregateId: id, eventType: 'pattern.updated', payload: { changes, run_id: ctx.runId } });
  }
  for (const l of lineage) {
    if (!lineageChanges.has(l.from)) continue;
    await recordOutboundEvent(db, workspaceId, 'pattern.updated', {
      pattern_id: l.from,
      change: l.kind === 'merge' ? 'merged' : 'split',
      ...(l.kind === 'merge' ? { merged_into: l.to[0] } : { split_into: l.to }),
      by: l.by,
      decision_id: l.decision_id,
      issues: l.issues,
      run_id: ctx.runId,
    });
  }
  events.add(ENGINE, patternEvents);

  // Assignments: only issues of the snapshot that are still eligible and whose pattern changed.
  const assignEvents: NewEvent[] = [];
  const placedBy = new Map((outputs.patterns.person_placements ?? []).map((p) => [p.issue_id, p.decision_id]));
  outputs.patterns.pattern_ids.forEach((patternId, i) => {
    const row = issueRows.get(ids[i]);
    if (row && row.pattern_id !== patternId) {
      const decision = placedBy.get(row.id);
      assignEvents.push({
        aggregateType: 'issue',
        aggregateId: row.id,
        eventType: 'issue.pattern_assigned',
        payload: { pattern_id: patternId, run_id: ctx.runId, ...(decision ? { decision_id: decision } : {}) },
      });
    }
  });
  // What the issue.pattern_assigned event folds to (sql/issueProjection.ts): exactly the pattern.
  const assigned = new Map<string, { id: string; pattern_id: string | null }>();
  for (const e of assignEvents) assigned.set(e.aggregateId, { id: e.aggregateId, pattern_id: (e.payload as { pattern_id: string | null }).pattern_id });
  await inChunks([...assigned.values()], (rows) => assignPatterns(db, rows));
  events.add(ENGINE, assignEvents);

  // The run's questions (grouped per pattern and question) become the open review items.
  const memberIdsOf = new Map(outputs.patterns.patterns.map((p) => [p.id, p.member_ids]));
  const questions = outputs.patterns.review
    .filter((q) => q.pattern_id !== null || issueRows.has(q.issue_id!))
    .map((q) => ({
      ...q,
      // Risk blocked with the pattern's risk as written (stage 10's refined score when the run got that far).
      risk_blocked:
        q.pattern_id && refinedRisk.has(q.pattern_id) ? Math.round((refinedRisk.get(q.pattern_id)! / 100) * q.issue_count * 1e4) / 1e4 : q.risk_blocked,
      provenance: {
        ...(q.pattern_id
          ? provenance(ctx, 'patterns', memberIdsOf.get(q.pattern_id)!, membersLink(q.pattern_id))
          : provenance(ctx, 'extract', [q.issue_id!], issueLink(q.issue_id!))),
      },
    }));
  const synced = await syncEngineQuestions(db, events, ENGINE, ctx.runId, questions, new Set(issueRows.keys()));

  // The latest extraction of every issue of the snapshot, and this run's patterns.
  // A pattern's answers (a reviewer's decision on its question, or its members' majority) settle its members' abstentions.
  const patternOf = new Map(outputs.patterns.patterns.map((p) => [p.id, p]));
  const settled = (issueIndex: number, r: ExtractOutput['results'][number]) => {
    const pid = outputs.patterns.pattern_ids[issueIndex];
    const p = pid ? patternOf.get(pid) : undefined;
    if (!p) return r;
    const by = (value: string | null, human: boolean): Partial<Judgement> => ({
      value,
      confidence: human ? 1 : p.rollup.share,
      source: human ? 'human' : 'engine',
      abstained: false,
    });
    const out = { ...r };
    if (p.human?.root_cause !== undefined && r.root_cause.source !== 'human') out.root_cause = { ...r.root_cause, ...by(p.human.root_cause, true) };
    else if (r.root_cause.abstained && p.root_cause)
      out.root_cause = { ...r.root_cause, ...by(p.root_cause, false), evidence: [...r.root_cause.evidence, `pattern:${p.id}`] };
    if (p.human?.domain !== undefined && r.domain.source !== 'human') out.domain = { ...r.domain, ...by(p.human.domain, true) };
    else if (r.domain.abstained && p.domain) out.domain = { ...r.domain, ...by(p.domain, false), evidence: [...r.domain.evidence, `pattern:${p.id}`] };
    if (p.human?.criticality && r.criticality.source !== 'human')
      out.criticality = { ...r.criticality, level: p.human.criticality, confidence: 1, source: 'human', abstained: false };
    return out;
  };
  // Each chunk's document is built while the database inserts the previous one. An extraction's
  // provenance is provenance(ctx, 'extract', [issue], issueLink(issue)): the same members for every issue
  // of the run (run, stage, config versions, one issue) but its digest and link. The shared members go
  // once per statement ($4) and each row carries only its own two, joined by `||` into the same jsonb
  // as the whole object would parse to (jsonb keeps no key order): four tenths less JSON to build and
  // for the database to parse at 100,000 rows.
  const { issue_digest: _digest, issues_url: _url, ...shared } = provenance(ctx, 'extract', ['-'], issueLink('-'));
  const sharedProvenance = JSON.stringify(shared);
  await overlapped(
    outputs.extract.results,
    (results, start) =>
      JSON.stringify(
        results
          .map((r, k) => ({ ...settled(start + k, r), issue_digest: issueDigest([r.issue_id]), issues_url: issueLink(r.issue_id) }))
          .filter((r) => issueRows.has(r.issue_id)),
      ),
    (document) =>
      db.query(
        `insert into issue_extractions (issue_id, workspace_id, run_id, domain, root_cause, criticality, provenance)
         select r.issue_id, $1, $2::uuid, r.domain, r.root_cause, r.criticality,
                $4::jsonb || jsonb_build_object('issue_digest', r.issue_digest, 'issues_url', r.issues_url)
           from jsonb_to_recordset($3::jsonb) as r(issue_id uuid, domain jsonb, root_cause jsonb, criticality jsonb, issue_digest text, issues_url text)
         on conflict (issue_id) do update set run_id = excluded.run_id, domain = excluded.domain, root_cause = excluded.root_cause,
           criticality = excluded.criticality, provenance = excluded.provenance, updated_at = now()`,
        [workspaceId, ctx.runId, document, sharedProvenance],
      ),
  );
  // A retried run (its first attempt failed after this commit) writes the same deterministic patterns again.
  await db.query(
    `insert into engine_pattern_outputs (run_id, pattern_id, workspace_id, member_ids, terms, rollup, stability, risk_components, provenance)
     select $1, p.id, $2, p.member_ids, p.terms, p.rollup, p.stability, p.risk_components, p.provenance
       from jsonb_to_recordset($3::jsonb) as p(id uuid, member_ids uuid[], terms jsonb, rollup jsonb, stability jsonb, risk_components jsonb, provenance jsonb)
     on conflict (run_id, pattern_id) do nothing`,
    [ctx.runId, workspaceId, JSON.stringify(outputs.patterns.patterns)],
  );

  return {
    applied: {
      patterns_created: created,
      patterns_updated: patternEvents.length - created,
      issues_assigned: assignEvents.length,
      review_items_opened: synced.opened,
      review_items_refreshed: synced.refreshed,
      review_items_superseded: synced.superseded,
    },
    async afterFlush(written) {
      const touched = new Map<string, PatternRow>();
      for (const e of written) {
        if (e.aggregate_type !== 'pattern') continue;
        const next = applyPatternEvent(touched.get(e.aggregate_id) ?? patternRows.get(e.aggregate_id), e);
        touched.set(e.aggregate_id, next);
      }
      await inChunks([...touched.values()], (rows) => upsertPatternRows(db, rows));
      await linkQuestionPatterns(db, workspaceId);
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
