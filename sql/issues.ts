/**
 * Issues: every change is an issue.* event folded into the `issues` projection in the same
 * transaction (sql/issueProjection.ts). Ingest writes a whole batch with a handful of set-based
 * statements: reserve sequences, read the existing rows of the batch's keys, fold, insert the
 * events, upsert the rows, sync the review queue.
 */
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../lib/db.ts';
import { AppError } from '../lib/errors.ts';
import { lockWorkspaceLog, reserveSequence, writeEvents, type Actor, type NewEvent } from './events.ts';
import { applyIssueEvent, issueColumns, upsertIssueRows, type IssueEvent, type IssueRow } from './issueProjection.ts';
import { canTransition, engineEligibility, type EngineStatus, type IssueStatus, type Severity } from './issueRules.ts';
import { closeOpenItemsOfIssues, openReviewItems } from './reviewItems.ts';

export interface IssueInput {
  source: string;
  external_id: string | null;
  title: string;
  narrative: string | null;
  severity: Severity;
  occurred_at: Date | null;
}

export interface IngestOutcome {
  /** One entry per input record, in input order. */
  results: Array<{ issue_id: string; engine_status: EngineStatus; created: boolean }>;
}

const keyOf = (source: string, externalId: string) => `${source}\u0000${externalId}`;

async function existingByKeys(db: Queryable, workspaceId: string, inputs: IssueInput[]): Promise<Map<string, IssueRow>> {
  const keyed = inputs.filter((i) => i.external_id !== null);
  if (!keyed.length) return new Map();
  // One probe of the (workspace_id, source, external_id) unique index per key. The lateral subquery
  // with its own `for update` is never flattened into a join, so the plan cannot turn into a scan of
  // the whole workspace when statistics lag behind a bulk load (which cost O(workspace) per batch).
  const { rows } = await db.query<IssueRow>(
    `select i.* from unnest($2::text[], $3::text[]) as k(wanted_source, wanted_external_id)
       cross join lateral (
         select ${issueColumns} from issues
          where workspace_id = $1 and source = k.wanted_source and external_id = k.wanted_external_id
          for update
       ) as i`,
    [workspaceId, keyed.map((i) => i.source), keyed.map((i) => i.external_id)],
  );
  return new Map(rows.map((r) => [keyOf(r.source, r.external_id!), r]));
}

/** Folds events into states, writes events and rows, and keeps the missing-narrative queue in step. */
async function commitIssueEvents(
  db: Queryable,
  workspaceId: string,
  actor: Actor,
  first: number,
  recordedAt: Date,
  planned: Array<{ state: IssueRow | undefined; event: NewEvent }>,
): Promise<IssueRow[]> {
  const next = planned.map(({ state, event }, i) => {
    const folded: IssueEvent = { workspace_id: workspaceId, sequence: first + i, aggregate_id: event.aggregateId, event_type: event.eventType, payload: event.payload, recorded_at: recordedAt };
    return { before: state, after: applyIssueEvent(state, folded) };
  });
  await writeEvents(db, workspaceId, first, recordedAt, actor, planned.map((p) => p.event));
  const rows = next.map((n) => n.after);
  const latest = new Map(rows.map((r) => [r.id, r])); // several events of one issue: its last state
  await upsertIssueRows(db, [...latest.values()]);

  const blocked = next.filter((n) => n.after.engine_status === 'blocked_no_narrative' && n.before?.engine_status !== 'blocked_no_narrative');
  await openReviewItems(
    db,
    workspaceId,
    actor,
    blocked.map((n) => ({ kind: 'missing_narrative' as const, issueId: n.after.id, reason: 'The issue has no narrative; supply one to make it eligible for clustering.' })),
  );
  const unblocked = next.filter((n) => n.before?.engine_status === 'blocked_no_narrative' && n.after.engine_status !== 'blocked_no_narrative');
  await closeOpenItemsOfIssues(db, workspaceId, actor, unblocked.map((n) => n.after.id), 'missing_narrative', { resolution: 'narrative_supplied' });
  return rows;
}

/**
 * Ingests records: a new (source, external_id) creates an issue, a known one is re-ingested (updated,
 * with an event). Within one batch the last record of a key wins; records without external_id always
 * create an issue.
 */
export async function ingestIssues(db: Queryable, workspaceId: string, actor: Actor, inputs: IssueInput[], via: 'ingest' | 'api'): Promise<IngestOutcome> {
  if (!inputs.length) return { results: [] };
  const lastIndexOfKey = new Map<string, number>();
  inputs.forEach((input, i) => {
    if (input.external_id !== null) lastIndexOfKey.set(keyOf(input.source, input.external_id), i);
  });
  const effective = inputs.filter((input, i) => input.external_id === null || lastIndexOfKey.get(keyOf(input.source, input.external_id)) === i);

  const { first, recordedAt } = await reserveSequence(db, workspaceId, effective.length);
  const existing = await existingByKeys(db, workspaceId, effective);
  const planned = effective.map((input) => {
    const state = input.external_id !== null ? existing.get(keyOf(input.source, input.external_id)) : undefined;
    const eligibility = engineEligibility(input.narrative, input.occurred_at, recordedAt);
    const common = {
      title: input.title,
      narrative: input.narrative,
      severity: input.severity,
      occurred_at: input.occurred_at?.toISOString() ?? null,
      source_created_at: (input.occurred_at ?? state?.created_at ?? recordedAt).toISOString(),
      engine_status: eligibility.status,
      ineligible_reason: eligibility.reason,
    };
    const event: NewEvent = state
      ? { aggregateType: 'issue', aggregateId: state.id, eventType: 'issue.reingested', payload: common }
      : { aggregateType: 'issue', aggregateId: randomUUID(), eventType: 'issue.created', payload: { source: input.source, external_id: input.external_id, ...common, via } };
    return { state, event, created: !state };
  });
  const rows = await commitIssueEvents(db, workspaceId, actor, first, recordedAt, planned);

  const byKey = new Map<string, number>();
  effective.forEach((input, i) => {
    if (input.external_id !== null) byKey.set(keyOf(input.source, input.external_id), i);
  });
  let unkeyed = 0;
  const unkeyedPositions = effective.map((input, i) => (input.external_id === null ? i : -1)).filter((i) => i >= 0);
  return {
    results: inputs.map((input) => {
      const position = input.external_id !== null ? byKey.get(keyOf(input.source, input.external_id))! : unkeyedPositions[unkeyed++];
      return { issue_id: rows[position].id, engine_status: rows[position].engine_status, created: planned[position].created };
    }),
  };
}

export async function findIssue(db: Queryable, workspaceId: string, id: string): Promise<IssueRow | null> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return null;
  const { rows } = await db.query<IssueRow>(`select ${issueColumns} from issues where workspace_id = $1 and id = $2`, [workspaceId, id]);
  return rows[0] ?? null;
}

async function lockIssue(db: Queryable, workspaceId: string, id: string): Promise<IssueRow> {
  const row = await findIssue(db, workspaceId, id);
  if (!row) throw new AppError('not_found', 'Issue not found');
  const { rows } = await db.query<IssueRow>(`select ${issueColumns} from issues where id = $1 for update`, [id]);
  return rows[0];
}

export interface IssuePatch {
  title?: string;
  narrative?: string | null;
  severity?: Severity;
  status?: IssueStatus;
}

/**
 * Applies a PATCH: field changes become one issue.updated event (with the engine status recomputed
 * when the narrative changes), a status change an issue.status_changed event after checking the
 * transition (409 on an invalid one). The workspace log is locked first, the order every writer uses.
 */
export async function updateIssue(db: Queryable, workspaceId: string, actor: Actor, id: string, patch: IssuePatch): Promise<IssueRow> {
  await lockWorkspaceLog(db, workspaceId);
  const current = await lockIssue(db, workspaceId, id);
  const changes: Record<string, unknown> = {};
  if (patch.title !== undefined && patch.title !== current.title) changes.title = patch.title;
  if (patch.severity !== undefined && patch.severity !== current.severity) changes.severity = patch.severity;
  const narrativeChanged = patch.narrative !== undefined && patch.narrative !== current.narrative;
  if (narrativeChanged) changes.narrative = patch.narrative;
  const statusChanged = patch.status !== undefined && patch.status !== current.status;
  if (statusChanged && !canTransition(current.status, patch.status!)) {
    throw new AppError('conflict', `An issue cannot move from ${current.status} to ${patch.status}`, { from: current.status, to: patch.status });
  }
  const count = (Object.keys(changes).length ? 1 : 0) + (statusChanged ? 1 : 0);
  if (!count) return current;
  const { first, recordedAt } = await reserveSequence(db, workspaceId, count);
  if (narrativeChanged) {
    const eligibility = engineEligibility(patch.narrative ?? null, current.occurred_at, recordedAt);
    if (eligibility.status !== current.engine_status) changes.engine_status = eligibility.status;
    if (eligibility.reason !== current.ineligible_reason) changes.ineligible_reason = eligibility.reason;
  }
  const events: NewEvent[] = [];
  if (Object.keys(changes).length) events.push({ aggregateType: 'issue', aggregateId: id, eventType: 'issue.updated', payload: { changes } });
  if (statusChanged) events.push({ aggregateType: 'issue', aggregateId: id, eventType: 'issue.status_changed', payload: { from: current.status, to: patch.status } });
  let state = current;
  const planned = events.map((event, i) => {
    const before = state;
    state = applyIssueEvent(state, { workspace_id: workspaceId, sequence: first + i, aggregate_id: id, event_type: event.eventType, payload: event.payload, recorded_at: recordedAt });
    return { state: before, event };
  });
  const rows = await commitIssueEvents(db, workspaceId, actor, first, recordedAt, planned);
  return rows.at(-1)!;
}

export async function closeIssue(db: Queryable, workspaceId: string, actor: Actor, id: string): Promise<IssueRow> {
  return updateIssue(db, workspaceId, actor, id, { status: 'closed' });
}
