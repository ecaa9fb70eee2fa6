/**
 * Rebuilding projections from the event log (`svc projections rebuild --workspace W`): fold every
 * issue.*, pattern.* and grouping_decision.* event of the workspace in sequence order and write the result, in one
 * transaction. It follows the write protocol of sql/events.ts: first it locks every issue and pattern
 * row of the workspace (no writer can be half-way through changing one it then overwrites), then the
 * event counter, so that no event commits while it reads the log; it appends no event.
 */
import type { Queryable } from '../lib/db.ts';
import { lockEventCounter, type StoredEvent } from './events.ts';
import { applyIssueEvent, upsertIssueRows, type IssueRow } from './issueProjection.ts';
import { applyPatternEvent, upsertPatternRows, type PatternRow } from './patternProjection.ts';
import { rebuildGroupingDecisions } from './groupingDecisions.ts';

const PAGE = 5000;

async function* eventsOf(db: Queryable, workspaceId: string, aggregateType: string): AsyncGenerator<StoredEvent> {
  let after = 0;
  for (;;) {
    const { rows } = await db.query<StoredEvent>(
      `select * from events where workspace_id = $1 and aggregate_type = $2 and sequence > $3 order by sequence limit $4`,
      [workspaceId, aggregateType, after, PAGE],
    );
    yield* rows;
    if (rows.length < PAGE) return;
    after = rows.at(-1)!.sequence;
  }
}

/** Folds issue events in sequence order into fresh projection rows (used by rebuild and by tests). */
export async function foldIssues(events: AsyncIterable<StoredEvent> | Iterable<StoredEvent>): Promise<Map<string, IssueRow>> {
  const states = new Map<string, IssueRow>();
  for await (const e of events) states.set(e.aggregate_id, applyIssueEvent(states.get(e.aggregate_id), e));
  return states;
}

export async function rebuildProjections(db: Queryable, workspaceId: string): Promise<{ issues: number; patterns: number }> {
  // The one lock order: issues by id, then patterns, the counter last.
  await db.query('select id from issue_records where workspace_id = $1 order by id for update', [workspaceId]);
  await db.query('select id from patterns where workspace_id = $1 order by id for update', [workspaceId]);
  await lockEventCounter(db, workspaceId);
  const patterns = new Map<string, PatternRow>();
  for await (const e of eventsOf(db, workspaceId, 'pattern')) patterns.set(e.aggregate_id, applyPatternEvent(patterns.get(e.aggregate_id), e));
  // Patterns first: issues reference them.
  await upsertPatternRows(db, [...patterns.values()]);
  const issues = await foldIssues(eventsOf(db, workspaceId, 'issue'));
  const rows = [...issues.values()];
  // Every pattern is written again from the log: a row the log leaves without one may have one stored
  // (which `upsertIssueRows` does not look for on a row that was never changed, version 1).
  await db.query('delete from issue_patterns p using issue_records r where p.issue_id = r.id and r.workspace_id = $1', [workspaceId]);
  for (let i = 0; i < rows.length; i += PAGE) await upsertIssueRows(db, rows.slice(i, i + PAGE));
  // Their patterns go with them (foreign key, on delete cascade).
  await db.query(`delete from issue_records where workspace_id = $1 and not (id = any($2::uuid[]))`, [workspaceId, rows.map((r) => r.id)]);
  await db.query(`delete from patterns where workspace_id = $1 and not (id = any($2::uuid[]))`, [workspaceId, [...patterns.keys()]]);
  // People's grouping decisions (issue 31), a projection of their own events.
  await rebuildGroupingDecisions(db, workspaceId);
  return { issues: rows.length, patterns: patterns.size };
}
