/**
 * Issues: every change is an issue.* event folded into the `issues` projection in the same
 * transaction (sql/issueProjection.ts). Ingest writes a whole batch with a handful of set-based
 * statements (the plan, dedup and eligibility, is domain/ingestPlan.ts's): find the existing rows of the batch's keys and lock them (in id order, as every writer
 * locks issues), fold, upsert the rows (new keys in key order), sync the review queue, and leave the
 * events in the transaction's batch, which the caller flushes last (sql/events.ts).
 */
import { randomUUID } from 'node:crypto';
import { prepared, type Queryable } from '../lib/db.ts';
import { AppError } from '../lib/errors.ts';
import type { Actor, EventBatch, NewEvent } from './events.ts';
import { applyIssueEvent, issueColumns, upsertIssueRows, type IssueRow } from './issueProjection.ts';
import type { EngineStatus } from '../domain/engineEligibility.ts';
import type { IssueInput } from '../domain/ingestRecord.ts';
import { ingestKey as keyOf, type IngestPlan } from '../domain/ingestPlan.ts';
import type { IssueUpdate } from '../domain/issueUpdate.ts';
import { closeOpenItemsOfIssues, openReviewItems } from './reviewItems.ts';
import { isUuid } from '../lib/ids.ts';
import { isoString } from '../lib/isoString.ts';

export interface IngestOutcome {
  /** One entry per input record, in input order. */
  results: Array<{ issue_id: string; engine_status: EngineStatus; created: boolean; escalated: boolean }>;
}

/** The reason of the review item an issue without a narrative opens. */
export const MISSING_NARRATIVE_REASON = 'The issue has no narrative; supply one to make it eligible for clustering.';

// An issue is locked through its record (the view `issues` joins the pattern with an outer join, which
// cannot be locked) and read afterwards, by a statement of its own: every writer of a pattern holds its
// issue record's lock (sql/issueProjection.ts), and only a statement that starts after the lock was
// granted sees what the previous holder committed (one reading both at once would see the record as
// locked and the pattern as it was before the wait, and write that back).
//
// One probe of the primary key per id, in the order of the sorted array: the lateral subquery with its
// own `for update` is never flattened, so the rows are locked in that order.
const lockIssues = prepared(
  'issues_lock_by_id',
  `select i.id from unnest($2::uuid[]) as k(wanted_id)
     cross join lateral (select id from issue_records where workspace_id = $1 and id = k.wanted_id for update) as i`,
);
const issuesById = prepared('issues_by_id', `select ${issueColumns} from issues where id = any($1::uuid[])`);
const issueStatesById = prepared('issue_states_by_id', `select id, status, engine_status, pattern_id from issues where id = any($1::uuid[])`);

// One probe of the (workspace_id, source, external_id) unique index per key (`limit 1` keeps the
// lateral subquery from being flattened into a join that the planner could turn into a scan of the
// whole workspace while statistics lag behind a bulk load).
// The keys travel as one JSON array of [source, external_id] pairs (native JSON.stringify rather than
// two text[] literals that pg quotes element by element in JavaScript).
const issueIdsByKey = prepared(
  'issues_ids_by_json_key',
  `select i.id from (select e->>0 as wanted_source, e->>1 as wanted_external_id from jsonb_array_elements($2::jsonb) as e) as k
     cross join lateral (
       select id from issue_records where workspace_id = $1 and source = k.wanted_source and external_id = k.wanted_external_id limit 1
     ) as i`,
);

/**
 * Locks issues `for update` in id order, the one order of every writer that locks several issues
 * (ingest, the engine's results, rebuild), so that two of them never wait for each other in a cycle.
 */
export async function lockIssuesById(db: Queryable, workspaceId: string, ids: string[]): Promise<IssueRow[]> {
  const locked = await lockIds(db, workspaceId, ids);
  return locked.length ? (await db.query<IssueRow>(issuesById([locked]))).rows : [];
}

/** The ids of `ids` that are issues of the workspace, locked in id order. */
async function lockIds(db: Queryable, workspaceId: string, ids: string[]): Promise<string[]> {
  if (!ids.length) return [];
  const { rows } = await db.query<{ id: string }>(lockIssues([workspaceId, [...new Set(ids)].sort()]));
  return rows.map((r) => r.id);
}

/** What the engine's results need of an issue: no texts (at 100,000 issues those are hundreds of megabytes). */
export type IssueState = Pick<IssueRow, 'id' | 'status' | 'engine_status' | 'pattern_id'>;

/** `lockIssuesById`, reading back only each issue's state (the engine's results: sql/engineResults.ts). */
export async function lockIssueStatesById(db: Queryable, workspaceId: string, ids: string[]): Promise<IssueState[]> {
  const locked = await lockIds(db, workspaceId, ids);
  return locked.length ? (await db.query<IssueState>(issueStatesById([locked]))).rows : [];
}

async function existingByKeys(db: Queryable, workspaceId: string, inputs: IssueInput[]): Promise<Map<string, IssueRow>> {
  const keyed = inputs.filter((i) => i.external_id !== null);
  if (!keyed.length) return new Map();
  // The rows are locked afterwards, in id order.
  const { rows: found } = await db.query<{ id: string }>(issueIdsByKey([workspaceId, JSON.stringify(keyed.map((i) => [i.source, i.external_id]))]));
  const rows = await lockIssuesById(
    db,
    workspaceId,
    found.map((r) => r.id),
  );
  return new Map(rows.map((r) => [keyOf(r.source, r.external_id!), r]));
}

// New rows are inserted in key order: two ingests creating the same new keys then wait for each other
// in one order (the second fails with a unique violation once the first commits, and is retried)
// instead of deadlocking. Each row's key is built once, not in every comparison.
function inKeyOrder(rows: IssueRow[]): IssueRow[] {
  return rows
    .map((row) => ({ row, key: row.external_id === null ? '' : keyOf(row.source, row.external_id) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((keyed) => keyed.row);
}

/**
 * Folds events into states, writes the rows, keeps the missing-narrative queue in step and adds the
 * events to the batch. `planned[i].state` is the state before `planned[i].event` (undefined: a new issue).
 */
async function writeIssueEvents(
  db: Queryable,
  events: EventBatch,
  actor: Actor,
  planned: Array<{ state: IssueRow | undefined; event: NewEvent }>,
): Promise<IssueRow[]> {
  const workspaceId = events.workspaceId;
  const next = planned.map(({ state, event }) => ({
    before: state,
    after: applyIssueEvent(state, {
      workspace_id: workspaceId,
      aggregate_id: event.aggregateId,
      event_type: event.eventType,
      payload: event.payload,
      recorded_at: events.recordedAt,
    }),
  }));
  const rows = next.map((n) => n.after);
  const latest = new Map(rows.map((r) => [r.id, r])); // several events of one issue: its last state
  await upsertIssueRows(db, inKeyOrder([...latest.values()]));
  events.add(
    actor,
    planned.map((p) => p.event),
  );

  const blocked = next.filter((n) => n.after.engine_status === 'blocked_no_narrative' && n.before?.engine_status !== 'blocked_no_narrative');
  await openReviewItems(
    db,
    events,
    actor,
    blocked.map((n) => ({
      kind: 'missing_narrative' as const,
      issueId: n.after.id,
      reason: MISSING_NARRATIVE_REASON,
    })),
  );
  const unblocked = next.filter((n) => n.before?.engine_status === 'blocked_no_narrative' && n.after.engine_status !== 'blocked_no_narrative');
  await closeOpenItemsOfIssues(
    db,
    events,
    actor,
    unblocked.map((n) => n.after.id),
    'missing_narrative',
    { resolution: 'narrative_supplied' },
  );
  return rows;
}

/**
 * Stores an ingest plan (domain/ingestPlan.ts): a deciding record with a new (source, external_id)
 * creates an issue, a known one is re-ingested (updated, with an event); records without external_id
 * create an issue each. A concurrent transaction that creates the same new key makes this one fail
 * with a unique violation (23505): run it under `withEventBatch(…, {retry: true})`, whose next attempt
 * finds the other's row and re-ingests it. The plan must be made at `events.recordedAt`.
 */
export async function storeIngestPlan(db: Queryable, events: EventBatch, actor: Actor, plan: IngestPlan, via: 'ingest' | 'api'): Promise<IngestOutcome> {
  if (!plan.effective.length) return { results: [] };
  const recordedAt = events.recordedAt;
  const existing = await existingByKeys(
    db,
    events.workspaceId,
    plan.effective.map((e) => e.input),
  );
  const recordedAtText = isoString(recordedAt);
  // Each payload is built whole (no shared part spread into a second object) and each instant formatted
  // once, by `isoString` (Date#toISOString's text at a quarter of its cost): this runs for every record of a batch.
  const planned = plan.effective.map(({ input, key, eligibility }) => {
    const state = key !== null ? existing.get(key) : undefined;
    const occurredAt = input.occurred_at ? isoString(input.occurred_at) : null;
    const sourceCreatedAt = occurredAt ?? (state ? isoString(state.created_at) : recordedAtText);
    const event: NewEvent = state
      ? {
          aggregateType: 'issue',
          aggregateId: state.id,
          eventType: 'issue.reingested',
          payload: {
            title: input.title,
            narrative: input.narrative,
            severity: input.severity,
            occurred_at: occurredAt,
            source_created_at: sourceCreatedAt,
            engine_status: eligibility.status,
            ineligible_reason: eligibility.reason,
          },
        }
      : {
          aggregateType: 'issue',
          aggregateId: randomUUID(),
          eventType: 'issue.created',
          payload: {
            source: input.source,
            external_id: input.external_id,
            title: input.title,
            narrative: input.narrative,
            severity: input.severity,
            occurred_at: occurredAt,
            source_created_at: sourceCreatedAt,
            engine_status: eligibility.status,
            ineligible_reason: eligibility.reason,
            via,
          },
        };
    return { state, event, created: !state };
  });
  const rows = await writeIssueEvents(db, events, actor, planned);

  const positionOfIndex = new Map(plan.effective.map((e, position) => [e.index, position]));
  return {
    results: plan.decidingIndex.map((deciding) => {
      const position = positionOfIndex.get(deciding)!;
      const before = planned[position].state;
      const escalated = before !== undefined && before.severity !== 'critical' && rows[position].severity === 'critical';
      return { issue_id: rows[position].id, engine_status: rows[position].engine_status, created: planned[position].created, escalated };
    }),
  };
}

export async function findIssue(db: Queryable, workspaceId: string, id: string): Promise<IssueRow | null> {
  if (!isUuid(id)) return null;
  const { rows } = await db.query<IssueRow>(`select ${issueColumns} from issues where workspace_id = $1 and id = $2`, [workspaceId, id]);
  return rows[0] ?? null;
}

export async function lockIssue(db: Queryable, workspaceId: string, id: string): Promise<IssueRow> {
  const [row] = isUuid(id) ? await lockIssuesById(db, workspaceId, [id]) : [];
  if (!row) throw new AppError('not_found', 'Issue not found');
  return row;
}

/**
 * Stores a PATCH (domain/issueUpdate.ts, decided on `current` as locked by `lockIssue`): field changes
 * become one issue.updated event, a status change an issue.status_changed event; the events go to the batch.
 */
export async function storeIssueUpdate(db: Queryable, events: EventBatch, actor: Actor, current: IssueRow, update: IssueUpdate): Promise<IssueRow> {
  const id = current.id;
  const issueEvents: NewEvent[] = [];
  if (Object.keys(update.changes).length)
    issueEvents.push({ aggregateType: 'issue', aggregateId: id, eventType: 'issue.updated', payload: { changes: update.changes } });
  if (update.statusChange)
    issueEvents.push({ aggregateType: 'issue', aggregateId: id, eventType: 'issue.status_changed', payload: { ...update.statusChange } });
  let state = current;
  const planned = issueEvents.map((event) => {
    const before = state;
    state = applyIssueEvent(state, {
      workspace_id: events.workspaceId,
      aggregate_id: id,
      event_type: event.eventType,
      payload: event.payload,
      recorded_at: events.recordedAt,
    });
    return { state: before, event };
  });
  const rows = await writeIssueEvents(db, events, actor, planned);
  return rows.at(-1)!;
}

/** When each issue of a pattern occurred (those with a time), in time order: the series fix verification reads. */
export async function patternOccurrences(db: Queryable, workspaceId: string, patternId: string): Promise<Array<{ id: string; occurred_at: Date }>> {
  const { rows } = await db.query<{ id: string; occurred_at: Date }>(
    'select id, occurred_at from issues where workspace_id = $1 and pattern_id = $2 and occurred_at is not null order by occurred_at, id',
    [workspaceId, patternId],
  );
  return rows;
}
