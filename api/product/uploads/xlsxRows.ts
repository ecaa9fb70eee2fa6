/**
 * The rows of an XLSX workbook's first worksheet as text, read under limits: the container is checked
 * first (zipLimits.ts: entry count and inflated sizes), then the worksheet is stream-parsed (exceljs'
 * WorkbookReader) and reading stops at the first row or cell beyond the caps. Runs inside the upload
 * worker thread (xlsxWorker.ts), never on the HTTP event loop.
 */
import { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { checkZipLimits, type ZipLimits } from './zipLimits.ts';
import { cellText } from '../../../lib/xlsxCellText.ts';

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

export interface SheetRow {
  /** "row 3": where the user finds it in their file. */
  where: string;
  cells: string[];
}

export async function readXlsxRows(data: Buffer, limits: XlsxLimits = XLSX_LIMITS): Promise<SheetRow[]> {
  checkZipLimits(data, limits);
  // Styles are read so that date-formatted cells come back as dates.
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from([data]), {
    worksheets: 'emit',
    sharedStrings: 'cache',
    styles: 'cache',
    hyperlinks: 'ignore',
    entries: 'ignore',
  });
  const rows: SheetRow[] = [];
  let cells = 0;
  try {
    for await (const sheet of reader) {
      for await (const row of sheet) {
        const values = row.values as ExcelJS.CellValue[];
        cells += Math.max(0, values.length - 1);
        if (rows.length >= limits.maxRows) throw new LimitError(`The worksheet has more than ${limits.maxRows - 1} data rows.`);
        if (cells > limits.maxCells) throw new LimitError(`The worksheet has more than ${limits.maxCells} cells.`);
        const texts: string[] = [];
        for (let c = 1; c < values.length; c++) texts.push(cellText(values[c]));
        rows.push({ where: `row ${row.number}`, cells: texts });
      }
      return rows; // the first worksheet only
    }
  } catch (err) {
    if (err instanceof LimitError) throw err;
    throw new Error(`The file is not a readable XLSX workbook (${(err as Error).message}).`);
  }
  throw new Error('The workbook has no worksheet.');
}

class LimitError extends Error {}
