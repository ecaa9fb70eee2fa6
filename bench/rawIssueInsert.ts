/**
 * The ingest benchmark's baselines: the same records written as plain rows by one statement per batch
 * (autocommit, so one commit per batch as through HTTP). *Issue rows*: one multi-row
 * `insert … select from unnest(…)` of all the issue columns into `bench_issues`, a scratch copy of
 * `issue_records` (the table behind the view `issues`) with all its indexes, defaults, checks, its
 * foreign key to `workspaces` and the `search` tsvector trigger. *Issue and event rows*: the same insert (into a second copy,
 * `bench_issues_with_events`) and, in the same statement, every event the service writes for the batch
 * (the `issue.created` event of each issue and the `review_item.opened` event of each issue without a
 * narrative, with the payloads the service writes) into `bench_events`, a scratch copy of the event
 * log with its foreign key, numbered from a plain sequence. No review queue rows, no job, no
 * idempotency, no HTTP: what the database alone charges for storing the same issue and event rows.
 */
import { randomUUID } from 'node:crypto';
import type { Pool } from '../lib/db.ts';
import { DEFAULT_SEVERITY, normalizeSeverity } from '../domain/severity.ts';
import { engineEligibility } from '../domain/engineEligibility.ts';
import type { SyntheticRecord } from '../fixtures/syntheticIssues.ts';
import { issueRecordColumns } from '../sql/issueProjection.ts';
import { MISSING_NARRATIVE_REASON } from '../sql/issues.ts';

export const SCRATCH_TABLE = 'bench_issues';
const SCRATCH_ISSUES_WITH_EVENTS = 'bench_issues_with_events';
const SCRATCH_EVENTS = 'bench_events';
const SCRATCH_SEQUENCE = 'bench_event_sequence';

export async function createScratchIssuesTable(pool: Pool): Promise<void> {
  for (const [table, like] of [
    [SCRATCH_TABLE, 'issue_records'],
    [SCRATCH_ISSUES_WITH_EVENTS, 'issue_records'],
    [SCRATCH_EVENTS, 'events'],
  ]) {
    await pool.query(`drop table if exists ${table}`);
    // LIKE copies indexes, defaults and checks but no foreign key: the rows are checked against workspaces as the real ones are.
    await pool.query(`create table ${table} (like ${like} including all, foreign key (workspace_id) references workspaces (id) on delete cascade)`);
    // Triggers are not copied by LIKE: the issues' full-text document is kept by one (migration 000188).
    if (like === 'issue_records')
      await pool.query(`create trigger search_on_insert before insert on ${table} for each row execute function issues_search_document()`);
  }
  await pool.query(`drop sequence if exists ${SCRATCH_SEQUENCE}; create sequence ${SCRATCH_SEQUENCE}`);
}

const columns = issueRecordColumns;

const insertInto = (table: string) => `insert into ${table} (${columns.map(([c]) => c).join(', ')})
  select * from unnest(${columns.map(([, t], i) => `$${i + 1}::${t}[]`).join(', ')})`;
const insertSql = insertInto(SCRATCH_TABLE);

/** One batch: the issue columns as arrays and the events' payloads (the statements' parameters), built before the clock starts. */
export interface RawBatch {
  workspaceId: string;
  columns: unknown[][];
  /** The batch's events: aggregate types, aggregate ids, event types and the payloads as one JSON array. */
  events: { types: string[]; ids: string[]; eventTypes: string[]; payloads: string };
}

const n = columns.length;
// Issues and their events in one statement, one round trip; the events are numbered from a plain
// sequence (no counter row to wait on: the cheapest numbering there is).
const withEventsSql = `with issues as (${insertInto(SCRATCH_ISSUES_WITH_EVENTS)} returning id)
  insert into ${SCRATCH_EVENTS} (workspace_id, sequence, aggregate_type, aggregate_id, event_type, payload, actor_type, actor_id, occurred_at, recorded_at)
  select $${n + 1}, nextval('${SCRATCH_SEQUENCE}'), e.aggregate_type, e.aggregate_id, e.event_type, e.payload, 'service_account', null, now(), now()
    from rows from (unnest($${n + 2}::text[]), unnest($${n + 3}::uuid[]), unnest($${n + 4}::text[]), jsonb_array_elements($${n + 5}::jsonb))
         as e(aggregate_type, aggregate_id, event_type, payload)`;

export function rawBatch(records: SyntheticRecord[], workspaceId: string, now: Date): RawBatch {
  const cols: unknown[][] = columns.map(() => []);
  const events = { types: [] as string[], ids: [] as string[], eventTypes: [] as string[], payloads: [] as unknown[] };
  const addEvent = (type: string, id: string, eventType: string, payload: unknown) => {
    events.types.push(type);
    events.ids.push(id);
    events.eventTypes.push(eventType);
    events.payloads.push(payload);
  };
  records.forEach((r) => {
    const narrative = r.narrative?.trim() ? r.narrative : null;
    const occurred = r.occurred_at ? new Date(r.occurred_at) : null;
    const eligibility = engineEligibility(narrative, occurred, now);
    const values = [
      randomUUID(),
      workspaceId,
      r.source.trim(),
      r.external_id.trim(),
      r.title.trim(),
      narrative,
      (r.severity && normalizeSeverity(r.severity)) || DEFAULT_SEVERITY,
      'open',
      eligibility.status,
      eligibility.reason,
      occurred,
      occurred ?? now,
      now,
      now,
      null,
      null,
      1,
    ];
    values.forEach((v, c) => cols[c].push(v));
    addEvent('issue', values[0] as string, 'issue.created', {
      source: values[2],
      external_id: values[3],
      title: values[4],
      narrative,
      severity: values[6],
      occurred_at: occurred?.toISOString() ?? null,
      source_created_at: (occurred ?? now).toISOString(),
      engine_status: eligibility.status,
      ineligible_reason: eligibility.reason,
      via: 'ingest',
    });
    if (eligibility.status === 'blocked_no_narrative') {
      addEvent('review_item', randomUUID(), 'review_item.opened', {
        kind: 'missing_narrative',
        issue_id: values[0],
        pattern_id: null,
        question_key: null,
        issue_count: 1,
        reason: MISSING_NARRATIVE_REASON,
        candidates: [],
        provenance: {},
      });
    }
  });
  return { workspaceId, columns: cols, events: { ...events, payloads: JSON.stringify(events.payloads) } };
}

/**
 * Inserts the batches with `concurrency` statements in flight, the issue rows alone or with their
 * events; returns the elapsed seconds.
 */
export async function rawInsert(pool: Pool, batches: RawBatch[], concurrency: number, withEvents: boolean): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, batches.length) }, async () => {
      for (let i = next++; i < batches.length; i = next++) {
        const b = batches[i];
        if (withEvents) await pool.query(withEventsSql, [...b.columns, b.workspaceId, b.events.types, b.events.ids, b.events.eventTypes, b.events.payloads]);
        else await pool.query(insertSql, b.columns);
      }
    }),
  );
  return Number(process.hrtime.bigint() - started) / 1e9;
}
