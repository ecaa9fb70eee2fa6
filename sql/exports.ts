/**
 * Exports: the rows of a list (issues, patterns, predictions, with that list's filters and default
 * order) streamed from a server-side cursor (`declare … cursor` in a transaction, fetched in
 * batches) into a CSV or XLSX file whose bytes are stored as ordered chunks in `export_chunks`, all
 * in the one transaction (a failed export leaves no half-written file). Memory holds one batch of
 * rows and one chunk of output, whatever the number of rows.
 *
 * The columns are the list API's item fields (nested ones flattened: `fingerprint.domain` is
 * `domain`, an estimate is `p_recurrence`, `p_recurrence_lower`, `p_recurrence_upper`), computed in
 * SQL in the API's text form (timestamps as ISO 8601 UTC with milliseconds).
 */
import { Writable } from 'node:stream';
import type ExcelJS from 'exceljs';
import type { PoolClient } from 'pg';
import { formatCsvRecord } from '../lib/csv.ts';
import type { Queryable } from '../lib/db.ts';
import { sheetCaughtUp, streamingWorkbook } from '../lib/xlsxStream.ts';
import { issueFilterSql, patternFilterSql, predictionFilterSql, type FilterSql } from './listFilters.ts';
import type { JobStatus } from './jobRuns.ts';
import { isUuid } from '../lib/ids.ts';

export const exportResources = ['issues', 'patterns', 'predictions'] as const;
export type ExportResource = (typeof exportResources)[number];
export const exportFormats = ['csv', 'xlsx'] as const;
export type ExportFormat = (typeof exportFormats)[number];

interface Column {
  name: string;
  sql: string;
  type: 'text' | 'number' | 'timestamp';
}

const iso = (expr: string) => `to_char(${expr} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const col = (name: string, type: Column['type'] = 'text', sql = name): Column => ({
  name,
  type,
  sql: type === 'timestamp' ? iso(sql) : type === 'number' ? sql : `${sql}::text`,
});

interface ExportDefinition {
  from: string;
  columns: Column[];
  /** The list's default order (keyset order of its default sort). */
  orderBy: string;
  filterSql(workspaceId: string, filters: Record<string, unknown>): FilterSql;
}

export const exportDefinitions: Record<ExportResource, ExportDefinition> = {
  issues: {
    from: 'issues',
    columns: [
      col('id'),
      col('title'),
      col('status'),
      col('severity'),
      col('pattern_id'),
      col('created_at', 'timestamp'),
      col('narrative'),
      col('source'),
      col('external_id'),
      col('engine_status'),
      col('ineligible_reason'),
      col('occurred_at', 'timestamp'),
      col('source_created_at', 'timestamp'),
      col('updated_at', 'timestamp'),
      col('resolved_at', 'timestamp'),
      col('closed_at', 'timestamp'),
      col('version', 'number'),
    ],
    orderBy: 'created_at desc, id desc',
    filterSql: issueFilterSql,
  },
  patterns: {
    from: 'patterns',
    columns: [
      col('id'),
      col('name'),
      col('status'),
      col('risk_score', 'number'),
      col('issue_count', 'number'),
      col('last_seen_at', 'timestamp'),
      col('first_seen_at', 'timestamp'),
      col('domain'),
      col('root_cause'),
      col('top_terms', 'text', "array_to_string(top_terms, ' ')"),
      col('created_at', 'timestamp'),
      col('updated_at', 'timestamp'),
    ],
    orderBy: 'risk_score desc, id desc',
    filterSql: patternFilterSql,
  },
  predictions: {
    from: 'predictions',
    columns: [
      col('id'),
      col('pattern_id'),
      col('run_id'),
      col('model', 'text', "prediction->>'model'"),
      col('horizon_days', 'number'),
      col('p_recurrence', 'number', "(prediction->'p_recurrence'->>'estimate')::float8"),
      col('p_recurrence_lower', 'number', "(prediction->'p_recurrence'->>'lower')::float8"),
      col('p_recurrence_upper', 'number', "(prediction->'p_recurrence'->>'upper')::float8"),
      col('expected_time_to_next_days', 'number', "(prediction->'expected_time_to_next_days'->>'estimate')::float8"),
      col('expected_time_to_next_days_lower', 'number', "(prediction->'expected_time_to_next_days'->>'lower')::float8"),
      col('expected_time_to_next_days_upper', 'number', "(prediction->'expected_time_to_next_days'->>'upper')::float8"),
      col('since_last_days', 'number', "(prediction->>'since_last_days')::float8"),
      col('last_occurrence_at', 'text', "prediction->>'last_occurrence_at'"),
      col('as_of', 'text', "prediction->>'as_of'"),
      col('interval_level', 'number', "(prediction->>'interval_level')::float8"),
      col('created_at', 'timestamp'),
    ],
    orderBy: 'p_recurrence desc, id desc',
    filterSql: predictionFilterSql,
  },
};

export const exportColumns = (resource: ExportResource) => exportDefinitions[resource].columns.map((c) => c.name);

/** The SELECT of an export: its columns, the list's filters, the list's order. */
export function exportQuery(resource: ExportResource, workspaceId: string, filters: Record<string, unknown>): { text: string; values: unknown[] } {
  const def = exportDefinitions[resource];
  const { where, params } = def.filterSql(workspaceId, filters);
  const select = def.columns.map((c) => `${c.sql} as "${c.name}"`).join(', ');
  return { text: `select ${select} from ${def.from} where ${where.join(' and ')} order by ${def.orderBy}`, values: params };
}

export const contentTypes: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/** A text cell starting with = + - @ (or a tab or CR) is prefixed with ' in CSV so that spreadsheets do not run it as a formula. */
const defuse = (s: string) => (/^[=+\-@\t\r]/.test(s) ? `'${s}` : s);

export interface ExportRow {
  id: string;
  workspace_id: string;
  job_run_id: string | null;
  resource: ExportResource;
  format: ExportFormat;
  filters: Record<string, unknown>;
  row_count: number | null;
  bytes: number | null;
  created_at: Date;
  finished_at: Date | null;
  expires_at: Date | null;
  status: JobStatus;
}

export async function insertExport(
  db: Queryable,
  e: { id: string; workspaceId: string; resource: ExportResource; format: ExportFormat; filters: Record<string, unknown> },
): Promise<void> {
  await db.query('insert into exports (id, workspace_id, resource, format, filters) values ($1, $2, $3, $4, $5)', [
    e.id,
    e.workspaceId,
    e.resource,
    e.format,
    JSON.stringify(e.filters),
  ]);
}

export async function setExportJobRun(db: Queryable, id: string, jobRunId: string): Promise<void> {
  await db.query('update exports set job_run_id = $2 where id = $1', [id, jobRunId]);
}

/** An export of the workspace (workspaceId null: any workspace, for the signed download). */
export async function findExport(db: Queryable, workspaceId: string | null, id: string): Promise<ExportRow | null> {
  if (!isUuid(id)) return null;
  const { rows } = await db.query<ExportRow>(
    `select e.id, e.workspace_id, e.job_run_id, e.resource, e.format, e.filters, e.row_count::float8 as row_count, e.bytes::float8 as bytes, e.created_at, e.finished_at, e.expires_at,
            coalesce(j.status, case when e.finished_at is null then 'queued' else 'succeeded' end) as status
       from exports e left join job_runs j on j.id = e.job_run_id
      where e.id = $1 and ($2::uuid is null or e.workspace_id = $2)`,
    [id, workspaceId],
  );
  return rows[0] ?? null;
}

const CHUNK_BYTES = 1 << 20;
/** Rows per cursor fetch: what the export holds at once (see docs/benchmarks.md, issue 14, for the choice). */
export const EXPORT_FETCH_ROWS = 2000;

/** Collects output bytes and stores them as 1 MiB chunks, in order, on the export's transaction. */
class ChunkSink {
  private parts: Buffer[] = [];
  private pending = 0;
  private seq = 0;
  bytes = 0;

  constructor(
    private readonly db: Queryable,
    private readonly exportId: string,
  ) {}

  async write(chunk: Buffer): Promise<void> {
    this.parts.push(chunk);
    this.pending += chunk.length;
    this.bytes += chunk.length;
    if (this.pending >= CHUNK_BYTES) await this.flush();
  }

  async flush(): Promise<void> {
    if (!this.pending) return;
    const data = Buffer.concat(this.parts);
    this.parts = [];
    this.pending = 0;
    await this.db.query('insert into export_chunks (export_id, seq, data) values ($1, $2, $3)', [this.exportId, this.seq++, data]);
  }

  /** A byte stream into this sink (exceljs writes its zip here); backpressure waits for the inserts. */
  stream(): Writable {
    return new Writable({ write: (chunk: Buffer, _enc, done) => void this.write(chunk).then(() => done(), done) });
  }
}

/**
 * Writes the export's file from a cursor over its rows and records size, row count and expiry.
 * `client` must be inside a transaction (the cursor lives in it; so do the chunks).
 */
export async function writeExport(
  client: PoolClient,
  e: { id: string; workspaceId: string; resource: ExportResource; format: ExportFormat; filters: Record<string, unknown>; ttlHours: number },
  progress: (rows: number) => Promise<void>,
  signal?: AbortSignal,
): Promise<{ rows: number; bytes: number }> {
  await client.query('delete from export_chunks where export_id = $1', [e.id]); // a retried attempt starts over
  const def = exportDefinitions[e.resource];
  const names = def.columns.map((c) => c.name);
  const columnsOf = (type: Column['type']) => def.columns.flatMap((c, i) => (c.type === type ? [i] : []));
  const stampColumns = columnsOf('timestamp');
  const textColumns = columnsOf('text');
  const query = exportQuery(e.resource, e.workspaceId, e.filters);
  await client.query(`declare export_rows no scroll cursor for ${query.text}`, query.values);
  const sink = new ChunkSink(client, e.id);
  let rows = 0;
  let xlsx: { book: ExcelJS.stream.xlsx.WorkbookWriter; sheet: ExcelJS.Worksheet; done: Promise<void> } | null = null;
  if (e.format === 'csv') await sink.write(Buffer.from(formatCsvRecord(names)));
  else {
    const out = sink.stream();
    const done = new Promise<void>((resolve, reject) => out.on('finish', resolve).on('error', reject));
    const book = streamingWorkbook(out);
    const sheet = book.addWorksheet(e.resource);
    sheet.addRow(names).commit();
    xlsx = { book, sheet, done };
  }
  for (;;) {
    signal?.throwIfAborted();
    const batch = await client.query({ text: `fetch ${EXPORT_FETCH_ROWS} from export_rows`, rowMode: 'array' });
    const values = batch.rows as Array<Array<string | number | null>>;
    if (xlsx) {
      for (const row of values) {
        for (const i of stampColumns) if (row[i] !== null) (row as unknown[])[i] = new Date(row[i] as string);
        xlsx.sheet.addRow(row).commit();
      }
      // The zip (and the sink behind it) take the rows' XML at their own pace: wait until they have
      // caught up, so that memory holds one batch, not the sheet (lib/xlsxStream.ts).
      await sheetCaughtUp(xlsx.sheet, undefined, signal);
    } else {
      let text = '';
      for (const row of values) {
        for (const i of textColumns) if (row[i] !== null) row[i] = defuse(row[i] as string);
        text += formatCsvRecord(row);
      }
      await sink.write(Buffer.from(text));
    }
    rows += values.length;
    if (values.length < EXPORT_FETCH_ROWS) break;
    await progress(rows);
  }
  await client.query('close export_rows');
  if (xlsx) {
    xlsx.sheet.commit();
    await xlsx.book.commit();
    await xlsx.done;
  }
  await sink.flush();
  await client.query(`update exports set row_count = $2, bytes = $3, finished_at = now(), expires_at = now() + make_interval(hours => $4) where id = $1`, [
    e.id,
    rows,
    sink.bytes,
    e.ttlHours,
  ]);
  return { rows, bytes: sink.bytes };
}

/** The stored chunks of an export, in order, one query per chunk (the file is never held whole). */
export async function* exportChunks(db: Queryable, exportId: string): AsyncGenerator<Buffer> {
  for (let seq = 0; ; seq++) {
    const { rows } = await db.query<{ data: Buffer }>('select data from export_chunks where export_id = $1 and seq = $2', [exportId, seq]);
    if (!rows.length) return;
    yield rows[0].data;
  }
}

/** Exports past their expiry, and unfinished ones older than a week (their job failed), with their chunks. */
export async function purgeExpiredExports(db: Queryable): Promise<number> {
  const { rowCount } = await db.query(`delete from exports where expires_at < now() or (finished_at is null and created_at < now() - interval '7 days')`);
  return rowCount ?? 0;
}
