/**
 * scripts/recordFiles.ts reads workbook cells as the upload path does (lib/recordFileRows.ts): a formula
 * error cell is its code, as a person sees it, not an empty cell (the CLI's copy once lacked that branch).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readXlsxRows } from '../../api/product/uploads/xlsxRows.ts';
import { openRecordFile } from '../../scripts/recordFiles.ts';

test('an error cell reads as its code in the CLI and in uploads alike', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-recordfiles-'));
  try {
    const file = path.join(dir, 'records.xlsx');
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('records');
    sheet.addRow(['external_id', 'title', 'narrative', 'source']);
    sheet.addRow(['E-1', 'Disk full', { error: '#DIV/0!' }, 'ops']);
    await workbook.xlsx.writeFile(file);

    const rows = [];
    for await (const row of openRecordFile(file).rows()) rows.push(row);
    assert.equal(rows.length, 1);
    assert.equal(rows[0].record, { external_id: 'E-1', title: 'Disk full', narrative: '#DIV/0!', source: 'ops' });

    const uploaded = await readXlsxRows(Buffer.from(await workbook.xlsx.writeBuffer()));
    assert.equal(uploaded[1].cells, ['E-1', 'Disk full', '#DIV/0!', 'ops']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
