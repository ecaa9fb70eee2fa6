/**
 * exceljs' streaming workbook writer, with the backpressure it lacks. exceljs 4.4 writes each
 * worksheet's XML into its own StreamBuf, which is no Node stream, so archiver wraps it in a
 * PassThrough (archiver-utils' normalizeInputSource) and exceljs writes every 64 KiB of XML into that
 * PassThrough without looking at write()'s answer. Nothing slows the rows down when deflate, or the
 * destination behind it, is slower than the code adding rows: everything not yet zipped waits in
 * that PassThrough, up to the whole sheet. (The StreamBuf's own `buffers`, which an earlier version
 * watched, never hold more than the 64 KiB being filled: batch mode hands each full one on at once.)
 *
 * So a writer adds a batch of rows, then awaits `sheetCaughtUp` before it reads the next batch: the
 * sheet's backlog is bounded by one batch plus MAX_SHEET_BACKLOG_BYTES, and a destination that stops
 * reading stops the zip, which fills the backlog, which stops the rows.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import ExcelJS from 'exceljs';

/** How far a sheet's XML may run ahead of the zip before the writer waits for it. */
export const MAX_SHEET_BACKLOG_BYTES = 1024 * 1024;

/** A workbook streamed into `destination`: no shared-strings table and no style table (both grow with the rows). */
export function streamingWorkbook(destination: Writable): ExcelJS.stream.xlsx.WorkbookWriter {
  return new ExcelJS.stream.xlsx.WorkbookWriter({ stream: destination, useStyles: false, useSharedStrings: false });
}

type SheetPipe = NodeJS.EventEmitter & { _writableState: { length: number } };

/**
 * The PassThrough between a worksheet and the zip. Throws if exceljs or archiver no longer look like
 * this: an export must fail loudly rather than silently buffer whole sheets again.
 */
function sheetPipe(worksheet: ExcelJS.Worksheet): SheetPipe {
  const pipe = (worksheet as unknown as { stream?: { pipes?: unknown[] } }).stream?.pipes?.[0] as Partial<SheetPipe> | undefined;
  if (typeof pipe?._writableState?.length !== 'number' || typeof pipe.once !== 'function') {
    throw new Error('exceljs internals changed: a streamed worksheet is no longer piped into a Node stream, so its backlog cannot be bounded');
  }
  return pipe as SheetPipe;
}

/** Bytes of the worksheet's XML written but not yet taken by the zip. */
export const sheetBacklogBytes = (worksheet: ExcelJS.Worksheet) => sheetPipe(worksheet)._writableState.length;

/**
 * Resolves once the zip has caught up with the worksheet (its backlog at most
 * MAX_SHEET_BACKLOG_BYTES) and `destination`, if given, can take more; rejects when `signal` aborts.
 */
export async function sheetCaughtUp(worksheet: ExcelJS.Worksheet, destination?: Writable, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  const pipe = sheetPipe(worksheet);
  // 'drain' comes when the PassThrough's buffer is empty again (it is over its high-water mark here).
  while (pipe._writableState.length > MAX_SHEET_BACKLOG_BYTES) await once(pipe, 'drain', { signal });
  if (destination?.writableNeedDrain) await once(destination, 'drain', { signal });
}
