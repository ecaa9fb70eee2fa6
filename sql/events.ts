/**
 * The append-only event log. Every change to an issue, pattern, review item, config or engine output
 * is an event with a gap-free per-workspace sequence: appends take the workspace's counter row,
 * which also serialises writers of one workspace for the rest of their transaction. Every writer takes
 * that lock before any other row lock of the workspace (issues, review items), so writers never deadlock.
 */
import type { Queryable } from '../lib/db.ts';

export interface Actor {
  type: 'user' | 'service_account' | 'api_key' | 'system' | 'engine';
  id: string | null;
}

export interface NewEvent {
  aggregateType: 'issue' | 'pattern' | 'review_item' | 'config' | 'engine_run';
  aggregateId: string;
  eventType: string;
  payload: Record<string, unknown>;
  occurredAt?: Date;
}

export interface StoredEvent {
  workspace_id: string;
  sequence: number;
  id: string;
  aggregate_type: string;
  aggregate_id: string;
  event_type: string;
  payload: Record<string, unknown>;
  actor_type: string;
  actor_id: string | null;
  occurred_at: Date;
  recorded_at: Date;
}

/**
 * Reserves `count` sequence numbers for the workspace and returns the first one and the transaction's
 * clock (ms precision, the `recorded_at` of the events and the time projections use). Must run inside
 * the transaction that appends the events.
 */
export async function reserveSequence(db: Queryable, workspaceId: string, count: number): Promise<{ first: number; recordedAt: Date }> {
  const { rows } = await db.query<{ last_sequence: number; now: Date }>(
    `insert into workspace_event_counters (workspace_id, last_sequence) values ($1, $2)
     on conflict (workspace_id) do update set last_sequence = workspace_event_counters.last_sequence + $2
     returning last_sequence, date_trunc('milliseconds', now()) as now`,
    [workspaceId, count],
  );
  return { first: rows[0].last_sequence - count + 1, recordedAt: rows[0].now };
}

// The payloads travel as one JSON array (not a jsonb[] literal, whose per-element quoting costs more
// than the insert on both ends); rows from (…) with ordinality keeps the columns aligned.
const insertEventsSql = `insert into events (workspace_id, sequence, aggregate_type, aggregate_id, event_type, payload, actor_type, actor_id, occurred_at, recorded_at)
     select $1, $2 + e.ord - 1, e.aggregate_type, e.aggregate_id, e.event_type, e.payload, $3, $4, coalesce(e.occurred_at, $5), $5
       from rows from (unnest($6::text[]), unnest($7::uuid[]), unnest($8::text[]), jsonb_array_elements($9::jsonb), unnest($10::timestamptz[]))
            with ordinality as e(aggregate_type, aggregate_id, event_type, payload, occurred_at, ord)`;

function insertEventsParams(workspaceId: string, firstSequence: number, recordedAt: Date, actor: Actor, events: NewEvent[]): unknown[] {
  return [
    workspaceId,
    firstSequence,
    actor.type,
    actor.id,
    recordedAt,
    events.map((e) => e.aggregateType),
    events.map((e) => e.aggregateId),
    events.map((e) => e.eventType),
    JSON.stringify(events.map((e) => e.payload)),
    events.map((e) => e.occurredAt ?? null),
  ];
}

/** Writes events whose sequences were reserved (first, first+1, …) in one statement and returns them as stored. */
export async function insertEvents(
  db: Queryable,
  workspaceId: string,
  firstSequence: number,
  recordedAt: Date,
  actor: Actor,
  events: NewEvent[],
): Promise<StoredEvent[]> {
  if (!events.length) return [];
  const { rows } = await db.query<StoredEvent>(`${insertEventsSql} returning *`, insertEventsParams(workspaceId, firstSequence, recordedAt, actor, events));
  return rows.sort((a, b) => a.sequence - b.sequence);
}

/**
 * `insertEvents` for writers that do not need the stored rows back (bulk ingest): the same rows,
 * without shipping every payload back to be parsed again.
 */
export async function writeEvents(db: Queryable, workspaceId: string, firstSequence: number, recordedAt: Date, actor: Actor, events: NewEvent[]): Promise<void> {
  if (!events.length) return;
  await db.query(insertEventsSql, insertEventsParams(workspaceId, firstSequence, recordedAt, actor, events));
}

/** Reserves sequences and appends in one call: the common case of a single-aggregate change. */
export async function appendEvents(db: Queryable, workspaceId: string, actor: Actor, events: NewEvent[]): Promise<StoredEvent[]> {
  const { first, recordedAt } = await reserveSequence(db, workspaceId, events.length);
  return insertEvents(db, workspaceId, first, recordedAt, actor, events);
}

export async function eventsOfAggregate(db: Queryable, workspaceId: string, aggregateType: string, aggregateId: string): Promise<StoredEvent[]> {
  const { rows } = await db.query<StoredEvent>(
    `select * from events where workspace_id = $1 and aggregate_type = $2 and aggregate_id = $3 order by sequence`,
    [workspaceId, aggregateType, aggregateId],
  );
  return rows;
}

/** Locks the workspace's counter row: no event of the workspace can be appended until commit. */
export async function lockWorkspaceLog(db: Queryable, workspaceId: string): Promise<void> {
  await db.query(
    `insert into workspace_event_counters (workspace_id) values ($1) on conflict (workspace_id) do update set last_sequence = workspace_event_counters.last_sequence`,
    [workspaceId],
  );
}
