/**
 * An uploaded file of historical records: CSV (RFC 4180) or XLSX (the first worksheet), a header row
 * naming the CONTRACT's columns `external_id, title, narrative, occurred_at, severity, source`
 * (`body` is accepted for narrative, as on /v1), one record per row. Every row is checked with the
 * one ingest record contract (domain/ingestRecord.ts), so both surfaces accept exactly the same record. A file that
 * cannot be read gives a failure with a readable reason (line or row, and column), never an
 * exception. Rows come from the reader `svc ingest` uses too (lib/recordFileRows.ts); workbooks are
 * parsed in a worker thread under size, row and cell caps (xlsxRows.ts).
 */
import { CsvError } from '../../../lib/csv.ts';
import { csvRows as csvTextRows, type FileRowCells, hasContent, headerColumns, RECORD_FILE_COLUMNS } from '../../../lib/recordFileRows.ts';
import { createWorkerPool } from '../../../lib/workerThread.ts';
import { XLSX_LIMITS } from './xlsxRows.ts';
import { validateIngestRecord } from '../../../domain/ingestRecord.ts';
import type { Severity } from '../../../domain/severity.ts';
import { moduleUrl } from '../../../lib/modulePath.ts';

export type RecordFileFormat = 'csv' | 'xlsx';

/** One record as a dataset stores it. */
export interface DatasetRecord {
  external_id: string;
  title: string;
  narrative: string | null;
  occurred_at: string | null;
  severity: Severity;
  source: string;
}

export type ParsedRecordFile =
  | { ok: true; format: RecordFileFormat; records: DatasetRecord[]; rows: number; duplicates: number; ignored_columns: string[] }
  | { ok: false; format: RecordFileFormat | null; reason: string };

const REQUIRED_COLUMNS = ['external_id', 'title', 'source'];
/** Row problems listed in a failure reason before the rest are only counted. */
const REASONS_SHOWN = 5;

type Row = FileRowCells;

const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

function formatOf(filename: string, data: Buffer): RecordFileFormat | null {
  const extension = /\.([A-Za-z0-9]+)$/.exec(filename)?.[1]?.toLowerCase();
  if (extension === 'xlsx' || data.subarray(0, 4).equals(ZIP_MAGIC)) return 'xlsx';
  if (extension === 'csv' || extension === 'txt' || extension === undefined) return 'csv';
  return null;
}

export async function parseRecordFile(filename: string, data: Buffer): Promise<ParsedRecordFile> {
  const format = formatOf(filename, data);
  if (!format) return { ok: false, format, reason: `Unsupported file type '${filename}': upload a .csv or .xlsx file.` };
  let rows: Row[];
  try {
    rows = format === 'csv' ? csvRows(data) : await xlsxRows(data);
  } catch (err) {
    return { ok: false, format, reason: (err as Error).message };
  }
  rows = rows.filter(hasContent);
  if (!rows.length)
    return {
      ok: false,
      format,
      reason: 'The file is empty: expected a header row naming the columns external_id, title, source (and optionally narrative, occurred_at, severity).',
    };
  return recordsOf(format, rows[0], rows.slice(1));
}

function csvRows(data: Buffer): Row[] {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    throw new Error('The file is not UTF-8 text: save the CSV as UTF-8, or upload it as .xlsx.');
  }
  try {
    return csvTextRows(text);
  } catch (err) {
    if (err instanceof CsvError) throw new Error(`Malformed CSV at ${err.message}.`);
    throw err;
  }
}

/** Two workbooks are parsed at a time per process, each in its own thread with a capped heap. */
const workbookThreads = createWorkerPool(2);
const WORKBOOK_THREAD_LIMITS = { maxHeapMb: 512, timeoutMs: 120_000 };

/** The first worksheet's rows, read under XLSX_LIMITS in a worker thread (xlsxWorker.ts). */
async function xlsxRows(data: Buffer): Promise<Row[]> {
  const copy = new Uint8Array(data);
  let answer: { ok: true; rows: Row[] } | { ok: false; reason: string };
  try {
    answer = await workbookThreads.run(moduleUrl('./xlsxWorker', import.meta.url), { data: copy, limits: XLSX_LIMITS }, WORKBOOK_THREAD_LIMITS, [copy.buffer]);
  } catch (err) {
    throw new Error(`The workbook could not be read within the server's limits (${(err as Error).message}).`);
  }
  if (!answer.ok) throw new Error(answer.reason);
  return answer.rows;
}

function recordsOf(format: RecordFileFormat, header: Row, body: Row[]): ParsedRecordFile {
  const names = header.cells.map((c) => c.trim().toLowerCase());
  const { columns, duplicate, present } = headerColumns(header.cells);
  if (duplicate) return { ok: false, format, reason: `The header (${header.where}) names column '${duplicate}' twice.` };
  const missing = REQUIRED_COLUMNS.filter((c) => !present.has(c));
  if (missing.length) {
    return {
      ok: false,
      format,
      reason: `The header (${header.where}) lacks the required column${missing.length > 1 ? 's' : ''} ${missing.map((m) => `'${m}'`).join(', ')}; columns are external_id, title, narrative, occurred_at, severity, source.`,
    };
  }
  if (!body.length) return { ok: false, format, reason: 'The file has a header row but no records below it.' };
  const ignored = [...new Set(names.filter((n) => n && !RECORD_FILE_COLUMNS.includes(n)))];

  const problems: string[] = [];
  const byKey = new Map<string, DatasetRecord>();
  for (const row of body) {
    const raw: Record<string, string> = {};
    for (const [i, name] of columns) {
      const value = row.cells[i]?.trim();
      if (value) raw[name] = value;
    }
    if (row.cells.length > names.length && row.cells.slice(names.length).some((c) => c.trim())) {
      problems.push(`${row.where}: more values than the header has columns`);
      continue;
    }
    const checked = validateIngestRecord(raw);
    if (!checked.ok) {
      for (const error of checked.errors) problems.push(`${row.where}, column '${error.field}': ${error.message}`);
      continue;
    }
    const input = checked.input;
    const record: DatasetRecord = {
      external_id: input.external_id!,
      title: input.title,
      narrative: input.narrative,
      occurred_at: input.occurred_at?.toISOString() ?? null,
      severity: input.severity,
      source: input.source,
    };
    // The same (source, external_id) twice in one file: the later row wins, as a later ingest would.
    byKey.set(`${record.source}\u0000${record.external_id}`, record);
  }
  if (problems.length) {
    const shown = problems.slice(0, REASONS_SHOWN).join('; ');
    const more = problems.length > REASONS_SHOWN ? ` (and ${problems.length - REASONS_SHOWN} more problems)` : '';
    return { ok: false, format, reason: `Invalid records: ${shown}${more}.` };
  }
  return { ok: true, format, records: [...byKey.values()], rows: body.length, duplicates: body.length - byKey.size, ignored_columns: ignored };
}
