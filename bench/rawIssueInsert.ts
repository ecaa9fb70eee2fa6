/**
 * The ingest benchmark's baseline: the same records written as plain issue rows, one multi-row
 * `insert … select from unnest(…)` of all the issue columns per batch (autocommit, so one commit per
 * batch as through HTTP), into `bench_issues`, a scratch copy of `issues` with all its indexes,
 * defaults, checks and the generated `search` tsvector. No event log, no review queue, no job, no
 * HTTP: what the database alone charges for storing the rows.
 */
import { randomUUID } from 'node:crypto';
import type { Pool } from '../lib/db.ts';
import { DEFAULT_SEVERITY, normalizeSeverity } from '../domain/severity.ts';
import { engineEligibility } from '../domain/engineEligibility.ts';
import type { SyntheticRecord } from '../fixtures/syntheticIssues.ts';
import { issueRowColumns } from '../sql/issueProjection.ts';

export const SCRATCH_TABLE = 'bench_issues';

export async function createScratchIssuesTable(pool: Pool): Promise<void> {
  await pool.query(`drop table if exists ${SCRATCH_TABLE}`);
  await pool.query(`create table ${SCRATCH_TABLE} (like issues including all)`);
}

const columns = issueRowColumns;

const insertSql = `insert into ${SCRATCH_TABLE} (${columns.map(([c]) => c).join(', ')})
  select * from unnest(${columns.map(([, t], i) => `$${i + 1}::${t}[]`).join(', ')})`;

/** One batch as column arrays (the statement's parameters), built before the clock starts. */
export type RawBatch = unknown[][];

/** The rows the service would store for these records (same normalisation and eligibility rules). */
export function rawBatch(records: SyntheticRecord[], workspaceId: string, now: Date): RawBatch {
  const cols: unknown[][] = columns.map(() => []);
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
      null,
      now,
      now,
      null,
      null,
      1,
    ];
    values.forEach((v, c) => cols[c].push(v));
  });
  return cols;
}

/** Inserts the batches with `concurrency` statements in flight; returns the elapsed seconds. */
export async function rawInsert(pool: Pool, batches: RawBatch[], concurrency: number): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, batches.length) }, async () => {
      for (let i = next++; i < batches.length; i = next++) await pool.query(insertSql, batches[i]);
    }),
  );
  return Number(process.hrtime.bigint() - started) / 1e9;
}
