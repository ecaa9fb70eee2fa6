import { randomBytes } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import ExcelJS from 'exceljs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_SHEET_BACKLOG_BYTES, sheetBacklogBytes, sheetCaughtUp, streamingWorkbook } from '../../lib/xlsxStream.ts';

const BATCHES = 40;
const BATCH_ROWS = 500;

/** A destination that takes nothing until released (its write callbacks are held back). */
function stalledDestination() {
  const chunks: Buffer[] = [];
  const held: Array<() => void> = [];
  let stalled = true;
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk);
      if (stalled) held.push(() => done());
      else done();
    },
  });
  return {
    stream,
    chunks,
    release() {
      stalled = false;
      for (const done of held.splice(0)) done();
    },
  };
}

test('a writer waiting on sheetCaughtUp stops while the destination stalls, holds a bounded backlog, and the file is whole', async () => {
  const destination = stalledDestination();
  const workbook = streamingWorkbook(destination.stream);
  const sheet = workbook.addWorksheet('rows');
  sheet.addRow(['n', 'text']).commit();
  let added = 0;
  let batchBytes = 0;
  let largestBacklog = 0;
  const texts: string[] = [];
  const writer = (async () => {
    for (let b = 0; b < BATCHES; b++) {
      const before = sheetBacklogBytes(sheet);
      for (let i = 0; i < BATCH_ROWS; i++) {
        // Random hex: deflate cannot shrink it much, so the zip's output is as large as a real sheet's.
        const text = randomBytes(100).toString('hex');
        texts.push(text);
        sheet.addRow([added++, text]).commit();
      }
      batchBytes = Math.max(batchBytes, sheetBacklogBytes(sheet) - before);
      largestBacklog = Math.max(largestBacklog, sheetBacklogBytes(sheet));
      await sheetCaughtUp(sheet, destination.stream);
    }
    sheet.commit();
    await workbook.commit();
  })();

  // The destination takes nothing: the writer must come to a stop long before the last batch.
  await sleep(400);
  const stoppedAt = added;
  await sleep(400);
  assert.is(added, stoppedAt, 'the writer stopped while the destination stalled');
  assert.ok(added < (BATCHES / 2) * BATCH_ROWS, `stopped after ${added} rows, not ${BATCHES * BATCH_ROWS}`);
  assert.ok(largestBacklog <= MAX_SHEET_BACKLOG_BYTES + batchBytes + 65_536, `backlog ${largestBacklog} bytes`);

  destination.release();
  await writer;
  assert.is(added, BATCHES * BATCH_ROWS);
  assert.ok(largestBacklog <= MAX_SHEET_BACKLOG_BYTES + batchBytes + 65_536, `backlog ${largestBacklog} bytes`);

  // Row for row, read back with exceljs' reader.
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from([Buffer.concat(destination.chunks)]), { worksheets: 'emit' });
  let rows = 0;
  for await (const ws of reader) {
    for await (const row of ws) {
      const values = (row as ExcelJS.Row).values as unknown[];
      if (rows === 0) assert.equal(values.slice(1), ['n', 'text']);
      else assert.equal(values.slice(1), [rows - 1, texts[rows - 1]]);
      rows++;
    }
  }
  assert.is(rows, BATCHES * BATCH_ROWS + 1);
});

test('an aborted signal rejects the wait', async () => {
  const destination = stalledDestination();
  const workbook = streamingWorkbook(destination.stream);
  const sheet = workbook.addWorksheet('rows');
  for (let i = 0; i < 20_000; i++) sheet.addRow([i, randomBytes(50).toString('hex')]).commit();
  const abort = new AbortController();
  const wait = sheetCaughtUp(sheet, destination.stream, abort.signal);
  abort.abort(new Error('the reader went away'));
  try {
    await wait;
    assert.unreachable('the wait should reject');
  } catch (err) {
    assert.match(String(err), /abort|reader went away/i);
  }
});

test.run();
