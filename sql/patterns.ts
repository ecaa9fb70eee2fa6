/** Pattern queries (the projection's writes are in patternProjection.ts). */
import type { Queryable } from '../lib/db.ts';
import type { RootCauseRollup } from '../engine/stages/07_patterns.ts';
import type { Severity } from '../domain/severity.ts';
import { patternColumns, type PatternRow } from './patternProjection.ts';
import { recurrenceColumn, type RecurrenceStatus } from './patternResults.ts';
import { isUuid } from '../lib/ids.ts';

/** The pattern with its latest recurrence status (sql/patternResults.ts recurrenceColumn). */
export async function findPattern(db: Queryable, workspaceId: string, id: string): Promise<(PatternRow & { recurrence: RecurrenceStatus | null }) | null> {
  if (!isUuid(id)) return null;
  const { rows } = await db.query<PatternRow & { recurrence: RecurrenceStatus | null }>(
    `select ${patternColumns}, ${recurrenceColumn} from patterns where workspace_id = $1 and id = $2`,
    [workspaceId, id],
  );
  return rows[0] ?? null;
}

/** Members of the pattern with their occurrence times (null when unknown) and severities, by id. */
export async function patternMembers(
  db: Queryable,
  workspaceId: string,
  patternId: string,
): Promise<Array<{ id: string; occurred_at: Date | null; severity: Severity }>> {
  const { rows } = await db.query<{ id: string; occurred_at: Date | null; severity: Severity }>(
    'select id, occurred_at, severity from issues where workspace_id = $1 and pattern_id = $2 order by id',
    [workspaceId, patternId],
  );
  return rows;
}

/** The pattern's root-cause rollup as the latest engine run that produced the pattern stored it. */
export async function latestPatternRollup(
  db: Queryable,
  workspaceId: string,
  patternId: string,
): Promise<{ run_id: string; rollup: RootCauseRollup; provenance: Record<string, unknown> } | null> {
  const { rows } = await db.query<{ run_id: string; rollup: RootCauseRollup; provenance: Record<string, unknown> }>(
    `select o.run_id, o.rollup, o.provenance from engine_pattern_outputs o join engine_runs r on r.id = o.run_id
      where o.workspace_id = $1 and o.pattern_id = $2 order by r.created_at desc limit 1`,
    [workspaceId, patternId],
  );
  return rows[0] ?? null;
}

/**
 * The workspace's patterns as GET /v1/patterns counts them: all, and those with no issues (patterns of
 * earlier runs that the latest run did not find, kept with their history) by status.
 */
export async function patternTotals(db: Queryable, workspaceId: string): Promise<{ total: number; empty: Array<{ status: string; count: number }> }> {
  const { rows } = await db.query<{ status: string; empty: boolean; count: number }>(
    'select status, issue_count = 0 as empty, count(*)::int as count from patterns where workspace_id = $1 group by 1, 2 order by 1, 2',
    [workspaceId],
  );
  return { total: rows.reduce((n, r) => n + r.count, 0), empty: rows.filter((r) => r.empty).map((r) => ({ status: r.status, count: r.count })) };
}
