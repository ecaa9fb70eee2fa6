/**
 * The pattern projection: `applyPatternEvent` folds pattern.* events (written by the engine's
 * patterns stage, and by status changes) into the row stored in `patterns`.
 * - pattern.created {name, status, risk_score, issue_count, first_seen_at, last_seen_at, domain, root_cause, top_terms, provenance, path, template, examples}
 * - pattern.updated {changes: {…same fields…, merged_into, split_into}} (lineage, issue 31)
 * - pattern.status_changed {from, to}
 */
import type { Queryable } from '../lib/db.ts';
import type { StoredEvent } from './events.ts';
import type { PatternStatus } from '../domain/patternLifecycle.ts';

export interface PatternRow {
  id: string;
  workspace_id: string;
  name: string;
  status: PatternStatus;
  risk_score: number;
  issue_count: number;
  first_seen_at: Date | null;
  last_seen_at: Date | null;
  domain: string | null;
  root_cause: string | null;
  top_terms: string[];
  provenance: Record<string, unknown>;
  path: 'templated' | 'prose' | null;
  template: string | null;
  examples: Array<{ issue_id: string; title: string }>;
  /** The pattern it was merged into (by a person or the engine), else null. */
  merged_into: string | null;
  /** The patterns it split into (its successors), cumulative. */
  split_into: string[];
  created_at: Date;
  updated_at: Date;
  version: number;
  last_sequence: number;
}

export type PatternEvent = Pick<StoredEvent, 'workspace_id' | 'sequence' | 'aggregate_id' | 'event_type' | 'payload' | 'recorded_at'>;

const fields = [
  'name',
  'status',
  'risk_score',
  'issue_count',
  'first_seen_at',
  'last_seen_at',
  'domain',
  'root_cause',
  'top_terms',
  'provenance',
  'path',
  'template',
  'examples',
  'merged_into',
  'split_into',
] as const;
const dateFields = new Set(['first_seen_at', 'last_seen_at']);

function assign(row: PatternRow, values: Record<string, unknown>) {
  for (const field of fields) {
    if (!(field in values)) continue;
    const value = values[field];
    (row as unknown as Record<string, unknown>)[field] = dateFields.has(field) && value !== null ? new Date(value as string) : value;
  }
}

export function applyPatternEvent(state: PatternRow | undefined, event: PatternEvent): PatternRow {
  const p = event.payload as Record<string, unknown>;
  if (event.event_type === 'pattern.created') {
    const row: PatternRow = {
      id: event.aggregate_id,
      workspace_id: event.workspace_id,
      name: '',
      status: 'active',
      risk_score: 0,
      issue_count: 0,
      first_seen_at: null,
      last_seen_at: null,
      domain: null,
      root_cause: null,
      top_terms: [],
      provenance: {},
      path: null,
      template: null,
      examples: [],
      merged_into: null,
      split_into: [],
      created_at: event.recorded_at,
      updated_at: event.recorded_at,
      version: 1,
      last_sequence: event.sequence,
    };
    assign(row, p);
    return row;
  }
  if (!state) throw new Error(`${event.event_type} for unknown pattern ${event.aggregate_id}`);
  const next: PatternRow = { ...state, updated_at: event.recorded_at, version: state.version + 1, last_sequence: event.sequence };
  if (event.event_type === 'pattern.updated') assign(next, p.changes as Record<string, unknown>);
  else if (event.event_type === 'pattern.status_changed') next.status = p.to as PatternStatus;
  else throw new Error(`unknown pattern event ${event.event_type}`);
  return next;
}

const columns = [
  ['id', 'uuid'],
  ['workspace_id', 'uuid'],
  ['name', 'text'],
  ['status', 'text'],
  ['risk_score', 'integer'],
  ['issue_count', 'integer'],
  ['first_seen_at', 'timestamptz'],
  ['last_seen_at', 'timestamptz'],
  ['domain', 'text'],
  ['root_cause', 'text'],
  ['top_terms', 'text[]'],
  ['provenance', 'jsonb'],
  ['path', 'text'],
  ['template', 'text'],
  ['examples', 'jsonb'],
  ['merged_into', 'uuid'],
  ['split_into', 'uuid[]'],
  ['created_at', 'timestamptz'],
  ['updated_at', 'timestamptz'],
  ['version', 'integer'],
  ['last_sequence', 'bigint'],
] as const;
export const patternColumns = columns.map(([c]) => c).join(', ');
const recordType = columns.map(([c, t]) => `${c} ${t}`).join(', ');
const updateSet = columns
  .filter(([c]) => c !== 'id')
  .map(([c]) => `${c} = excluded.${c}`)
  .join(', ');

export async function upsertPatternRows(db: Queryable, rows: PatternRow[]): Promise<void> {
  if (!rows.length) return;
  await db.query(
    `insert into patterns (${patternColumns})
     select ${patternColumns} from jsonb_to_recordset($1::jsonb) as r(${recordType})
     on conflict (id) do update set ${updateSet}`,
    [JSON.stringify(rows)],
  );
}
