/**
 * Writes that no endpoint offers yet (the engine will): patterns and pattern assignments, appended to
 * the event log and folded into the projections exactly as live writers do, in one transaction.
 */
import { randomUUID } from 'node:crypto';
import { withTransaction, type Pool } from '../../lib/db.ts';
import { appendEvents, lockWorkspaceLog, type Actor } from '../../sql/events.ts';
import { applyIssueEvent, upsertIssueRows, type IssueRow } from '../../sql/issueProjection.ts';
import { findIssue } from '../../sql/issues.ts';
import { applyPatternEvent, upsertPatternRows, type PatternRow, type PatternStatus } from '../../sql/patternProjection.ts';
import { findPattern } from '../../sql/patterns.ts';

const engine: Actor = { type: 'engine', id: null };

export interface PatternFields {
  name: string;
  status?: PatternStatus;
  risk_score?: number;
  issue_count?: number;
  first_seen_at?: string | null;
  last_seen_at?: string | null;
  domain?: string | null;
  root_cause?: string | null;
  top_terms?: string[];
  provenance?: Record<string, unknown>;
}

/** Appends a pattern.created event and writes its projection row. */
export async function createPattern(pool: Pool, workspaceId: string, fields: PatternFields): Promise<PatternRow> {
  return withTransaction(pool, async (client) => {
    const [event] = await appendEvents(client, workspaceId, engine, [
      { aggregateType: 'pattern', aggregateId: randomUUID(), eventType: 'pattern.created', payload: { ...fields } },
    ]);
    const row = applyPatternEvent(undefined, event);
    await upsertPatternRows(client, [row]);
    return row;
  });
}

/** Appends pattern.updated ({changes}) or pattern.status_changed ({from, to}) and folds it. */
export async function changePattern(
  pool: Pool,
  workspaceId: string,
  id: string,
  change: { changes: Partial<PatternFields> } | { to: PatternStatus },
): Promise<PatternRow> {
  return withTransaction(pool, async (client) => {
    await lockWorkspaceLog(client, workspaceId);
    const current = await findPattern(client, workspaceId, id);
    if (!current) throw new Error(`no pattern ${id}`);
    const [event] = await appendEvents(client, workspaceId, engine, [
      'changes' in change
        ? { aggregateType: 'pattern', aggregateId: id, eventType: 'pattern.updated', payload: { changes: change.changes } }
        : { aggregateType: 'pattern', aggregateId: id, eventType: 'pattern.status_changed', payload: { from: current.status, to: change.to } },
    ]);
    const row = applyPatternEvent(current, event);
    await upsertPatternRows(client, [row]);
    return row;
  });
}

/** Appends issue.pattern_assigned (what the engine's patterns stage will write) and folds it. */
export async function assignPattern(pool: Pool, workspaceId: string, issueId: string, patternId: string | null): Promise<IssueRow> {
  return withTransaction(pool, async (client) => {
    const [event] = await appendEvents(client, workspaceId, engine, [
      { aggregateType: 'issue', aggregateId: issueId, eventType: 'issue.pattern_assigned', payload: { pattern_id: patternId, run_id: null } },
    ]);
    const current = await findIssue(client, workspaceId, issueId);
    if (!current) throw new Error(`no issue ${issueId}`);
    const row = applyIssueEvent(current, event);
    await upsertIssueRows(client, [row]);
    return row;
  });
}
