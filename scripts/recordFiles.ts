/**
 * Reading ingest records from files for `svc ingest`: CSV (RFC 4180, header row), JSON Lines (one
 * record object per line) and XLSX (the first worksheet, header row, read as a stream); the rows of
 * CSV and XLSX come from the reader the uploads use too (lib/recordFileRows.ts). Each row
 * becomes a plain object of the record's columns (`external_id, title, narrative, occurred_at,
 * severity, source`; `body` as on /v1); other columns are ignored and empty cells are left out, so the
 * ingest record schema judges every row exactly as the API judges a record.
 */
import { accessSync, constants, createReadStream, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { CsvError } from '../lib/csv.ts';
import { csvRows, type FileRowCells, hasContent, headerColumns as recordColumns, xlsxSheetRows } from '../lib/recordFileRows.ts';

export type RecordFileFormat = 'csv' | 'jsonl' | 'xlsx';

export interface FileRow {
  /** 0-based index of the row among the file's records (resuming skips this many). */
  index: number;
  /** Where a person finds it: "line 12" or "row 12". */
  where: string;
  /** The record object, or why the row could not be read as one. */
  record: Record<string, unknown> | { unreadable: string };
}

export interface RecordFile {
  format: RecordFileFormat;
  /** Number of records when known before reading (CSV, JSONL). */
  total: number | null;
  /** Share of the file read so far (bytes for XLSX, records otherwise). */
  fraction(): number;
  rows(): AsyncGenerator<FileRow>;
}

export class RecordFileError extends Error {
  override name = 'RecordFileError';
}

function formatOfFile(file: string): RecordFileFormat {
  const extension = path.extname(file).toLowerCase();
  if (extension === '.csv') return 'csv';
  if (extension === '.jsonl' || extension === '.ndjson') return 'jsonl';
  if (extension === '.xlsx') return 'xlsx';
  throw new RecordFileError(`${file}: unsupported file type '${extension || '(none)'}' (use .csv, .jsonl or .xlsx)`);
}

/** The file's format, after checking that it can be read (so that a typo fails before any work). */
export function checkRecordFile(file: string): RecordFileFormat {
  const format = formatOfFile(file);
  try {
    accessSync(file, constants.R_OK);
  } catch (err) {
    throw new RecordFileError(`${file}: cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  return format;
}

export function openRecordFile(file: string): RecordFile {
  const format = formatOfFile(file);
  if (format === 'xlsx') return xlsxFile(file);
  const text = readText(file);
  return format === 'csv' ? csvFile(file, text) : jsonlFile(text);
}

function readText(file: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(readFileSync(file));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code) throw new RecordFileError(`${file}: ${(err as Error).message}`);
    throw new RecordFileError(`${file}: not UTF-8 text`);
  }
}

/** Maps a header row to the record's column names: index → name for the columns we know. */
function headerColumns(file: string, where: string, cells: string[]): Map<number, string> {
  const { columns, duplicate, present } = recordColumns(cells);
  if (duplicate) throw new RecordFileError(`${file}: the header (${where}) names column '${duplicate}' twice`);
  const missing = ['external_id', 'title'].filter((c) => !present.has(c));
  if (missing.length)
    throw new RecordFileError(
      `${file}: the header (${where}) lacks ${missing.map((m) => `'${m}'`).join(' and ')}; columns are external_id, title, narrative, occurred_at, severity, source`,
    );
  return columns;
}

function recordOf(columns: Map<number, string>, cells: string[]): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const [i, name] of columns) {
    const value = cells[i];
    if (value !== undefined && value.trim() !== '') record[name] = value;
  }
  return record;
}

function csvFile(file: string, text: string): RecordFile {
  let parsed: FileRowCells[];
  try {
    parsed = csvRows(text).filter(hasContent);
  } catch (err) {
    if (err instanceof CsvError) throw new RecordFileError(`${file}: malformed CSV at ${err.message}`);
    throw err;
  }
  if (!parsed.length) throw new RecordFileError(`${file}: the file is empty (expected a header row)`);
  const columns = headerColumns(file, parsed[0].where, parsed[0].cells);
  const body = parsed.slice(1);
  let read = 0;
  return {
    format: 'csv',
    total: body.length,
    fraction: () => (body.length ? read / body.length : 1),
    async *rows() {
      for (const [index, row] of body.entries()) {
        read = index + 1;
        yield { index, where: row.where, record: recordOf(columns, row.cells) };
      }
    },
  };
}

function jsonlFile(text: string): RecordFile {
  const lines = text
    .split(/\r?\n/)
    .map((line, i) => ({ line, number: i + 1 }))
    .filter((l) => l.line.trim() !== '');
  let read = 0;
  return {
    format: 'jsonl',
    total: lines.length,
    fraction: () => (lines.length ? read / lines.length : 1),
    async *rows() {
      for (const [index, { line, number }] of lines.entries()) {
        read = index + 1;
        let record: FileRow['record'];
        try {
          const value: unknown = JSON.parse(line);
          record = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { unreadable: 'must be a JSON object' };
        } catch (err) {
          record = { unreadable: `not valid JSON (${(err as Error).message})` };
        }
        yield { index, where: `line ${number}`, record };
      }
    },
  };
}

function xlsxFile(file: string): RecordFile {
  let size: number;
  try {
    size = statSync(file).size;
  } catch (err) {
    throw new RecordFileError(`${file}: ${(err as Error).message}`);
  }
  const stream = createReadStream(file);
  return {
    format: 'xlsx',
    total: null,
    fraction: () => (size ? stream.bytesRead / size : 1),
    async *rows() {
      let columns: Map<number, string> | null = null;
      let index = 0;
      try {
        for await (const row of xlsxSheetRows(stream)) {
          if (!hasContent(row)) continue;
          if (!columns) {
            columns = headerColumns(file, row.where, row.cells);
            continue;
          }
          yield { index: index++, where: row.where, record: recordOf(columns, row.cells) };
        }
      } catch (err) {
        if (err instanceof RecordFileError) throw err;
        throw new RecordFileError(`${file}: not a readable XLSX workbook (${(err as Error).message})`);
      } finally {
        stream.destroy();
      }
      if (!columns) throw new RecordFileError(`${file}: the workbook is empty (expected a header row)`);
    },
  };
}
