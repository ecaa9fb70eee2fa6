/**
 * The upload worker thread's entry: reads the workbook it is given (xlsxRows.ts) and posts back
 * `{ok: true, rows}` or `{ok: false, reason}`. Its heap is capped by the parent (lib/workerThread.ts),
 * so even a file that escapes every check costs this thread, not the HTTP process.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { readXlsxRows, type XlsxLimits } from './xlsxRows.ts';

const { data, limits } = workerData as { data: Uint8Array; limits: XlsxLimits };
try {
  parentPort!.postMessage({ ok: true, rows: await readXlsxRows(Buffer.from(data.buffer, data.byteOffset, data.byteLength), limits) });
} catch (err) {
  parentPort!.postMessage({ ok: false, reason: (err as Error).message });
}
