/**
 * The staff console's operations on background jobs and the development outbox (docs/api.md "Staff
 * operations on background jobs"): filters, one job with its queue row, retry and cancel with the
 * staff role and CSRF rules of every staff write, `{detail}` errors, the outbox only in development
 * without SMTP_URL, and the five operations in /openapi.json.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createTenant, seedStaff, staffLogin } from '../../helpers/product.ts';

let t: TestApp;
let admin: Awaited<ReturnType<typeof staffLogin>>;
let reader: Awaited<ReturnType<typeof staffLogin>>;
let tenantId: string;
let provisionJob: string;
test.before(async () => {
  t = await startTestApp(); // no worker: queued jobs stay queued until the test moves them
  admin = await staffLogin(t);
  reader = await staffLogin(t, await seedStaff(t, { role: 'support_readonly' }));
  tenantId = (await createTenant(admin, { slug: 'jobs-tenant' })).id;
  provisionJob = (await admin.post(`/admin/tenants/${tenantId}/provision`)).body.job_id;
});
test.after(async () => t.close());

test('GET /admin/jobs lists every job newest first with kind, status and tenant filters; both roles read', async () => {
  await createTenant(admin, { slug: 'other-tenant' }).then((o) => admin.post(`/admin/tenants/${o.id}/provision`));
  const all = await reader.get('/admin/jobs');
  assert.is(all.status, 200, all.text);
  assert.ok(all.body.length >= 2);
  const mine = await reader.get(`/admin/jobs?tenant_id=${tenantId}&kind=tenant__provision&status=queued`);
  assert.equal(
    mine.body.map((j: { id: string; kind: string; status: string; tenant_id: string }) => [j.id, j.kind, j.status, j.tenant_id]),
    [[provisionJob, 'tenant__provision', 'queued', tenantId]],
  );
  assert.equal((await reader.get('/admin/jobs?status=failed')).body, []);
  const bad = await reader.get('/admin/jobs?status=exploded&limit=0');
  assert.is(bad.status, 422);
  assert.equal(
    bad.body.detail.map((d: { loc: string[] }) => d.loc),
    [
      ['query', 'status'],
      ['query', 'limit'],
    ],
  );
});

test('GET /admin/jobs/{id}: payload, attempts, timing and the queue row; 404 and 401 in {detail}', async () => {
  const job = await reader.get(`/admin/jobs/${provisionJob}`);
  assert.is(job.status, 200, job.text);
  assert.is(job.body.kind, 'tenant__provision');
  assert.equal(job.body.payload, { tenant_id: tenantId });
  assert.is(job.body.job_key, `provision:${tenantId}`);
  assert.ok(job.body.queue && job.body.queue.run_at && job.body.queue.locked_by === null, JSON.stringify(job.body.queue));
  assert.equal((await reader.get('/admin/jobs/00000000-0000-4000-8000-000000000000')).body, { detail: 'Job not found' });
  const anonymous = await t.product.get('/admin/jobs');
  assert.equal([anonymous.status, anonymous.body], [401, { detail: 'No employee session.' }]);
});

test('retry and cancel: onboarding_admin with CSRF only; state rules answer 409', async () => {
  const denied = await reader.post(`/admin/jobs/${provisionJob}/cancel`);
  assert.equal([denied.status, denied.body], [403, { detail: "Requires one of ('onboarding_admin',), has 'support_readonly'." }]);
  const noCsrf = await admin.post(`/admin/jobs/${provisionJob}/cancel`, undefined, { noCsrf: true });
  assert.equal([noCsrf.status, noCsrf.body], [403, { detail: 'CSRF token missing or mismatched.' }]);
  const early = await admin.post(`/admin/jobs/${provisionJob}/retry`);
  assert.equal([early.status, early.body], [409, { detail: 'Job is queued; only failed or cancelled jobs can be retried' }]);

  const cancelled = await admin.post(`/admin/jobs/${provisionJob}/cancel`);
  assert.equal([cancelled.status, cancelled.body.status], [200, 'cancelled']);
  assert.is((await admin.get(`/admin/jobs/${provisionJob}`)).body.queue, null, 'gone from the queue');
  const retried = await admin.post(`/admin/jobs/${provisionJob}/retry`);
  assert.equal([retried.status, retried.body.status], [200, 'queued']);
  assert.ok((await admin.get(`/admin/jobs/${provisionJob}`)).body.queue, 'back in the queue');
  assert.is((await admin.post('/admin/jobs/00000000-0000-4000-8000-000000000000/cancel')).status, 404);
});

test('GET /admin/outbox shows what would have been mailed in development, and nothing elsewhere', async () => {
  assert.is((await t.product.post('/admin/password-reset/request', { email: admin.staff.email })).status, 202);
  const mails = await reader.get('/admin/outbox');
  assert.is(mails.status, 200, mails.text);
  assert.ok(mails.body.length >= 1);
  const reset = mails.body.find((m: { to: string }) => m.to === admin.staff.email);
  assert.ok(reset?.text_body.includes(`${t.config.APP_URL}/admin/reset-password?token=`), JSON.stringify(reset));

  for (const env of [{ SMTP_URL: 'smtp://127.0.0.1:2525' }, { NODE_ENV: 'production' }] as Array<Record<string, string>>) {
    const t2 = await startTestApp({
      env: {
        ...env,
        JWT_SECRET: 'x'.repeat(32),
        SECRETS_KEY: 'y'.repeat(32),
        AUTH_PROVIDER: 'oidc',
        OIDC_ISSUER: 'https://idp.example',
        OIDC_AUDIENCE: 'svc',
        PASSWORD_SCRYPT_LOG_N: '17',
      },
    });
    const staff = await staffLogin(t2);
    const res = await staff.get('/admin/outbox');
    assert.equal([res.status, res.body], [404, { detail: 'The outbox is shown only in development when SMTP_URL is unset.' }], JSON.stringify(env));
    await t2.close();
  }
});

test('the five operations are in /openapi.json with the staff security and roles', async () => {
  const spec = (await t.product.get('/openapi.json')).body;
  for (const [path, method] of [
    ['/admin/jobs', 'get'],
    ['/admin/jobs/{job_id}', 'get'],
    ['/admin/jobs/{job_id}/retry', 'post'],
    ['/admin/jobs/{job_id}/cancel', 'post'],
    ['/admin/outbox', 'get'],
  ]) {
    const op = spec.paths[path]?.[method];
    assert.ok(op, `${method} ${path}`);
    assert.equal(op.security, [{ staffSession: [] }]);
    assert.equal(op['x-staff-roles'], method === 'get' ? ['onboarding_admin', 'support_readonly'] : ['onboarding_admin']);
  }
});

test.run();
