/**
 * The one reader of record files' rows, shared by `svc ingest` (scripts/recordFiles.ts) and the
 * product surface's uploads (api/product/uploads/recordFile.ts): CSV (RFC 4180) and XLSX (the first
 * worksheet, stream-parsed) as rows of cell texts, and the header row mapped to the record's columns.
 * Each caller words its own errors and decides which columns it requires; the record itself is judged
 * by domain/ingestRecord.ts.
 */
import type { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { parseCsv } from './csv.ts';

/** The columns a record file may carry: the ingest record's fields, and `body` for narrative as on /v1. */
export const RECORD_FILE_COLUMNS: readonly string[] = ['external_id', 'title', 'narrative', 'body', 'occurred_at', 'severity', 'source'];

export interface FileRowCells {
  /** "line 3" (CSV) or "row 3" (XLSX): where a person finds it in the file. */
  where: string;
  cells: string[];
}

/** The text a person sees in a workbook cell: dates as ISO 8601, formulas by their result, errors by their code (`#DIV/0!`). */
export function cellText(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString();
  if (typeof value !== 'object') return String(value);
  if ('richText' in value) return value.richText.map((r) => r.text).join('');
  if ('text' in value && typeof value.text === 'string') return value.text;
  if ('result' in value) return cellText(value.result as ExcelJS.CellValue);
  if ('error' in value) return String(value.error);
  return '';
}

/** A CSV text's rows, `line N` each (throws lib/csv.ts's CsvError when malformed). */
export function csvRows(text: string): FileRowCells[] {
  return parseCsv(text).map((r) => ({ where: `line ${r.line}`, cells: r.fields }));
}

/**
 * The rows of a workbook's first worksheet, read as a stream (styles are read so that date-formatted
 * cells come back as dates). `onSheet` is called when the first worksheet begins (a workbook without
 * one yields nothing and never calls it); a stream that is not a workbook throws exceljs' error.
 */
export async function* xlsxSheetRows(input: Readable, onSheet?: () => void): AsyncGenerator<FileRowCells> {
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(input, {
    worksheets: 'emit',
    sharedStrings: 'cache',
    styles: 'cache',
    hyperlinks: 'ignore',
    entries: 'ignore',
  });
  for await (const sheet of reader) {
    onSheet?.();
    for await (const row of sheet as AsyncIterable<ExcelJS.Row>) {
      const values = row.values as ExcelJS.CellValue[];
      const cells: string[] = [];
      for (let c = 1; c < values.length; c++) cells.push(cellText(values[c]));
      yield { where: `row ${row.number}`, cells };
    }
    return; // the first worksheet only
  }
}

/** Whether a row has any cell that is not blank (blank rows are skipped by both readers). */
export const hasContent = (row: FileRowCells) => row.cells.some((c) => c.trim() !== '');

/**
 * A header row's record columns: cell index → column name (lower-cased, trimmed) for the columns of
 * RECORD_FILE_COLUMNS; `duplicate` is the first of them named twice; `present` every name the header has.
 */
export function headerColumns(cells: string[]): { columns: Map<number, string>; duplicate: string | null; present: Set<string> } {
  const columns = new Map<number, string>();
  const present = new Set<string>();
  let duplicate: string | null = null;
  cells.forEach((cell, i) => {
    const name = cell.trim().toLowerCase();
    if (RECORD_FILE_COLUMNS.includes(name)) {
      if (present.has(name)) duplicate ??= name;
      else columns.set(i, name);
    }
    present.add(name);
  });
  return { columns, duplicate, present };
}
