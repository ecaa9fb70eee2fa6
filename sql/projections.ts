/**
 * Rebuilding projections from the event log (`svc projections rebuild --workspace W`): fold every
 * issue.* and pattern.* event of the workspace in sequence order and write the result, inside one
 * transaction that holds the workspace's log lock so no event lands meanwhile.
 */
import type { Queryable } from '../lib/db.ts';
import { lockWorkspaceLog, type StoredEvent } from './events.ts';
import { applyIssueEvent, upsertIssueRows, type IssueRow } from './issueProjection.ts';
import { applyPatternEvent, upsertPatternRows, type PatternRow } from './patternProjection.ts';

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
  await lockWorkspaceLog(db, workspaceId);
  const patterns = new Map<string, PatternRow>();
  for await (const e of eventsOf(db, workspaceId, 'pattern')) patterns.set(e.aggregate_id, applyPatternEvent(patterns.get(e.aggregate_id), e));
  // Patterns first: issues reference them.
  await upsertPatternRows(db, [...patterns.values()]);
  const issues = await foldIssues(eventsOf(db, workspaceId, 'issue'));
  const rows = [...issues.values()];
  for (let i = 0; i < rows.length; i += PAGE) await upsertIssueRows(db, rows.slice(i, i + PAGE));
  await db.query(`delete from issues where workspace_id = $1 and not (id = any($2::uuid[]))`, [workspaceId, rows.map((r) => r.id)]);
  await db.query(`delete from patterns where workspace_id = $1 and not (id = any($2::uuid[]))`, [workspaceId, [...patterns.keys()]]);
  return { issues: rows.length, patterns: patterns.size };
}
