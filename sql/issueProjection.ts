/**
 * The issue projection: `applyIssueEvent` folds issue.* events into an issue row. A row is stored in
 * two tables (migration 000191): `issue_records` holds every column but the pattern, `issue_patterns`
 * the pattern of each assigned issue, and the view `issues` joins them back for readers. An engine
 * run's assignments (`assignPatterns`) then write only the narrow table and leave the issue records
 * alone. Live writes and `svc projections rebuild` both go through this fold and `upsertIssueRows`, so
 * the rebuilt rows equal the live ones by construction (a test checks it).
 *
 * Event types and payloads:
 * - issue.created     {source, external_id, title, narrative, severity, occurred_at, source_created_at,
 *                      engine_status, ineligible_reason, via}
 * - issue.reingested  {title, narrative, severity, occurred_at, source_created_at, engine_status, ineligible_reason}
 * - issue.updated     {changes: {title?, narrative?, severity?, engine_status?, ineligible_reason?}}
 * - issue.status_changed {from, to}
 * - issue.pattern_assigned {pattern_id, run_id}: the engine's grouping, not a change of the issue, so
 *   it moves neither `version` nor `updated_at` (which count the issue's own changes)
 */
import { prepared, type Queryable } from '../lib/db.ts';
import { isoString } from '../lib/isoString.ts';
import type { StoredEvent } from './events.ts';
import type { EngineStatus } from '../domain/engineEligibility.ts';
import type { IssueStatus } from '../domain/issueTransitions.ts';
import type { Severity } from '../domain/severity.ts';

export interface IssueRow {
  id: string;
  workspace_id: string;
  source: string;
  external_id: string | null;
  title: string;
  narrative: string | null;
  severity: Severity;
  status: IssueStatus;
  engine_status: EngineStatus;
  ineligible_reason: string | null;
  occurred_at: Date | null;
  source_created_at: Date;
  pattern_id: string | null;
  created_at: Date;
  updated_at: Date;
  resolved_at: Date | null;
  closed_at: Date | null;
  version: number;
}

/**
 * The event as the fold needs it: a stored event, or one about to be stored. No sequence: a row never
 * depends on the sequence its events will get, so live writers upsert rows before they reserve the
 * sequences (the last step of their transaction, see sql/events.ts).
 */
export type IssueEvent = Pick<StoredEvent, 'workspace_id' | 'aggregate_id' | 'event_type' | 'payload' | 'recorded_at'>;

const date = (v: unknown): Date | null => (v === null || v === undefined ? null : new Date(v as string));

export function applyIssueEvent(state: IssueRow | undefined, event: IssueEvent): IssueRow {
  const p = event.payload as Record<string, unknown>;
  const at = event.recorded_at;
  if (event.event_type === 'issue.created') {
    return {
      id: event.aggregate_id,
      workspace_id: event.workspace_id,
      source: p.source as string,
      external_id: (p.external_id as string | null) ?? null,
      title: p.title as string,
      narrative: (p.narrative as string | null) ?? null,
      severity: p.severity as Severity,
      status: 'open',
      engine_status: p.engine_status as EngineStatus,
      ineligible_reason: (p.ineligible_reason as string | null) ?? null,
      occurred_at: date(p.occurred_at),
      source_created_at: date(p.source_created_at)!,
      pattern_id: null,
      created_at: at,
      updated_at: at,
      resolved_at: null,
      closed_at: null,
      version: 1,
    };
  }
  if (!state) throw new Error(`${event.event_type} for unknown issue ${event.aggregate_id}`);
  const next: IssueRow = { ...state, updated_at: at, version: state.version + 1 };
  switch (event.event_type) {
    case 'issue.reingested':
      next.title = p.title as string;
      next.narrative = (p.narrative as string | null) ?? null;
      next.severity = p.severity as Severity;
      next.occurred_at = date(p.occurred_at);
      next.source_created_at = date(p.source_created_at)!;
      next.engine_status = p.engine_status as EngineStatus;
      next.ineligible_reason = (p.ineligible_reason as string | null) ?? null;
      if (next.engine_status !== 'eligible') next.pattern_id = null;
      return next;
    case 'issue.updated': {
      const c = p.changes as Partial<Record<string, unknown>>;
      if ('title' in c) next.title = c.title as string;
      if ('narrative' in c) next.narrative = (c.narrative as string | null) ?? null;
      if ('severity' in c) next.severity = c.severity as Severity;
      if ('engine_status' in c) next.engine_status = c.engine_status as EngineStatus;
      if ('ineligible_reason' in c) next.ineligible_reason = (c.ineligible_reason as string | null) ?? null;
      if (next.engine_status !== 'eligible') next.pattern_id = null;
      return next;
    }
    case 'issue.status_changed': {
      const to = p.to as IssueStatus;
      next.status = to;
      if (to === 'resolved') next.resolved_at = at;
      if (to === 'closed') next.closed_at = at;
      if (to === 'open') {
        next.resolved_at = null;
        next.closed_at = null;
      }
      return next;
    }
    case 'issue.pattern_assigned': // changes exactly the pattern (what `assignPatterns` writes)
      return { ...state, pattern_id: (p.pattern_id as string | null) ?? null };
    default:
      throw new Error(`unknown issue event ${event.event_type}`);
  }
}

/** Every column of `issue_records` with its Postgres type, in table order (also the ingest benchmark's raw-insert baseline). */
export const issueRecordColumns = [
  ['id', 'uuid'],
  ['workspace_id', 'uuid'],
  ['source', 'text'],
  ['external_id', 'text'],
  ['title', 'text'],
  ['narrative', 'text'],
  ['severity', 'text'],
  ['status', 'text'],
  ['engine_status', 'text'],
  ['ineligible_reason', 'text'],
  ['occurred_at', 'timestamptz'],
  ['source_created_at', 'timestamptz'],
  ['created_at', 'timestamptz'],
  ['updated_at', 'timestamptz'],
  ['resolved_at', 'timestamptz'],
  ['closed_at', 'timestamptz'],
  ['version', 'integer'],
] as const;
const columns = issueRecordColumns;
const columnList = columns.map(([c]) => c).join(', ');
const recordType = columns.map(([c, t]) => `${c} ${t}`).join(', ');
const updateSet = columns
  .filter(([c]) => c !== 'id')
  .map(([c]) => `${c} = excluded.${c}`)
  .join(', ');

/**
 * The rows as one JSON array, their timestamps written as ISO strings here: left to JSON.stringify,
 * every Date goes through Date#toJSON, which made the document cost about twice as much to build
 * (500 rows with 4 dates each: 4.5 ms against 2.1 ms when the strings are ready). The rows of one
 * transaction mostly share its clock, so each distinct instant is formatted once, and by `isoString`
 * (the same text as Date#toJSON for every valid row date, a quarter of its cost).
 */
function rowsJson(rows: IssueRow[]): string {
  const iso = new Map<number, string | null>();
  const text = (d: Date | null) => {
    if (d === null) return null;
    const ms = d.getTime();
    let formatted = iso.get(ms);
    // What JSON.stringify writes for a Date (Date#toJSON: null for an invalid one).
    if (formatted === undefined) iso.set(ms, (formatted = Number.isNaN(ms) ? null : isoString(d)));
    return formatted;
  };
  return JSON.stringify(
    rows.map((row) => ({
      ...row,
      occurred_at: text(row.occurred_at),
      source_created_at: text(row.source_created_at),
      created_at: text(row.created_at),
      updated_at: text(row.updated_at),
      resolved_at: text(row.resolved_at),
      closed_at: text(row.closed_at),
    })),
  );
}

/**
 * The two CTEs that make `issue_patterns` hold the patterns of the rows in `r` (id, pattern_id): a pattern
 * set or changed is written, a null one removed where `mayHaveOne` says the issue may have one stored.
 */
const writePatterns = (
  mayHaveOne: string,
) => `unassigned as (delete from issue_patterns p using r where r.pattern_id is null and ${mayHaveOne} and p.issue_id = r.id),
   assigned as (
     insert into issue_patterns (issue_id, pattern_id) select id, pattern_id from r where pattern_id is not null
     on conflict (issue_id) do update set pattern_id = excluded.pattern_id where issue_patterns.pattern_id <> excluded.pattern_id
   )`;

/**
 * Writes projection rows (insert or replace) in one statement: the records, and the pattern of each row.
 * A row of version 1 is taken to have no pattern stored, which holds for every live write (only its
 * creation writes it; the rebuild clears the workspace's patterns before it writes): looking for one
 * costs 500 primary-key probes, ~2.7 ms of a 500-record ingest batch. The caller holds the rows' locks
 * (`lockIssuesById`). The rows travel as one `json` document: json_to_recordset reads fields straight from
 * the text, where jsonb would first build a binary copy of the whole batch (about 6 ms instead of 4 ms
 * per 500 rows on the benchmark machine).
 */
const upsertIssues = prepared(
  'issues_upsert',
  `with r as materialized (select * from json_to_recordset($1::json) as r(${recordType}, pattern_id uuid)),
   records as (
     insert into issue_records (${columnList}) select ${columnList} from r
     on conflict (id) do update set ${updateSet}
   ),
   ${writePatterns('r.version > 1')}
   select 1`,
);
export async function upsertIssueRows(db: Queryable, rows: IssueRow[]): Promise<void> {
  if (!rows.length) return;
  await db.query(upsertIssues([rowsJson(rows)]));
}

/**
 * An engine run's assignments: each issue's pattern set, or removed (null). Only the narrow
 * `issue_patterns` is written; the issue records, their indexes and full-text document stay untouched.
 */
export async function assignPatterns(db: Queryable, rows: Array<Pick<IssueRow, 'id' | 'pattern_id'>>): Promise<void> {
  if (!rows.length) return;
  await db.query(
    `with r as materialized (select * from json_to_recordset($1::json) as r(id uuid, pattern_id uuid)),
     ${writePatterns('true')}
     select 1`,
    [JSON.stringify(rows.map((row) => ({ id: row.id, pattern_id: row.pattern_id })))],
  );
}

/** The columns of an issue row as the view `issues` gives them (a select list). */
export const issueColumns = `${columnList}, pattern_id`;
