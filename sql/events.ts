/**
 * The append-only event log. Every change to an issue, pattern, review item, config or engine output
 * is an event with a gap-free per-workspace sequence, reserved from the workspace's counter row
 * (`workspace_event_counters`), which stays locked until the transaction commits.
 *
 * The write protocol, the same for every writer of a workspace:
 * 1. `EventBatch.start` fixes the transaction's clock: the `recorded_at` of its events and the time
 *    its projection rows carry;
 * 2. the writer locks the rows it reads and then overwrites (`for update`, in one order: issues by id,
 *    then review items, then patterns), writes its rows and collects its events with `add`;
 * 3. `flush`, the last statement before COMMIT, takes the counter row, reserves the sequences and
 *    inserts every collected event in one statement.
 * Because the counter is the last lock of every transaction and is held until commit, sequences are
 * gap-free, their order is the commit order, and a transaction waiting for the counter holds nothing
 * that the holder needs (no deadlock). Writers of one workspace run concurrently up to that point, so
 * the part that is serialised per workspace is only the events insert and the commit.
 */
import { prepared, withTransaction, withTransactionRetry, type Pool, type PoolClient, type Queryable } from '../lib/db.ts';
import { equalityFilters, type ListSource } from './pagination.ts';

export const aggregateTypes = ['issue', 'pattern', 'review_item', 'config', 'engine_run', 'alert', 'recommendation', 'grouping_decision'] as const;

export interface Actor {
  type: 'user' | 'service_account' | 'api_key' | 'system' | 'engine';
  id: string | null;
}

export interface NewEvent {
  aggregateType: (typeof aggregateTypes)[number];
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

/** An event as written, with what the projection folds need (what `EventBatch.flush` hands back). */
export type SequencedEvent = Pick<StoredEvent, 'workspace_id' | 'sequence' | 'aggregate_type' | 'aggregate_id' | 'event_type' | 'payload' | 'recorded_at'>;

// Each statement carries at most this many events (the engine's results can hold 100,000 and more).
const STATEMENT_EVENTS = 5000;

// The events travel as one JSON array of [actor_type, actor_id, aggregate_type, aggregate_id, event_type,
// payload, occurred_at] rows: JSON.stringify is native, where pg's text[] / timestamptz[] literals quote
// and format every element in JavaScript (and a jsonb[] literal's per-element quoting costs more than
// the insert on both ends); with ordinality keeps the order. $1 workspace, $2 recorded_at, $3 the
// events, $4 the first sequence or count.
const insertEventsSql = (
  firstSequence: string,
  from: string,
) => `insert into events (workspace_id, sequence, aggregate_type, aggregate_id, event_type, payload, actor_type, actor_id, occurred_at, recorded_at)
     select $1, ${firstSequence} + e.ord - 1, e.v->>2, (e.v->>3)::uuid, e.v->>4, e.v->5, e.v->>0, e.v->>1, coalesce((e.v->>6)::timestamptz, $2), $2
       from ${from}jsonb_array_elements($3::jsonb) with ordinality as e(v, ord)`;

// Takes the counter row, reserves $4 sequences and inserts the first statement's events: one round trip.
const reserveAndInsert = prepared(
  'events_reserve_insert',
  `with reserved as (
       insert into workspace_event_counters (workspace_id, last_sequence) values ($1, $4::bigint)
       on conflict (workspace_id) do update set last_sequence = workspace_event_counters.last_sequence + $4::bigint
       returning last_sequence - $4::bigint + 1 as first
     ), written as (
       ${insertEventsSql('r.first', 'reserved as r cross join ')}
     )
     select first from reserved`,
);

const insertMore = prepared('events_insert_next', insertEventsSql('$4::bigint', ''));
const transactionClock = prepared('transaction_clock', `select date_trunc('milliseconds', now()) as now`);

/**
 * The events one transaction appends, written as its last statement (see the protocol above).
 * One batch per transaction and workspace; `flush` exactly once, after every other write.
 */
export class EventBatch {
  private readonly pending: Array<{ actor: Actor; event: NewEvent }> = [];
  private flushed = false;

  private constructor(
    private readonly db: Queryable,
    readonly workspaceId: string,
    /** The transaction's clock at millisecond precision: `recorded_at` of the events, and the time projections use. */
    readonly recordedAt: Date,
  ) {}

  /** Starts the batch of the transaction `db` is in (`now()` is the transaction's start, whenever it is read). */
  static async start(db: Queryable, workspaceId: string): Promise<EventBatch> {
    const { rows } = await db.query<{ now: Date }>(transactionClock([]));
    return new EventBatch(db, workspaceId, rows[0].now);
  }

  /** Collects events; they get their sequences, in the order added, when the batch is flushed. */
  add(actor: Actor, events: NewEvent[]): void {
    if (this.flushed) throw new Error('events added to a flushed batch');
    for (const event of events) this.pending.push({ actor, event });
  }

  /**
   * Reserves the sequences and inserts the collected events: the last statement of the transaction
   * (nothing but COMMIT may follow that takes a lock another writer of the workspace could hold).
   * Returns the events as written, in sequence order; an empty batch writes nothing and takes no lock.
   */
  async flush(): Promise<SequencedEvent[]> {
    if (this.flushed) throw new Error('event batch flushed twice');
    this.flushed = true;
    if (!this.pending.length) return [];
    let first = 0;
    for (let start = 0; start < this.pending.length; start += STATEMENT_EVENTS) {
      const chunk = this.pending.slice(start, start + STATEMENT_EVENTS);
      const rows = JSON.stringify(
        chunk.map(({ actor, event }) => [
          actor.type,
          actor.id,
          event.aggregateType,
          event.aggregateId,
          event.eventType,
          event.payload,
          event.occurredAt?.toISOString() ?? null,
        ]),
      );
      const params = [this.workspaceId, this.recordedAt, rows];
      if (start === 0) first = (await this.db.query<{ first: number }>(reserveAndInsert([...params, this.pending.length]))).rows[0].first;
      else await this.db.query(insertMore([...params, first + start]));
    }
    return this.pending.map(({ event }, i) => ({
      workspace_id: this.workspaceId,
      sequence: first + i,
      aggregate_type: event.aggregateType,
      aggregate_id: event.aggregateId,
      event_type: event.eventType,
      payload: event.payload,
      recorded_at: this.recordedAt,
    }));
  }
}

/**
 * Runs `fn` in a transaction with an event batch of the workspace and flushes the batch as the last
 * statement before COMMIT. With `retry`, the whole transaction is attempted again after a unique
 * violation (two writers created the same new key: the retry finds the other's row) or a deadlock.
 */
export function withEventBatch<T>(
  pool: Pool,
  workspaceId: string,
  fn: (client: PoolClient, events: EventBatch) => Promise<T>,
  options: { retry?: boolean } = {},
): Promise<T> {
  const body = async (client: PoolClient) => {
    const events = await EventBatch.start(client, workspaceId);
    const result = await fn(client, events);
    await events.flush();
    return result;
  };
  return options.retry ? withTransactionRetry(pool, body) : withTransaction(pool, body);
}

export async function eventsOfAggregate(db: Queryable, workspaceId: string, aggregateType: string, aggregateId: string): Promise<StoredEvent[]> {
  const { rows } = await db.query<StoredEvent>(`select * from events where workspace_id = $1 and aggregate_type = $2 and aggregate_id = $3 order by sequence`, [
    workspaceId,
    aggregateType,
    aggregateId,
  ]);
  return rows;
}

/**
 * Takes the workspace's counter row without appending: no event of the workspace can commit until this
 * transaction ends. For readers that must see the log stand still (a projection rebuild); like `flush`,
 * the last lock its transaction takes.
 */
export async function lockEventCounter(db: Queryable, workspaceId: string): Promise<void> {
  await db.query(
    `insert into workspace_event_counters (workspace_id) values ($1) on conflict (workspace_id) do update set last_sequence = workspace_event_counters.last_sequence`,
    [workspaceId],
  );
}

const bySequence = { sequence: { expr: 'sequence', type: 'bigint' } } as const;

/** GET /v1/events: the workspace's event log, optionally after a sequence and of one aggregate type. */
export function eventFeedList(workspaceId: string, f: { after_sequence?: number; aggregate_type?: string }): ListSource {
  const { where, params } = equalityFilters({ workspace_id: workspaceId, aggregate_type: f.aggregate_type });
  if (f.after_sequence !== undefined) where.push(`sequence > $${params.push(f.after_sequence)}`);
  return { where, params, select: '*', from: 'events', sortColumns: bySequence, idExpr: 'id' };
}

/** GET /v1/issues/{id}/events. */
export function issueEventList(workspaceId: string, issueId: string): ListSource {
  return {
    ...equalityFilters({ workspace_id: workspaceId, aggregate_type: 'issue', aggregate_id: issueId }),
    select: '*',
    from: 'events',
    sortColumns: bySequence,
    idExpr: 'id',
  };
}

/** The workspace's last committed event sequence (0 before its first event). */
export async function lastSequence(db: Queryable, workspaceId: string): Promise<number> {
  const { rows } = await db.query<{ last_sequence: number }>('select last_sequence from workspace_event_counters where workspace_id = $1', [workspaceId]);
  return rows[0]?.last_sequence ?? 0;
}

export interface StreamedEventRow {
  sequence: number;
  aggregate_id: string;
  event_type: string;
  payload: Record<string, unknown>;
  recorded_at: Date;
}

/** Up to `limit` events after `after` (and at most `upTo`), in sequence order: what a realtime client missed. */
export async function eventsAfter(db: Queryable, workspaceId: string, after: number, upTo: number | null, limit: number): Promise<StreamedEventRow[]> {
  const { rows } = await db.query<StreamedEventRow>(
    `select sequence, aggregate_id, event_type, payload, recorded_at from events
      where workspace_id = $1 and sequence > $2 and ($3::bigint is null or sequence <= $3) order by sequence limit $4`,
    [workspaceId, after, upTo, limit],
  );
  return rows;
}
