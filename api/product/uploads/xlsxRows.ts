/**
 * The rows of an XLSX workbook's first worksheet as text, read under limits: the container is checked
 * first (zipLimits.ts: entry count and inflated sizes), then the worksheet is stream-parsed (the
 * reader `svc ingest` uses too, lib/recordFileRows.ts) and reading stops at the first row or cell
 * beyond the caps. Runs inside the upload worker thread (xlsxWorker.ts), never on the HTTP event loop.
 */
import { Readable } from 'node:stream';
import { checkZipLimits, type ZipLimits } from './zipLimits.ts';
import { type FileRowCells, xlsxSheetRows } from '../../../lib/recordFileRows.ts';

export interface XlsxLimits extends ZipLimits {
  /** Rows of the first worksheet, header included. */
  maxRows: number;
  /** Cells of the first worksheet (counted up to each row's last cell). */
  maxCells: number;
}

export const XLSX_LIMITS: XlsxLimits = {
  maxEntries: 1_000,
  maxEntryBytes: 64 * 1024 * 1024,
  maxTotalBytes: 128 * 1024 * 1024,
  maxRows: 100_001,
  maxCells: 1_000_000,
};

export type SheetRow = FileRowCells;

export async function readXlsxRows(data: Buffer, limits: XlsxLimits = XLSX_LIMITS): Promise<SheetRow[]> {
  checkZipLimits(data, limits);
  const rows: SheetRow[] = [];
  let cells = 0;
  let sheets = 0;
  try {
    for await (const row of xlsxSheetRows(Readable.from([data]), () => sheets++)) {
      cells += row.cells.length;
      if (rows.length >= limits.maxRows) throw new LimitError(`The worksheet has more than ${limits.maxRows - 1} data rows.`);
      if (cells > limits.maxCells) throw new LimitError(`The worksheet has more than ${limits.maxCells} cells.`);
      rows.push(row);
    }
  } catch (err) {
    if (err instanceof LimitError) throw err;
    throw new Error(`The file is not a readable XLSX workbook (${(err as Error).message}).`);
  }
  if (!sheets) throw new Error('The workbook has no worksheet.');
  return rows;
}

class LimitError extends Error {}
