/**
 * GET /remediation/export.xlsx: the attachment headers, the workbook read back with exceljs' reader
 * row for row against what the JSON routes answer, the same file opened by LibreOffice headless
 * (a real spreadsheet program; skipped with a message when soffice is missing outside CI), and a
 * reader that disconnects mid-download killing the export process, which releases the cursor's
 * transaction and its connection.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import ExcelJS from 'exceljs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { activeExportProcesses } from '../../../lib/exportProcess.ts';
import { findTenant } from '../../../sql/tenants.ts';
import { withTenant } from '../../../sql/tenant/schema.ts';
import { eventually, startTestApp, type TestApp } from '../../helpers/app.ts';
import { createTenantUser, liveTenant, staffLogin, tenantLogin, type ProductClient } from '../../helpers/product.ts';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const run = promisify(execFile);

let t: TestApp;
let slug: string;
let schema: string;
let admin: ProductClient;

test.before(async () => {
  t = await startTestApp({ worker: true });
  const staff = await staffLogin(t);
  const { tenant, user } = await liveTenant(t, staff, { roleProfile: 'admin' });
  slug = tenant.slug;
  schema = (await findTenant(t.app.pool, tenant.id))!.schema_name;
  admin = await tenantLogin(t, slug, user.email, user.password);
  await createTenantUser(t, tenant.id, { roleProfile: 'viewer' });
});
test.after(async () => t.close());

async function download(): Promise<{ status: number; headers: Headers; body: Buffer }> {
  const cookie = [...admin.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const res = await fetch(`${t.product.base}/remediation/export.xlsx`, { headers: { cookie } });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

const CAP_COLUMNS = [
  'id',
  'version',
  'status',
  'title',
  'problem_statement',
  'target_type',
  'target_id',
  'owner_user_id',
  'due_date',
  'created_by',
  'created_at',
  'updated_at',
];
const REVIEW_COLUMNS = [
  'id',
  'cap_id',
  'cap_version',
  'target_type',
  'target_id',
  'decision',
  'comment',
  'requested_by',
  'decided_by',
  'created_at',
  'decided_at',
];
const AUDIT_COLUMNS = ['id', 'occurred_at', 'action', 'actor_type', 'actor_id', 'resource_type', 'resource_id', 'client_ip', 'trace_id', 'metadata'];

function sheetRows(workbook: ExcelJS.Workbook, name: string, width: number): unknown[][] {
  const sheet = workbook.getWorksheet(name);
  assert.ok(sheet, `sheet ${name}`);
  const rows: unknown[][] = [];
  sheet.eachRow({ includeEmpty: true }, (row) => rows.push(Array.from({ length: width }, (_, i) => row.getCell(i + 1).value ?? null)));
  return rows;
}

const pick = (item: Record<string, unknown>, columns: string[]) => columns.map((c) => item[c] ?? null);

test('the export: attachment headers, and every sheet read back row for row', async () => {
  const caps = [
    { target_type: 'other', target_id: 'line-1', title: 'Seal leaks', problem_statement: 'Seals fail at 200 h — «ÜBER» 漏れ', due_date: '2027-02-01' },
    { target_type: 'other', target_id: 'line-2', title: '=1+1 stays text', problem_statement: 'A, "quoted"; multi\nline' },
    { target_type: 'other', target_id: 'line-3', title: 'Third' },
  ];
  const created = [];
  for (const body of caps) created.push((await admin.post('/remediation/caps', body)).body);
  await admin.patch(`/remediation/caps/${created[0].id}`, { expected_version: 1, status: 'submitted' });
  await admin.patch(`/remediation/caps/${created[1].id}`, { expected_version: 1, status: 'submitted' });
  const [review] = (await admin.get('/remediation/reviews?target_id=line-1')).body;
  await admin.patch(`/remediation/reviews/${review.id}`, { decision: 'approved', comment: 'ok' });

  const res = await download();
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), XLSX);
  assert.is(res.headers.get('content-disposition'), `attachment; filename="remediation-${slug}-${new Date().toISOString().slice(0, 10)}.xlsx"`);

  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(res.body as unknown as ArrayBuffer);
  assert.equal(
    workbook.worksheets.map((w) => w.name),
    ['CAPs', 'Reviews', 'Audit log'],
  );

  const capsJson = (await admin.get('/remediation/caps')).body.reverse();
  assert.equal(sheetRows(workbook, 'CAPs', CAP_COLUMNS.length), [CAP_COLUMNS, ...capsJson.map((c: Record<string, unknown>) => pick(c, CAP_COLUMNS))]);
  const reviewsJson = (await admin.get('/remediation/reviews')).body.reverse();
  assert.is(reviewsJson.length, 2);
  assert.equal(sheetRows(workbook, 'Reviews', REVIEW_COLUMNS.length), [
    REVIEW_COLUMNS,
    ...reviewsJson.map((r: Record<string, unknown>) => pick(r, REVIEW_COLUMNS)),
  ]);
  const auditJson = (await admin.get('/remediation/audit-log?limit=200')).body.reverse();
  assert.ok(auditJson.length > 8 && auditJson.length < 200);
  assert.equal(sheetRows(workbook, 'Audit log', AUDIT_COLUMNS.length), [
    AUDIT_COLUMNS,
    ...auditJson.map((a: Record<string, unknown>) => pick({ ...a, metadata: JSON.stringify(a.metadata) }, AUDIT_COLUMNS)),
  ]);
});

test('LibreOffice headless opens the workbook (every sheet converted to CSV)', async () => {
  const soffice = await run('sh', ['-c', 'command -v soffice']).then(
    (r) => r.stdout.trim(),
    () => null,
  );
  if (!soffice) {
    if (process.env.CI === 'true') assert.unreachable('soffice is missing in CI: .ci/run installs libreoffice-calc');
    console.log('    skipped: soffice (LibreOffice) is not installed here; CI installs it and runs this check');
    return;
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'svc-lo-'));
  try {
    const res = await download();
    await writeFile(path.join(dir, 'export.xlsx'), res.body);
    // Separator 44 (,), quote 34 ("), UTF-8, and -1 as the last token: one CSV per sheet (LibreOffice 7.2+).
    const filter = 'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,-1';
    await run(soffice, [`-env:UserInstallation=file://${dir}/profile`, '--headless', '--convert-to', filter, '--outdir', dir, path.join(dir, 'export.xlsx')], {
      timeout: 120_000,
    });
    const files = (await readdir(dir)).filter((f) => f.endsWith('.csv')).sort();
    assert.equal(files, ['export-Audit log.csv', 'export-CAPs.csv', 'export-Reviews.csv']);
    const capsCsv = await readFile(path.join(dir, 'export-CAPs.csv'), 'utf8');
    const lines = capsCsv.trim().split('\n');
    assert.is(lines[0], CAP_COLUMNS.join(','));
    assert.ok(capsCsv.includes('Seals fail at 200 h — «ÜBER» 漏れ'), 'UTF-8 text survives');
    assert.ok(capsCsv.includes(',=1+1 stays text,'), 'a leading = is text, never a formula');
    const caps = (await admin.get('/remediation/caps')).body;
    for (const cap of caps) assert.ok(capsCsv.includes(cap.id), cap.id);
    const auditCsv = await readFile(path.join(dir, 'export-Audit log.csv'), 'utf8');
    const auditCount = (await admin.get('/remediation/audit-log?limit=200')).body.length;
    assert.is(auditCsv.trim().split('\n').length, auditCount + 1);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

const exportBackends = async () =>
  (
    await t.app.pool.query<{ application_name: string; state: string; stalled: boolean }>(
      `select application_name, state, state = 'idle in transaction' and clock_timestamp() - state_change > interval '2 seconds' as stalled
         from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and query like 'fetch forward % from export_%'`,
    )
  ).rows;

test('a reader that disconnects mid-download releases the cursor, its transaction and the connection', async () => {
  // Barely compressible rows, so that the file is far larger than what socket buffers hold.
  await withTenant(t.app.pool, schema, (db) =>
    db.query(
      `insert into audit_log (action, actor_type, metadata)
       select 'bulk_probe', 'system', jsonb_build_object('a', md5(random()::text), 'b', md5(random()::text), 'n', n) from generate_series(1, 150000) n`,
    ),
  );
  for (let attempt = 0; attempt < 3; attempt++) {
    const cookie = [...admin.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const req = http.get(`${t.product.base}/remediation/export.xlsx`, { headers: { cookie } });
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => req.on('response', resolve).on('error', reject));
    assert.is(res.statusCode, 200);
    // Take the first bytes, then stop reading: the server fills the socket and waits with its cursor open.
    await new Promise((resolve) => res.once('data', resolve));
    res.pause();
    // Stalled: its cursor's transaction has waited for the reader for a while.
    await eventually(async () => ((await exportBackends()).some((b) => b.stalled) ? true : undefined), 60_000, 'a stalled export');
    // The export runs in a child process of its own, on a connection of its own.
    assert.is(activeExportProcesses(), 1, 'one export process serves the download');
    assert.equal(
      (await exportBackends()).map((b) => b.application_name),
      ['svc-export'],
    );
    req.destroy();
    // The child is killed: its connection closes, which ends the cursor's transaction.
    await eventually(async () => ((await exportBackends()).length === 0 ? true : undefined), 10_000, 'the cursor transaction and its connection to end');
    await eventually(async () => (activeExportProcesses() === 0 ? true : undefined), 10_000, 'the export process to be gone');
    assert.is(t.app.pool.totalCount, t.app.pool.idleCount, 'the API pool holds no connection for the download');
  }
  // The pool still serves: a complete export of the whole history.
  const full = await download();
  assert.is(full.status, 200);
  const workbook = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from([full.body]), { worksheets: 'emit', sharedStrings: 'cache' });
  const counts: Record<string, number> = {};
  for await (const sheet of workbook) {
    const name = (sheet as unknown as { name: string }).name;
    counts[name] = 0;
    for await (const _row of sheet) counts[name]++;
  }
  const [{ n }] = (await withTenant(t.app.pool, schema, (db) => db.query<{ n: number }>('select count(*)::int as n from audit_log'))).rows;
  assert.is(counts['Audit log'], n + 1);
});

test.run();
