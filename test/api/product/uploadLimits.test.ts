/**
 * XLSX uploads are read under limits, off the HTTP event loop (issue 18): a zip bomb (a small file
 * whose worksheet inflates beyond the per-part cap), a worksheet with too many rows or cells, and a
 * container whose entries do not match its directory are failed uploads with a readable reason; the
 * process keeps serving while and after they are read, and a normal workbook still parses.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { XLSX_LIMITS } from '../../../api/product/uploads/xlsxRows.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { recordsXlsx, uploadFile } from '../../helpers/onboarding.ts';
import { createTenant, provisionTenant, staffLogin, type ProductClient } from '../../helpers/product.ts';

let t: TestApp;
let admin: ProductClient;
let tenantId: string;
const upload = (name: string, content: Buffer) => uploadFile(admin, `/admin/tenants/${tenantId}/ingest/upload`, name, content);

test.before(async () => {
  t = await startTestApp({ worker: true });
  admin = await staffLogin(t);
  tenantId = (await createTenant(admin)).id;
  await provisionTenant(t, admin, tenantId);
});
test.after(async () => t.close());

/** A workbook from exceljs whose first worksheet's XML is replaced by `sheetXml`. */
async function workbookWithSheet(sheetXml: string): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  workbook.addWorksheet('records').addRow(['external_id', 'title', 'source']);
  const zip = await JSZip.loadAsync(Buffer.from(await workbook.xlsx.writeBuffer()));
  zip.file('xl/worksheets/sheet1.xml', sheetXml);
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE', compressionOptions: { level: 9 } });
}
const sheet = (rows: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${rows}</sheetData></worksheet>`;
const column = (i: number): string => (i < 26 ? String.fromCharCode(65 + i) : column(Math.floor(i / 26) - 1) + column(i % 26));
const row = (n: number, cells: number) => `<row r="${n}">${Array.from({ length: cells }, (_, c) => `<c r="${column(c)}${n}"><v>1</v></c>`).join('')}</row>`;

test('a zip bomb is a failed upload naming the per-part cap, and the server keeps answering', async () => {
  // ~70 MB of worksheet XML that deflates to well under 1 MB.
  const bomb = await workbookWithSheet(sheet(row(1, 1) + `<row r="2"><c r="A2" t="inlineStr"><is><t>${'A'.repeat(70 * 1024 * 1024)}</t></is></c></row>`));
  assert.ok(bomb.length < 1024 * 1024, `bomb is ${bomb.length} bytes`);
  const [res, health] = await Promise.all([upload('bomb.xlsx', bomb), admin.get('/admin/me')]);
  assert.is(health.status, 200);
  assert.is(res.status, 201, res.text);
  assert.is(res.body.status, 'failed');
  assert.is(res.body.error_detail, `The workbook's part 'xl/worksheets/sheet1.xml' is larger than ${XLSX_LIMITS.maxEntryBytes / 1024 / 1024} MB uncompressed.`);
});

test('too many rows or cells is a failed upload with a readable reason', async () => {
  const rows = Array.from({ length: XLSX_LIMITS.maxRows + 1 }, (_, i) => row(i + 1, 1)).join('');
  const tall = await upload('tall.xlsx', await workbookWithSheet(sheet(rows)));
  assert.is(tall.body.status, 'failed');
  assert.is(tall.body.error_detail, `The worksheet has more than ${XLSX_LIMITS.maxRows - 1} data rows.`);

  const perRow = 50;
  const wideRows = Array.from({ length: XLSX_LIMITS.maxCells / perRow + 1 }, (_, i) => row(i + 1, perRow)).join('');
  const wide = await upload('wide.xlsx', await workbookWithSheet(sheet(wideRows)));
  assert.is(wide.body.status, 'failed');
  assert.is(wide.body.error_detail, `The worksheet has more than ${XLSX_LIMITS.maxCells} cells.`);
});

test('a container with data its directory does not list is refused', async () => {
  const good = await recordsXlsx([{ external_id: 'A-1', title: 't', source: 's' }]);
  const smuggled = Buffer.concat([Buffer.from('PK\x03\x04hidden entry'), good]);
  const res = await upload('smuggled.xlsx', smuggled);
  assert.is(res.body.status, 'failed');
  assert.match(res.body.error_detail, /^The file is not a readable XLSX workbook \(/);
});

test('a normal workbook still parses, dates included', async () => {
  const res = await upload(
    'ok.xlsx',
    await recordsXlsx([{ external_id: 'A-1', title: 'Pump', source: 'cmms', occurred_at: '2024-05-01T08:00:00Z', severity: 'high', narrative: 'n' }]),
  );
  assert.is(res.body.status, 'uploaded', res.body.error_detail);
  assert.is(res.body.row_count, 1);
});

test.run();
