/**
 * Writes that no endpoint offers yet (the engine will): patterns and pattern assignments, appended to
 * the event log and folded into the projections exactly as live writers do, in one transaction.
 */
import { randomUUID } from 'node:crypto';
import { withTransaction, type Pool } from '../../lib/db.ts';
import { EventBatch, withEventBatch, type Actor } from '../../sql/events.ts';
import { applyIssueEvent, upsertIssueRows, type IssueRow } from '../../sql/issueProjection.ts';
import { lockIssuesById } from '../../sql/issues.ts';
import { applyPatternEvent, patternColumns, upsertPatternRows, type PatternRow } from '../../sql/patternProjection.ts';
import type { PatternStatus } from '../../domain/patternLifecycle.ts';

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

/**
 * Appends a pattern.created event and writes its projection row. Pattern rows carry the sequence of
 * their last event, so (as in sql/engineResults.ts) the row is folded and written after the flush.
 */
export async function createPattern(pool: Pool, workspaceId: string, fields: PatternFields): Promise<PatternRow> {
  return withTransaction(pool, async (client) => {
    const events = await EventBatch.start(client, workspaceId);
    events.add(engine, [{ aggregateType: 'pattern', aggregateId: randomUUID(), eventType: 'pattern.created', payload: { ...fields } }]);
    const [event] = await events.flush();
    const row = applyPatternEvent(undefined, event);
    await upsertPatternRows(client, [row]);
    return row;
  });
}

/** Appends pattern.updated ({changes}) or pattern.status_changed ({from, to}) and folds it (the pattern locked first). */
export async function changePattern(
  pool: Pool,
  workspaceId: string,
  id: string,
  change: { changes: Partial<PatternFields> } | { to: PatternStatus },
): Promise<PatternRow> {
  return withTransaction(pool, async (client) => {
    const events = await EventBatch.start(client, workspaceId);
    const current = (await client.query<PatternRow>(`select ${patternColumns} from patterns where workspace_id = $1 and id = $2 for update`, [workspaceId, id]))
      .rows[0];
    if (!current) throw new Error(`no pattern ${id}`);
    events.add(engine, [
      'changes' in change
        ? { aggregateType: 'pattern', aggregateId: id, eventType: 'pattern.updated', payload: { changes: change.changes } }
        : { aggregateType: 'pattern', aggregateId: id, eventType: 'pattern.status_changed', payload: { from: current.status, to: change.to } },
    ]);
    const [event] = await events.flush();
    const row = applyPatternEvent(current, event);
    await upsertPatternRows(client, [row]);
    return row;
  });
}

/** Appends issue.pattern_assigned (what the engine's patterns stage writes) and folds it: the issue locked first, the event flushed last. */
export async function assignPattern(pool: Pool, workspaceId: string, issueId: string, patternId: string | null): Promise<IssueRow> {
  return withEventBatch(pool, workspaceId, async (client, events) => {
    const [current] = await lockIssuesById(client, workspaceId, [issueId]);
    if (!current) throw new Error(`no issue ${issueId}`);
    const event = {
      aggregateType: 'issue' as const,
      aggregateId: issueId,
      eventType: 'issue.pattern_assigned',
      payload: { pattern_id: patternId, run_id: null },
    };
    const row = applyIssueEvent(current, {
      workspace_id: workspaceId,
      aggregate_id: issueId,
      event_type: event.eventType,
      payload: event.payload,
      recorded_at: events.recordedAt,
    });
    await upsertIssueRows(client, [row]);
    events.add(engine, [event]);
    return row;
  });
}
