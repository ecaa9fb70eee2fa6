/**
 * Staff ingest: multipart rules (one `file` part, 20 MB, 413/422), CSV and XLSX parsing into the
 * platform's record, failed uploads with readable reasons, commit (versioned datasets, idempotent
 * repeat, 409 on a failed upload), the data policy's redaction, and the access rules of the routes.
 */
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import ExcelJS from 'exceljs';
import { withTenant } from '../../../sql/tenant/schema.ts';
import { findTenant } from '../../../sql/tenants.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { ingestRecords, recordsCsv, recordsXlsx, uploadFile, type RecordInput } from '../../helpers/onboarding.ts';
import { createTenant, provisionTenant, seedStaff, staffLogin, type ProductClient } from '../../helpers/product.ts';

let t: TestApp;
let admin: ProductClient;
let tenantId: string;
let schema: string;
const upload = (name: string, content: string | Buffer, options?: Parameters<typeof uploadFile>[4]) =>
  uploadFile(admin, `/admin/tenants/${tenantId}/ingest/upload`, name, content, options);

test.before(async () => {
  t = await startTestApp({ worker: true });
  admin = await staffLogin(t);
  tenantId = (await createTenant(admin)).id;
  await provisionTenant(t, admin, tenantId);
  schema = (await findTenant(t.app.pool, tenantId))!.schema_name;
});
test.after(async () => t.close());

const record = (n: number, extra: Partial<RecordInput> = {}): RecordInput => ({
  external_id: `INC-${n}`,
  title: `Pump ${n} vibration`,
  narrative: `Bearing noise on pump ${n}, replaced seal.`,
  occurred_at: '2024-05-0' + ((n % 9) + 1) + 'T08:00:00Z',
  severity: 'high',
  source: 'cmms',
  ...extra,
});

const datasetRows = (datasetId: string) =>
  withTenant(
    t.app.pool,
    schema,
    async (db) =>
      (await db.query('select external_id, title, narrative, severity from dataset_records where dataset_id = $1 order by external_id', [datasetId])).rows,
  );

test('a CSV upload is parsed into the platform ingest record (quoting, BOM, CRLF, aliases, severity aliases)', async () => {
  const csv =
    '\ufeffExternal_ID,title,body,occurred_at,severity,source,owner\r\n' +
    'A-1,"Leak, at valve 3","Operator said ""drip"" then\r\nflow",2024-01-02T03:04:05+01:00,P1,cmms,ann\r\n' +
    'A-2,Noise,,,,cmms,\r\n' +
    'A-2,Noise again,Second report,,sev4,cmms,bob\r\n';
  const res = await upload('records.csv', csv);
  assert.is(res.status, 201, res.text);
  assert.equal(
    {
      status: res.body.status,
      format: res.body.format,
      row_count: res.body.row_count,
      duplicate_rows: res.body.duplicate_rows,
      ignored: res.body.ignored_columns,
      error: res.body.error_detail,
    },
    { status: 'uploaded', format: 'csv', row_count: 3, duplicate_rows: 1, ignored: ['owner'], error: null },
  );
  assert.is(res.body.byte_size, Buffer.byteLength(csv));
  const commit = await admin.post(`/admin/tenants/${tenantId}/ingest/commit`, { upload_id: res.body.id });
  assert.is(commit.status, 201, commit.text);
  const rows = await withTenant(
    t.app.pool,
    schema,
    async (db) =>
      (
        await db.query('select external_id, title, narrative, severity, occurred_at from dataset_records where dataset_id = $1 order by external_id', [
          commit.body.dataset_id,
        ])
      ).rows,
  );
  assert.equal(rows, [
    {
      external_id: 'A-1',
      title: 'Leak, at valve 3',
      narrative: 'Operator said "drip" then\r\nflow',
      severity: 'critical',
      occurred_at: new Date('2024-01-02T02:04:05Z'),
    },
    { external_id: 'A-2', title: 'Noise again', narrative: 'Second report', severity: 'low', occurred_at: null },
  ]);
});

test('an XLSX upload reads the first worksheet (numbers, dates, rich text)', async () => {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Export');
  sheet.addRow(['external_id', 'title', 'narrative', 'occurred_at', 'severity', 'source']);
  sheet.addRow([
    1001,
    'Overheating',
    { richText: [{ text: 'Motor ' }, { text: 'hot', font: { bold: true } }] },
    new Date('2024-03-01T10:00:00Z'),
    'critical',
    'scada',
  ]);
  sheet.addRow([]);
  sheet.addRow(['1002', 'Oil leak', 'Seal worn', null, 'p3', 'scada']);
  workbook.addWorksheet('Other').addRow(['not', 'read']);
  const res = await upload('export.xlsx', Buffer.from(await workbook.xlsx.writeBuffer()));
  assert.is(res.status, 201, res.text);
  assert.is(res.body.status, 'uploaded', res.body.error_detail);
  assert.is(res.body.format, 'xlsx');
  assert.is(res.body.row_count, 2);
  const commit = await admin.post(`/admin/tenants/${tenantId}/ingest/commit`, { upload_id: res.body.id });
  const rows = await withTenant(
    t.app.pool,
    schema,
    async (db) =>
      (
        await db.query(
          `select external_id, narrative, severity, occurred_at from dataset_records where dataset_id = $1 and source = 'scada' order by external_id`,
          [commit.body.dataset_id],
        )
      ).rows,
  );
  assert.equal(rows, [
    { external_id: '1001', narrative: 'Motor hot', severity: 'critical', occurred_at: new Date('2024-03-01T10:00:00Z') },
    { external_id: '1002', narrative: 'Seal worn', severity: 'medium', occurred_at: null },
  ]);
});

test('files that cannot be used are stored as failed uploads with a readable reason', async () => {
  const header = 'external_id,title,narrative,occurred_at,severity,source\r\n';
  const cases: Array<[string, string | Buffer, RegExp]> = [
    ['unclosed.csv', `${header}A-1,"never closed,x,,,cmms\r\n`, /^Malformed CSV at line 2, column 5: quoted field is never closed\.$/],
    ['stray.csv', `${header}A-1,say "hi",x,,,cmms\r\n`, /line 2, column 9: a quote inside an unquoted field/],
    ['columns.csv', 'id,title,severity\r\n1,x,low\r\n', /lacks the required columns 'external_id', 'source'/],
    [
      'values.csv',
      `${header}A-1,,x,,urgent,cmms\r\nA-2,ok,x,yesterday,,cmms\r\n`,
      /line 2, column 'title': is required; line 2, column 'severity': must be one of critical.*; line 3, column 'occurred_at': must be an ISO 8601 timestamp/,
    ],
    ['wide.csv', `${header}A-1,t,n,,low,cmms,extra\r\n`, /line 2: more values than the header has columns/],
    ['latin1.csv', Buffer.concat([Buffer.from(header), Buffer.from('A-1,Caf\xe9,x,,,cmms\r\n', 'latin1')]), /not UTF-8/],
    ['empty.csv', '', /The file is empty/],
    ['header.csv', header, /header row but no records/],
    ['broken.xlsx', Buffer.from('PK\x03\x04 this is not a zip'), /not a readable XLSX workbook/],
    ['report.pdf', '%PDF-1.4', /Unsupported file type 'report\.pdf'/],
  ];
  for (const [name, content, reason] of cases) {
    const res = await upload(name, content);
    assert.is(res.status, 201, `${name}: ${res.text}`);
    assert.is(res.body.status, 'failed', name);
    assert.match(res.body.error_detail, reason, name);
    const commit = await admin.post(`/admin/tenants/${tenantId}/ingest/commit`, { upload_id: res.body.id });
    assert.is(commit.status, 409, name);
    assert.is(commit.body.detail, `This upload failed and cannot be committed: ${res.body.error_detail} Upload a corrected file.`);
  }
  const many = await upload('many.csv', header + Array.from({ length: 8 }, (_, i) => `X-${i},,n,,,cmms`).join('\r\n'));
  assert.match(many.body.error_detail, /line 6, column 'title': is required \(and 3 more problems\)\.$/);
});

test('multipart rules: one `file` part (422 otherwise), 20 MB at most (413)', async () => {
  const path = `/admin/tenants/${tenantId}/ingest/upload`;
  const json = await admin.post(path, { file: 'x' });
  assert.is(json.status, 422);
  assert.equal(json.body, { detail: [{ loc: ['body', 'file'], msg: 'Field required', type: 'missing', input: null }] });

  const wrongName = await upload('a.csv', 'x', { field: 'document' });
  assert.is(wrongName.status, 422);
  assert.equal(wrongName.body.detail[0].loc, ['body', 'document']);

  const two = new FormData();
  two.append('file', new Blob(['a']), 'a.csv');
  two.append('file', new Blob(['b']), 'b.csv');
  const twoFiles = await admin.request('POST', path, { raw: two });
  assert.is(twoFiles.status, 422);
  assert.is(twoFiles.body.detail[0].msg, 'Exactly one file is expected');

  const withField = new FormData();
  withField.append('note', 'hello');
  withField.append('file', new Blob(['a']), 'a.csv');
  const extra = await admin.request('POST', path, { raw: withField });
  assert.is(extra.status, 422);
  assert.equal(extra.body.detail[0].loc, ['body', 'note']);

  const big = Buffer.alloc(20 * 1024 * 1024 + 1, 'a');
  const tooBig = await upload('big.csv', big);
  assert.is(tooBig.status, 413);
  assert.equal(tooBig.body, { detail: 'The file is larger than the 20 MB upload limit.' });
  const uploads = await withTenant(
    t.app.pool,
    schema,
    async (db) => (await db.query(`select count(*)::int as n from uploads where filename = 'big.csv'`)).rows[0].n,
  );
  assert.is(uploads, 0, 'nothing is stored for a refused file');
  // The connection still serves the next request.
  assert.is((await admin.get(`/admin/tenants/${tenantId}`)).status, 200);
});

test('commit creates versioned datasets; a repeat answers the earlier summary; unknown uploads are 404', async () => {
  const other = (await createTenant(admin)).id;
  await provisionTenant(t, admin, other);
  const otherSchema = (await findTenant(t.app.pool, other))!.schema_name;
  const base = `/admin/tenants/${other}`;
  const v1 = await ingestRecords(admin, other, [record(1), record(2), record(3)]);
  assert.equal([v1.version, v1.record_count, v1.records_added, v1.records_updated], [1, 3, 3, 0]);

  const next = await uploadFile(admin, `${base}/ingest/upload`, 'next.csv', recordsCsv([record(2, { title: 'Pump 2 replaced' }), record(4)]));
  const v2 = await admin.post(`${base}/ingest/commit`, { upload_id: next.body.id });
  assert.is(v2.status, 201);
  assert.equal([v2.body.version, v2.body.record_count, v2.body.records_added, v2.body.records_updated], [2, 4, 1, 1]);
  const again = await admin.post(`${base}/ingest/commit`, { upload_id: next.body.id });
  assert.is(again.status, 200);
  assert.equal(again.body, v2.body);

  const inSchema = (sql: string, params: unknown[] = []) => withTenant(t.app.pool, otherSchema, async (db) => (await db.query(sql, params)).rows);
  assert.equal(
    (await inSchema('select version, record_count from datasets order by version')).map((r) => [r.version, r.record_count]),
    [
      [1, 3],
      [2, 4],
    ],
  );
  const titles = await inSchema(
    `select d.version, r.title from dataset_records r join datasets d on d.id = r.dataset_id where r.external_id = 'INC-2' order by 1`,
  );
  assert.equal(titles, [
    { version: 1, title: 'Pump 2 vibration' },
    { version: 2, title: 'Pump 2 replaced' },
  ]);
  const ids = await inSchema(`select count(distinct record_id)::int as n from dataset_records where external_id = 'INC-2'`);
  assert.is(ids[0].n, 1, 'a record keeps its id across versions');
  const [uploadRow] = await inSchema('select status, records from uploads where id = $1', [next.body.id]);
  assert.equal(uploadRow, { status: 'committed', records: null });

  const unknown = await admin.post(`${base}/ingest/commit`, { upload_id: randomUUID() });
  assert.is(unknown.status, 404);
  assert.equal(unknown.body, { detail: 'Upload not found.' });
  const notUuid = await admin.post(`${base}/ingest/commit`, { upload_id: 'abc' });
  assert.is(notUuid.status, 422);
  assert.equal(notUuid.body.detail[0].loc, ['body', 'upload_id']);
  // Another tenant's upload does not exist here.
  assert.is((await admin.post(`/admin/tenants/${tenantId}/ingest/commit`, { upload_id: next.body.id })).status, 404);
});

test('the data policy masks e-mail addresses and phone numbers in records committed after it is set', async () => {
  const other = (await createTenant(admin)).id;
  await provisionTenant(t, admin, other);
  const policy = await admin.put(`/admin/tenants/${other}/data-policy`, { redact_pii: true });
  assert.is(policy.status, 200, policy.text);
  assert.is(policy.body.redact_pii, true);
  assert.is(policy.body.retention_days, null);
  const summary = await ingestRecords(admin, other, [
    record(1, { title: 'Call jo.smith@plant.example', narrative: 'Reach Jo on +44 20 7946 0958 or jo.smith@plant.example.' }),
  ]);
  const otherSchema = (await findTenant(t.app.pool, other))!.schema_name;
  const rows = await withTenant(
    t.app.pool,
    otherSchema,
    async (db) => (await db.query('select title, narrative from dataset_records where dataset_id = $1', [summary.dataset_id])).rows,
  );
  assert.equal(rows, [{ title: 'Call [email]', narrative: 'Reach Jo on [phone] or [email].' }]);

  const bad = await admin.put(`/admin/tenants/${other}/data-policy`, { retention_days: 0, purge: true });
  assert.is(bad.status, 422);
  assert.equal(
    bad.body.detail.map((d: { loc: unknown[] }) => d.loc),
    [
      ['body', 'retention_days'],
      ['body', 'purge'],
    ],
  );
});

test('access: 404 unknown tenant, 409 before provisioning, 401 without a session, 403 support_readonly and without CSRF', async () => {
  const csv = recordsCsv([record(1)]);
  const missing = await uploadFile(admin, `/admin/tenants/${randomUUID()}/ingest/upload`, 'a.csv', csv);
  assert.is(missing.status, 404);
  assert.equal(missing.body, { detail: 'Tenant not found.' });

  const draft = (await createTenant(admin)).id;
  const early = await uploadFile(admin, `/admin/tenants/${draft}/ingest/upload`, 'a.csv', csv);
  assert.is(early.status, 409);
  assert.equal(early.body, { detail: "Tenant is 'draft'; onboarding data needs a provisioned tenant -- provision it first." });
  assert.is((await admin.post(`/admin/tenants/${draft}/ingest/commit`, { upload_id: randomUUID() })).status, 409);

  const noCsrf = await upload('a.csv', csv, { noCsrf: true });
  assert.is(noCsrf.status, 403);
  assert.equal(noCsrf.body, { detail: 'CSRF token missing or mismatched.' });

  const reader = await staffLogin(t, await seedStaff(t, { role: 'support_readonly' }));
  const readonly = await uploadFile(reader, `/admin/tenants/${tenantId}/ingest/upload`, 'a.csv', csv);
  assert.is(readonly.status, 403);
  assert.equal(readonly.body, { detail: "Requires one of ('onboarding_admin',), has 'support_readonly'." });

  const anonymous = new FormData();
  anonymous.append('file', new Blob([csv]), 'a.csv');
  const res = await fetch(`${t.product.base}/admin/tenants/${tenantId}/ingest/upload`, { method: 'POST', body: anonymous });
  assert.is(res.status, 401);
  assert.equal(await res.json(), { detail: 'No employee session.' });
});

test('XLSX written by the helper round-trips every column', async () => {
  const records = [record(7), record(8, { severity: 'sev2', narrative: null })];
  const res = await upload('two.xlsx', await recordsXlsx(records));
  assert.is(res.body.status, 'uploaded', res.body.error_detail);
  const commit = await admin.post(`/admin/tenants/${tenantId}/ingest/commit`, { upload_id: res.body.id });
  const rows = (await datasetRows(commit.body.dataset_id)).filter((r) => r.external_id === 'INC-7' || r.external_id === 'INC-8');
  assert.equal(rows, [
    { external_id: 'INC-7', title: 'Pump 7 vibration', narrative: 'Bearing noise on pump 7, replaced seal.', severity: 'high' },
    { external_id: 'INC-8', title: 'Pump 8 vibration', narrative: null, severity: 'high' },
  ]);
});

test.run();
