/**
 * Isolation between two tenants' schemas: each tenant's uploads, datasets, checkpoints, insights,
 * sources and members stay in its own schema, and no id of one tenant resolves in the other.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { findTenant } from '../../../sql/tenants.ts';
import { withTenant } from '../../../sql/tenant/schema.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { recordsCsv, syntheticRecords, trainedTenant, uploadFile } from '../../helpers/onboarding.ts';
import { liveTenant, staffLogin, tenantLogin, type ProductClient } from '../../helpers/product.ts';

let t: TestApp;
let admin: ProductClient;
test.before(async () => {
  t = await startTestApp({ worker: true });
  admin = await staffLogin(t);
});
test.after(async () => t.close());

test('two tenants share nothing: data, models, insights, sources and members stay in their own schema', async () => {
  const a = await liveTenant(t, admin);
  const b = await liveTenant(t, admin);
  const aCheckpoint = await trainedTenant(t, admin, a.tenant.id, syntheticRecords(80, 41, 3, 'alpha-system'));
  const bCheckpoint = await trainedTenant(t, admin, b.tenant.id, syntheticRecords(90, 42, 3, 'beta-system'));
  const userA = await tenantLogin(t, a.tenant.slug, a.user.email, a.user.password);
  const userB = await tenantLogin(t, b.tenant.slug, b.user.email, b.user.password);

  const snapA = (await userA.get('/insights/snapshot')).body;
  const snapB = (await userB.get('/insights/snapshot')).body;
  assert.is(snapA.checkpoint_id, aCheckpoint.id);
  assert.is(snapB.checkpoint_id, bCheckpoint.id);
  assert.equal([snapA.record_count, snapB.record_count], [80, 90]);

  const schemaA = (await findTenant(t.app.pool, a.tenant.id))!.schema_name;
  const schemaB = (await findTenant(t.app.pool, b.tenant.id))!.schema_name;
  const sources = (schema: string) =>
    withTenant(t.app.pool, schema, async (db) => (await db.query('select distinct source from dataset_records order by 1')).rows.map((r) => r.source));
  assert.equal(await sources(schemaA), ['alpha-system']);
  assert.equal(await sources(schemaB), ['beta-system']);
  // Inside a tenant transaction only that schema resolves: not the control tables, not another tenant.
  const err = await withTenant(t.app.pool, schemaA, (db) => db.query('select * from tenants')).catch((e: Error) => e);
  assert.match(String(err), /relation "tenants" does not exist/);

  // Ids of tenant A do not resolve under tenant B.
  const uploadA = await uploadFile(admin, `/admin/tenants/${a.tenant.id}/ingest/upload`, 'a.csv', recordsCsv(syntheticRecords(3, 43, 1)));
  const crossCommit = await admin.post(`/admin/tenants/${b.tenant.id}/ingest/commit`, { upload_id: uploadA.body.id });
  assert.is(crossCommit.status, 404);
  assert.equal(crossCommit.body, { detail: 'Upload not found.' });
  const crossActivate = await admin.post(`/admin/tenants/${b.tenant.id}/checkpoints/${aCheckpoint.id}/activate`);
  assert.is(crossActivate.status, 404);
  assert.equal(crossActivate.body, { detail: 'Checkpoint not found.' });
  assert.equal(
    (await admin.get(`/admin/tenants/${b.tenant.id}/checkpoints`)).body.map((c: { id: string }) => c.id),
    [bCheckpoint.id],
  );

  const sourceA = (await userA.post('/sources', { name: 'Alpha uploads', kind: 'file_upload' })).body;
  // B sees only its own sources: the default one its historical upload was committed under, never A's.
  assert.equal(
    (await userB.get('/sources')).body.map((s: { name: string }) => s.name),
    ['Historical import'],
  );
  const crossUpload = await uploadFile(userB, `/sources/${sourceA.id}/upload`, 'b.csv', recordsCsv(syntheticRecords(2, 44, 1)));
  assert.is(crossUpload.status, 404);
  assert.equal(crossUpload.body, { detail: 'Unknown source.' });

  assert.equal(
    (await userA.get('/members')).body.map((m: { email: string }) => m.email),
    [a.user.email],
  );
  assert.equal(
    (await userB.get('/members')).body.map((m: { email: string }) => m.email),
    [b.user.email],
  );

  // A's session token under B's slug is nothing.
  const stolen = userA.cookies.get('svc_tenant_session')!.replace(`${a.tenant.slug}:`, `${b.tenant.slug}:`);
  const res = await fetch(`${t.product.base}/insights/snapshot`, { headers: { cookie: `svc_tenant_session=${stolen}` } });
  assert.is(res.status, 401);
});

test.run();
