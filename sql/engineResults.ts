/**
 * Writing a run's results, in one transaction under the workspace log lock: pattern.created /
 * pattern.updated events (folded into `patterns`), issue.pattern_assigned events for issues whose
 * pattern changed (folded into `issues`), review items for abstentions (none re-opened where a
 * reviewer dismissed one), the latest extraction per issue, and the run's patterns for the next
 * run to match against. Every written output carries its provenance.
 */
import { canonicalJson } from '../lib/crypto.ts';
import type { Queryable } from '../lib/db.ts';
import type { StageContext } from '../engine/stages/context.ts';
import { provenance } from '../engine/stages/context.ts';
import type { SnapshotOutput } from '../engine/stages/01_snapshot.ts';
import type { ExtractOutput } from '../engine/stages/03_extract.ts';
import type { PatternOutput, PatternsOutput } from '../engine/stages/07_patterns.ts';
import { lockWorkspaceLog, reserveSequence, writeEvents, type Actor, type NewEvent } from './events.ts';
import { applyIssueEvent, issueColumns, patternAssignmentColumns, updateIssueColumns, type IssueRow } from './issueProjection.ts';
import { applyPatternEvent, patternColumns, upsertPatternRows, type PatternRow } from './patternProjection.ts';
import { openReviewItems } from './reviewItems.ts';

const ENGINE: Actor = { type: 'engine', id: null };
const CHUNK = 5000;

function patternFields(p: PatternOutput) {
  return {
    name: p.name,
    risk_score: p.risk_score,
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

/** Appends events in chunks and folds them into rows with `fold`, in sequence order. */
async function commit<Row extends { id: string }>(
  db: Queryable,
  workspaceId: string,
  events: NewEvent[],
  current: Map<string, Row>,
  fold: (state: Row | undefined, e: { workspace_id: string; sequence: number; aggregate_id: string; event_type: string; payload: Record<string, unknown>; recorded_at: Date }) => Row,
  upsert: (db: Queryable, rows: Row[]) => Promise<void>,
): Promise<void> {
  for (let start = 0; start < events.length; start += CHUNK) {
    const chunk = events.slice(start, start + CHUNK);
    const { first, recordedAt } = await reserveSequence(db, workspaceId, chunk.length);
    const touched = new Map<string, Row>();
    chunk.forEach((e, i) => {
      const next = fold(current.get(e.aggregateId), { workspace_id: workspaceId, sequence: first + i, aggregate_id: e.aggregateId, event_type: e.eventType, payload: e.payload, recorded_at: recordedAt });
      current.set(e.aggregateId, next);
      touched.set(e.aggregateId, next);
    });
    await writeEvents(db, workspaceId, first, recordedAt, ENGINE, chunk);
    await upsert(db, [...touched.values()]);
  }
}

export async function applyRunResults(
  db: Queryable,
  workspaceId: string,
  ctx: StageContext,
  outputs: { snapshot: SnapshotOutput; extract: ExtractOutput; patterns: PatternsOutput },
): Promise<{ patterns_created: number; patterns_updated: number; issues_assigned: number; review_items_opened: number }> {
  await lockWorkspaceLog(db, workspaceId);
  const patternRows = new Map((await db.query<PatternRow>(`select ${patternColumns} from patterns where workspace_id = $1`, [workspaceId])).rows.map((r) => [r.id, r]));

  const patternEvents: NewEvent[] = [];
  let created = 0;
  for (const p of outputs.patterns.patterns) {
    const fields = patternFields(p);
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
  await commit(db, workspaceId, patternEvents, patternRows, applyPatternEvent, upsertPatternRows);

  // Assignments: only issues of the snapshot that are still eligible and whose pattern changed.
  const ids = outputs.snapshot.issues.map((i) => i.id);
  const issueRows = new Map<string, IssueRow>();
  for (let start = 0; start < ids.length; start += CHUNK) {
    const { rows } = await db.query<IssueRow>(
      `select ${issueColumns} from issues where workspace_id = $1 and id = any($2::uuid[]) and engine_status = 'eligible'`,
      [workspaceId, ids.slice(start, start + CHUNK)],
    );
    for (const r of rows) issueRows.set(r.id, r);
  }
  const assignEvents: NewEvent[] = [];
  outputs.patterns.pattern_ids.forEach((patternId, i) => {
    const row = issueRows.get(ids[i]);
    if (row && row.pattern_id !== patternId) {
      assignEvents.push({ aggregateType: 'issue', aggregateId: row.id, eventType: 'issue.pattern_assigned', payload: { pattern_id: patternId, run_id: ctx.runId } });
    }
  });
  await commit(db, workspaceId, assignEvents, issueRows, applyIssueEvent, (d, rows) => updateIssueColumns(d, rows, patternAssignmentColumns));

  // Abstentions become review items, unless a reviewer already dismissed that question.
  const dismissed = new Set(
    (await db.query<{ key: string }>(`select issue_id || ':' || kind as key from review_items where workspace_id = $1 and status = 'dismissed'`, [workspaceId])).rows.map((r) => r.key),
  );
  const items = outputs.extract.abstentions
    .filter((a) => issueRows.has(a.issue_id) && !dismissed.has(`${a.issue_id}:${a.kind}`))
    .map((a) => ({ kind: a.kind, issueId: a.issue_id, reason: a.reason, candidates: a.candidates, provenance: { ...provenance(ctx, 'extract', [a.issue_id]) } }));
  let opened = 0;
  for (let start = 0; start < items.length; start += CHUNK) opened += (await openReviewItems(db, workspaceId, ENGINE, items.slice(start, start + CHUNK))).length;

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
  return { patterns_created: created, patterns_updated: patternEvents.length - created, issues_assigned: assignEvents.length, review_items_opened: opened };
}
