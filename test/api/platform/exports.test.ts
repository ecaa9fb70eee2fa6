/**
 * Exports end to end over real HTTP, a real worker and Postgres: issues (with commas, quotes, line
 * breaks, formula-like titles), patterns and predictions of an engine run exported as CSV and XLSX
 * with the lists' filters; each file is downloaded through its signed URL without a bearer token and
 * read back (csv-parse, exceljs) row for row against the API's list with the same filters. Bad or
 * expired signatures are refused, expired files are purged by the maintenance task, bad input and
 * scopes are checked, and another workspace cannot see an export.
 */
import http from 'node:http';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { purgeExpired } from '../../../sql/maintenance.ts';
import { exportColumns } from '../../../sql/exports.ts';
import { demoToken, eventually, startTestApp, type TestApp } from '../../helpers/app.ts';
import { assertError, assertValidation, fresh } from '../../helpers/errors.ts';
import { request, type Client } from '../../helpers/http.ts';
import { serviceAccountToken } from '../../helpers/identities.ts';
import { listAll } from '../../helpers/isolation.ts';
import { forecastFixture } from '../../helpers/forecastFixture.ts';

/** Real time, moved forward by hand to pass a file's expiry (engine runs read it as their as-of). */
const clock = { offset: 0, now: () => new Date(Date.now() + clock.offset) };
let t: TestApp;
let api: Client;
let token: string;
test.before(async () => {
  t = await startTestApp({ worker: true, clock });
  token = await demoToken(t);
  api = t.platform.as(token);
});
test.after(async () => t.close());

const { records } = await forecastFixture(Math.floor(Date.now() / 60_000) * 60_000);
const awkward = [
  { external_id: 'x1', source: 'edge', severity: 'high', title: 'Comma, "quoted" title', narrative: 'Line one\nline two, with "quotes"\r\nand CRLF.' },
  { external_id: 'x2', source: 'edge', severity: 'low', title: '=HYPERLINK("http://evil.test")', narrative: '+1 and -2 and @sum' },
  { external_id: 'x3', source: 'edge', severity: 'medium', title: 'Ünïcödé ✓ naïve café' },
];

async function exportFile(body: Record<string, unknown>): Promise<{ meta: any; file: Buffer; response: Response }> {
  const res = await api.post('/v1/exports', body);
  assert.is(res.status, 202, res.text);
  assert.is(res.body.status, 'queued');
  const meta = await eventually(
    async () => {
      const r = await api.get(`/v1/exports/${res.body.id}`);
      assert.is(r.status, 200, r.text);
      if (r.body.status === 'failed') throw new Error(`export failed: ${r.text}`);
      return r.body.status === 'succeeded' ? r.body : undefined;
    },
    60_000,
    'the export',
  );
  // No bearer: the signed URL is the credential.
  const response = await fetch(meta.download_url);
  assert.is(response.status, 200);
  const file = Buffer.from(await response.arrayBuffer());
  assert.is(file.length, meta.bytes);
  return { meta, file, response };
}

const defuse = (v: string) => (/^[=+\-@\t\r]/.test(v) ? `'${v}` : v);

/** The API item as export columns: nested fields flattened, in the export's column order. */
function flatten(resource: string, item: any): Record<string, unknown> {
  if (resource === 'patterns')
    return { ...item, domain: item.fingerprint.domain, root_cause: item.fingerprint.root_cause, top_terms: item.top_terms.join(' ') };
  if (resource === 'predictions') {
    return {
      ...item,
      p_recurrence: item.p_recurrence.estimate,
      p_recurrence_lower: item.p_recurrence.lower,
      p_recurrence_upper: item.p_recurrence.upper,
      expected_time_to_next_days: item.expected_time_to_next_days.estimate,
      expected_time_to_next_days_lower: item.expected_time_to_next_days.lower,
      expected_time_to_next_days_upper: item.expected_time_to_next_days.upper,
    };
  }
  return item;
}

function assertCsvMatches(resource: string, file: Buffer, items: any[]) {
  const rows: string[][] = parse(file, { bom: true, relax_column_count: false });
  const columns = exportColumns(resource as 'issues');
  assert.equal(rows[0], columns);
  assert.is(rows.length - 1, items.length, 'one row per list item');
  items.forEach((item, i) => {
    const flat = flatten(resource, item);
    columns.forEach((c, j) => {
      const v = flat[c];
      const expected = v === null || v === undefined ? '' : typeof v === 'string' ? defuse(v) : String(v);
      assert.is(rows[i + 1][j], expected, `${resource} row ${i} ${c}`);
    });
  });
}

async function assertXlsxMatches(resource: string, file: Buffer, items: any[]) {
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(file as unknown as ArrayBuffer);
  const sheet = book.worksheets[0];
  const columns = exportColumns(resource as 'issues');
  assert.equal((sheet.getRow(1).values as unknown[]).slice(1), columns);
  assert.is(sheet.rowCount - 1, items.length);
  items.forEach((item, i) => {
    const flat = flatten(resource, item);
    const values = sheet.getRow(i + 2).values as unknown[];
    columns.forEach((c, j) => {
      const cell = values[j + 1];
      const v = flat[c];
      const actual = cell instanceof Date ? cell.toISOString() : (cell ?? null);
      // XML normalises a CR line break to LF when the sheet is read.
      assert.equal(actual, typeof v === 'string' ? v.replace(/\r\n?/g, '\n') : (v ?? null), `${resource} row ${i} ${c}`);
    });
  });
}

test('setup: issues (some awkward), an engine run with patterns and predictions', async () => {
  const res = await api.post('/v1/ingest/batch', { records: [...records, ...awkward] }, fresh());
  assert.is(res.status, 202, res.text);
  const run = await api.post('/v1/engine/runs', {}, fresh());
  await eventually(
    async () => ((await api.get(`/v1/engine/runs/${run.body.run_id}`)).body.status === 'succeeded' ? true : undefined),
    90_000,
    'the engine run',
  );
});

test('issues as CSV and XLSX, unfiltered and filtered, read back row for row against GET /v1/issues', async () => {
  const all = await listAll(api, '/v1/issues');
  assert.is(all.length, records.length + awkward.length);
  const csv = await exportFile({ resource: 'issues', format: 'csv' });
  assert.is(csv.response.headers.get('content-type'), 'text/csv; charset=utf-8');
  assert.match(csv.response.headers.get('content-disposition')!, /^attachment; filename="issues-.*\.csv"$/);
  assert.is(csv.meta.row_count, all.length);
  assertCsvMatches('issues', csv.file, all);
  assert.ok(csv.file.toString().includes(`"'=HYPERLINK(""http://evil.test"")"`), 'formula-like text is defused in CSV');

  const xlsx = await exportFile({ resource: 'issues', format: 'xlsx' });
  assert.match(xlsx.response.headers.get('content-type')!, /spreadsheetml/);
  await assertXlsxMatches('issues', xlsx.file, all);

  // The list's filters, as JSON values.
  const query = 'severity=high&has_pattern=true&date_to=2999-01-01T00:00:00Z';
  const filtered = await listAll(api, `/v1/issues?${query}`);
  assert.ok(filtered.length > 0 && filtered.length < all.length);
  const f = await exportFile({ resource: 'issues', format: 'csv', filters: { severity: 'high', has_pattern: true, date_to: '2999-01-01T00:00:00Z' } });
  assert.equal(f.meta.filters, { severity: 'high', has_pattern: true, date_to: '2999-01-01T00:00:00Z' });
  assertCsvMatches('issues', f.file, filtered);
});

test('patterns and predictions as CSV and XLSX match their lists', async () => {
  const patterns = await listAll(api, '/v1/patterns');
  assertCsvMatches('patterns', (await exportFile({ resource: 'patterns', format: 'csv' })).file, patterns);
  await assertXlsxMatches('patterns', (await exportFile({ resource: 'patterns', format: 'xlsx' })).file, patterns);
  const risky = await listAll(api, '/v1/patterns?risk_min=1&risk_max=100');
  assertCsvMatches('patterns', (await exportFile({ resource: 'patterns', format: 'csv', filters: { risk_min: 1, risk_max: 100 } })).file, risky);

  const predictions = await listAll(api, '/v1/predictions');
  assert.ok(predictions.length >= 1);
  assertCsvMatches('predictions', (await exportFile({ resource: 'predictions', format: 'csv' })).file, predictions);
  await assertXlsxMatches('predictions', (await exportFile({ resource: 'predictions', format: 'xlsx', filters: { min_p: 0 } })).file, predictions);
});

test('the download URL is signed and expires; expired files are purged', async () => {
  const { meta } = await exportFile({ resource: 'patterns', format: 'csv' });
  const url = new URL(meta.download_url);
  const tampered = new URL(url);
  tampered.searchParams.set(
    'signature',
    url.searchParams.get('signature')!.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')),
  );
  assertError(await request(tampered.origin, 'GET', tampered.pathname + tampered.search), 403, 'forbidden');
  const extended = new URL(url);
  extended.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
  assertError(await request(extended.origin, 'GET', extended.pathname + extended.search), 403, 'forbidden');
  assertValidation(await request(url.origin, 'GET', url.pathname), { expires: 'is required', signature: 'is required' });
  assert.ok(Date.parse(meta.expires_at) > clock.now().getTime() + 23 * 3600_000, 'EXPORT_TTL_HOURS: 24 by default');

  clock.offset = 25 * 3600_000;
  assertError(await request(url.origin, 'GET', url.pathname + url.search), 403, 'forbidden');
  const later = await api.get(`/v1/exports/${meta.id}`);
  assert.is(later.body.download_url, undefined, 'no URL once the file expired');
  clock.offset = 0;

  await t.app.pool.query(`update exports set expires_at = now() - interval '1 minute' where id = $1`, [meta.id]);
  const purged = await purgeExpired(t.app.pool);
  assert.ok(purged.exports >= 1);
  assert.is((await t.app.pool.query('select count(*)::int as n from export_chunks where export_id = $1', [meta.id])).rows[0].n, 0);
  assertError(await api.get(`/v1/exports/${meta.id}`), 404, 'not_found');
  assertError(await request(url.origin, 'GET', url.pathname + url.search), 404, 'not_found');
});

test('without PLATFORM_URL the download URL names the address the server listens on, never the Host header (issue 26)', async () => {
  const { meta } = await exportFile({ resource: 'issues', format: 'csv' });
  // fetch keeps its own Host header: node:http sends the spoofed one.
  const spoofed = await new Promise<{ status: number; body: any; text: string }>((resolve, reject) => {
    const req = http.get(`${t.platform.base}/v1/exports/${meta.id}`, { headers: { host: 'evil.example', authorization: `Bearer ${token}` } }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), text }));
    });
    req.on('error', reject);
  });
  assert.is(spoofed.status, 200, spoofed.text);
  assert.ok(spoofed.body.download_url.startsWith(`${t.platform.base}/v1/exports/${meta.id}/download?`), spoofed.body.download_url);
});

test('bad input and scopes', async () => {
  assertValidation(await api.post('/v1/exports', { resource: 'users', format: 'csv' }), { resource: 'must be one of issues, patterns, predictions' });
  assertValidation(await api.post('/v1/exports', { resource: 'issues', format: 'pdf' }), { format: 'must be one of csv, xlsx' });
  assertValidation(await api.post('/v1/exports', { resource: 'issues', format: 'csv', filters: { severity: 'urgent' } }), {
    'filters.severity': 'must be one of critical, p1, sev1, high, p2, sev2, medium, p3, sev3, low, p4, sev4',
  });
  assertValidation(await api.post('/v1/exports', { resource: 'patterns', format: 'csv', filters: { risk_min: 50, risk_max: 10 } }), {
    'filters.risk_max': 'must be at least risk_min',
  });
  const unknown = await api.post('/v1/exports', { resource: 'predictions', format: 'csv', filters: { severity: 'high' } });
  assert.is(unknown.status, 400);
  assertError(await api.get('/v1/exports/00000000-0000-4000-8000-000000000000'), 404, 'not_found');

  const onlyExports = t.platform.as(await serviceAccountToken(api, ['exports:read']));
  const denied = await onlyExports.post('/v1/exports', { resource: 'issues', format: 'csv' });
  assertError(denied, 403, 'forbidden', { required_scope: 'issues:read' });
  const noExports = t.platform.as(await serviceAccountToken(api, ['issues:read']));
  assertError(await noExports.post('/v1/exports', { resource: 'issues', format: 'csv' }), 403, 'forbidden', { required_scope: 'exports:read' });
});

test.run();
