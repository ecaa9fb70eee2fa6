/**
 * Tenant sources: list, register (`sources.manage`), file uploads to `file_upload` sources (committed
 * at once as the next dataset version, or stored failed), the exact 404 and 409 texts, CSRF and
 * permissions; and the staff's source seeding.
 */
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { findTenant } from '../../../sql/tenants.ts';
import { withTenant } from '../../../sql/tenant/schema.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { ingestRecords, recordsCsv, recordsXlsx, syntheticRecords, uploadFile } from '../../helpers/onboarding.ts';
import { createTenantUser, liveTenant, staffLogin, tenantLogin, type ProductClient } from '../../helpers/product.ts';

let t: TestApp;
let admin: ProductClient;
let tenantId: string;
let analyst: ProductClient;
let viewer: ProductClient;
test.before(async () => {
  t = await startTestApp({ worker: true });
  admin = await staffLogin(t);
  const { tenant, user } = await liveTenant(t, admin, { roleProfile: 'analyst' });
  tenantId = tenant.id;
  analyst = await tenantLogin(t, tenant.slug, user.email, user.password);
  const v = await createTenantUser(t, tenant.id, { roleProfile: 'viewer' });
  viewer = await tenantLogin(t, tenant.slug, v.email, v.password);
});
test.after(async () => t.close());

test('GET /sources lists, POST /sources registers (201; 409 on a taken name; 422 on a bad kind)', async () => {
  assert.equal((await analyst.get('/sources')).body, []);
  const created = await analyst.post('/sources', { name: 'Maintenance exports', kind: 'file_upload', config: { owner: 'ops' } });
  assert.is(created.status, 201, created.text);
  assert.equal(
    {
      name: created.body.name,
      kind: created.body.kind,
      config: created.body.config,
      upload_count: created.body.upload_count,
      last_upload_at: created.body.last_upload_at,
    },
    { name: 'Maintenance exports', kind: 'file_upload', config: { owner: 'ops' }, upload_count: 0, last_upload_at: null },
  );
  const dupe = await analyst.post('/sources', { name: 'Maintenance exports', kind: 'api' });
  assert.is(dupe.status, 409);
  assert.equal(dupe.body, { detail: "A source named 'Maintenance exports' already exists." });
  const badKind = await analyst.post('/sources', { name: 'X', kind: 'ftp' });
  assert.is(badKind.status, 422);
  assert.equal(badKind.body.detail[0].loc, ['body', 'kind']);
  assert.equal(
    (await viewer.get('/sources')).body.map((s: { name: string }) => s.name),
    ['Maintenance exports'],
  );
});

test('POST /sources needs sources.manage and CSRF', async () => {
  const denied = await viewer.post('/sources', { name: 'Viewer source', kind: 'api' });
  assert.is(denied.status, 403);
  assert.equal(denied.body, { detail: "Missing required permission 'sources.manage'." });
  const noCsrf = await analyst.post('/sources', { name: 'No csrf', kind: 'api' }, { noCsrf: true });
  assert.is(noCsrf.status, 403);
  assert.equal(noCsrf.body, { detail: 'CSRF token missing or mismatched.' });
  assert.is((await t.product.post('/sources', { name: 'anon', kind: 'api' })).status, 401);
});

test('upload to a file_upload source commits the next dataset version; failed files are stored failed', async () => {
  const source = (await analyst.post('/sources', { name: 'Field reports', kind: 'file_upload' })).body;
  const schema = (await findTenant(t.app.pool, tenantId))!.schema_name;
  const versions = () => withTenant(t.app.pool, schema, async (db) => (await db.query('select version, record_count from datasets order by version')).rows);
  const before = await versions();

  const csv = await uploadFile(analyst, `/sources/${source.id}/upload`, 'field.csv', recordsCsv(syntheticRecords(12, 31, 2, 'field')));
  assert.is(csv.status, 201, csv.text);
  assert.equal([csv.body.status, csv.body.source_id, csv.body.row_count], ['committed', source.id, 12]);
  assert.ok(csv.body.dataset_id && csv.body.committed_at);
  const xlsx = await uploadFile(analyst, `/sources/${source.id}/upload`, 'field.xlsx', await recordsXlsx(syntheticRecords(5, 32, 2, 'field')));
  assert.is(xlsx.body.status, 'committed', xlsx.body.error_detail);
  const after = await versions();
  assert.is(after.length, before.length + 2);
  assert.equal(after.at(-1), { version: before.length + 2, record_count: 17 });

  const bad = await uploadFile(analyst, `/sources/${source.id}/upload`, 'bad.csv', 'title\r\nx\r\n');
  assert.is(bad.status, 201);
  assert.is(bad.body.status, 'failed');
  assert.match(bad.body.error_detail, /lacks the required columns 'external_id', 'source'/);
  assert.is((await versions()).length, after.length, 'a failed file creates no version');

  const listed = (await analyst.get('/sources')).body.find((s: { id: string }) => s.id === source.id);
  assert.is(listed.upload_count, 3);
  assert.ok(listed.last_upload_at);
});

test('upload: 404 Unknown source., 409 for another kind, 403 without sources.manage, 422 without a file', async () => {
  const csv = recordsCsv(syntheticRecords(2, 33, 1));
  for (const id of [randomUUID(), 'not-a-uuid']) {
    const res = await uploadFile(analyst, `/sources/${id}/upload`, 'a.csv', csv);
    assert.is(res.status, 404, id);
    assert.equal(res.body, { detail: 'Unknown source.' });
  }
  for (const kind of ['api', 'webhook', 'email']) {
    const source = (await analyst.post('/sources', { name: `A ${kind} source`, kind })).body;
    const res = await uploadFile(analyst, `/sources/${source.id}/upload`, 'a.csv', csv);
    assert.is(res.status, 409);
    assert.is(res.text, JSON.stringify({ detail: `Source is kind '${kind}', not file_upload.` }));
  }
  const fileSource = (await analyst.post('/sources', { name: 'Uploads', kind: 'file_upload' })).body;
  const denied = await uploadFile(viewer, `/sources/${fileSource.id}/upload`, 'a.csv', csv);
  assert.is(denied.status, 403);
  assert.equal(denied.body, { detail: "Missing required permission 'sources.manage'." });
  const noFile = await analyst.post(`/sources/${fileSource.id}/upload`, { file: 'x' });
  assert.is(noFile.status, 422);
  assert.equal(noFile.body.detail[0].loc, ['body', 'file']);
});

test('staff seed sources: default file_upload source, listed names, existing names kept', async () => {
  const base = `/admin/tenants/${tenantId}/sources/seed`;
  const seeded = await admin.post(base);
  assert.is(seeded.status, 200, seeded.text);
  assert.ok(seeded.body.some((s: { name: string; kind: string }) => s.name === 'Historical import' && s.kind === 'file_upload'));
  const again = await admin.post(base, {
    sources: [
      { name: 'Historical import', kind: 'api' },
      { name: 'SAP PM', kind: 'api', config: { system: 'sap' } },
    ],
  });
  assert.is(again.status, 200);
  assert.is(again.body.find((s: { name: string }) => s.name === 'Historical import').kind, 'file_upload', 'an existing name is left as it is');
  assert.equal(again.body.find((s: { name: string }) => s.name === 'SAP PM').config, { system: 'sap' });
  assert.is(again.body.length, seeded.body.length + 1);
  assert.is((await admin.post(base, { sources: [] })).status, 422);
  assert.is((await admin.post(`/admin/tenants/${randomUUID()}/sources/seed`)).status, 404);
});

test('staff seed sources with {} applies the default, and a committed onboarding upload is counted under it', async () => {
  const base = `/admin/tenants/${tenantId}/sources/seed`;
  const seeded = await admin.post(base, {});
  assert.is(seeded.status, 200, seeded.text);
  const historical = seeded.body.find((s: { name: string }) => s.name === 'Historical import');
  assert.is(historical.kind, 'file_upload');
  await ingestRecords(admin, tenantId, syntheticRecords(5, 3));
  const listed = (await analyst.get('/sources')).body.find((s: { id: string }) => s.id === historical.id);
  assert.is(listed.upload_count, historical.upload_count + 1);
  assert.type(listed.last_upload_at, 'string');
});

test.run();
