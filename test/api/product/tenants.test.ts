import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger } from '../../../lib/logger.ts';
import { migrate } from '../../../sql/migrate.ts';
import { appliedTenantMigrations, tenantMigrationFiles } from '../../../sql/tenant/schema.ts';
import { roleProfiles } from '../../../sql/tenant/roles.ts';
import { eventually, startTestApp, type TestApp } from '../../helpers/app.ts';
import { createTenant, provisionTenant, seedStaff, setTenantState, staffLogin, type ProductClient } from '../../helpers/product.ts';

let t: TestApp;
let admin: ProductClient;
test.before(async () => {
  t = await startTestApp({ worker: true });
  admin = await staffLogin(t);
});
test.after(async () => t.close());

/** Makes failed attempts retry now instead of after graphile-worker's exponential backoff. */
async function hurryRetries() {
  await t.app.pool.query(`update graphile_worker._private_jobs set run_at = now() where locked_at is null and task_id in
    (select id from graphile_worker._private_tasks where identifier = 'tenant__provision')`);
}

test('POST /admin/tenants creates a draft tenant; list and get return it', async () => {
  const res = await admin.post('/admin/tenants', { slug: 'acme-east-2', company: 'Acme East', industry: 'Manufacturing' });
  assert.is(res.status, 201, res.text);
  assert.equal(
    { slug: res.body.slug, company: res.body.company, industry: res.body.industry, lifecycle_state: res.body.lifecycle_state },
    { slug: 'acme-east-2', company: 'Acme East', industry: 'Manufacturing', lifecycle_state: 'draft' },
  );
  assert.match(res.body.id, /^[0-9a-f-]{36}$/);
  const noIndustry = await admin.post('/admin/tenants', { slug: 'bare', company: 'Bare Co' });
  assert.is(noIndustry.status, 201);
  assert.is(noIndustry.body.industry, null);

  const one = await admin.get(`/admin/tenants/${res.body.id}`);
  assert.is(one.status, 200);
  assert.equal(one.body, res.body);
  const list = await admin.get('/admin/tenants');
  assert.is(list.status, 200);
  assert.ok(list.body.some((x: { id: string }) => x.id === res.body.id));
  assert.ok(list.body.some((x: { id: string }) => x.id === noIndustry.body.id));

  const missing = await admin.get(`/admin/tenants/${randomUUID()}`);
  assert.is(missing.status, 404);
  assert.is(missing.text, '{"detail":"Tenant not found."}');
});

test('slug rules: 409 on a duplicate, 422 string detail on the character rule, FastAPI 422 array on length', async () => {
  await createTenant(admin, { slug: 'dupe-co' });
  const dupe = await admin.post('/admin/tenants', { slug: 'dupe-co', company: 'Another' });
  assert.is(dupe.status, 409);
  assert.is(dupe.text, `{"detail":"Tenant slug 'dupe-co' already exists."}`);

  for (const slug of ['-lead', 'trail-', 'Upper', 'under_score', 'sp ace', 'dot.ted', 'ünï']) {
    const res = await admin.post('/admin/tenants', { slug, company: 'X' });
    assert.is(res.status, 422, slug);
    assert.type(res.body.detail, 'string', slug);
    assert.match(res.body.detail, 'lowercase');
  }
  const short = await admin.post('/admin/tenants', { slug: 'ab', company: 'X' });
  assert.is(short.status, 422);
  assert.equal(short.body.detail, [{ loc: ['body', 'slug'], msg: 'String should have at least 3 characters', type: 'string_too_short', input: 'ab' }]);
  const long = await admin.post('/admin/tenants', { slug: 'a'.repeat(64), company: 'X' });
  assert.is(long.status, 422);
  assert.equal(long.body.detail[0].type, 'string_too_long');
  assert.equal(long.body.detail[0].loc, ['body', 'slug']);
  assert.is((await admin.post('/admin/tenants', { slug: 'a'.repeat(63), company: 'X' })).status, 201);
  assert.is((await admin.post('/admin/tenants', { slug: 'a1b', company: 'X' })).status, 201);
  const noCompany = await admin.post('/admin/tenants', { slug: 'no-company' });
  assert.is(noCompany.status, 422);
  assert.equal(noCompany.body.detail[0].loc, ['body', 'company']);
});

test('provision: 202 queued with a durable job, the schema gets the tenant migrations and role profiles, state ends onboarding', async () => {
  const tenant = await createTenant(admin);
  const before = await admin.get(`/admin/tenants/${tenant.id}/provision/status`);
  assert.is(before.status, 200);
  assert.equal(before.body, { status: 'not_started', progress: 0, steps_completed: [], error_detail: null });

  const queued = await admin.post(`/admin/tenants/${tenant.id}/provision`);
  assert.is(queued.status, 202, queued.text);
  assert.is(queued.body.status, 'queued');
  const { rows: jobs } = await t.app.pool.query('select id, job_key, tenant_id from job_runs where id = $1', [queued.body.job_id]);
  assert.equal(jobs[0], { id: queued.body.job_id, job_key: `provision:${tenant.id}`, tenant_id: tenant.id });

  const done = await eventually(async () => {
    const res = await admin.get(`/admin/tenants/${tenant.id}/provision/status`);
    return res.body.status === 'succeeded' ? res.body : undefined;
  }, 30_000);
  assert.equal(done, {
    status: 'succeeded',
    progress: 100,
    steps_completed: ['create_schema', 'apply_migrations', 'seed_role_profiles', 'seed_defaults'],
    error_detail: null,
  });
  assert.is((await admin.get(`/admin/tenants/${tenant.id}`)).body.lifecycle_state, 'onboarding');

  const schema = `tenant_${tenant.id.replaceAll('-', '')}`;
  assert.equal(
    await appliedTenantMigrations(t.app.pool, schema),
    tenantMigrationFiles().map((f) => f.name),
  );
  const { rows: profiles } = await t.app.pool.query(`select name, permissions from "${schema}".role_profiles order by name`);
  assert.equal(
    profiles.map((p) => p.name),
    ['admin', 'analyst', 'viewer'],
  );
  assert.equal(profiles.find((p) => p.name === 'admin').permissions, [...roleProfiles.admin].sort());
  const { rows: policy } = await t.app.pool.query(`select retention_days, redact_pii from "${schema}".data_policy`);
  assert.equal(policy, [{ retention_days: null, redact_pii: false }], 'seed_defaults records the default data policy');

  // A repeat (onboarding is a provisionable state) returns the same job in the spec's shape `{status: queued, job_id}`;
  // the status route tells how it fared.
  const again = await admin.post(`/admin/tenants/${tenant.id}/provision`);
  assert.is(again.status, 202);
  assert.equal(again.body, { status: 'queued', job_id: queued.body.job_id });
  assert.is((await admin.get(`/admin/tenants/${tenant.id}/provision/status`)).body.status, 'succeeded');
});

test('provision in any other state is 409 with the exact text; unknown tenant 404; support_readonly 403; CSRF required', async () => {
  const tenant = await createTenant(admin);
  for (const state of ['live', 'offboarded'] as const) {
    await setTenantState(t, tenant.id, state);
    const res = await admin.post(`/admin/tenants/${tenant.id}/provision`);
    assert.is(res.status, 409);
    assert.is(res.text, `{"detail":"Tenant is '${state}'; provisioning only applies to draft/onboarding tenants."}`);
  }
  const { rowCount } = await t.app.pool.query('select 1 from job_runs where job_key = $1', [`provision:${tenant.id}`]);
  assert.is(rowCount, 0, 'no job was queued');
  assert.is((await admin.post(`/admin/tenants/${randomUUID()}/provision`)).status, 404);
  assert.is((await admin.get(`/admin/tenants/${randomUUID()}/provision/status`)).text, '{"detail":"Tenant not found."}');

  const reader = await staffLogin(t, await seedStaff(t, { role: 'support_readonly' }));
  const denied = await reader.post(`/admin/tenants/${tenant.id}/provision`);
  assert.is(denied.status, 403);
  assert.is(denied.body.detail, "Requires one of ('onboarding_admin',), has 'support_readonly'.");
  assert.is((await reader.get(`/admin/tenants/${tenant.id}/provision/status`)).status, 200);
  const noCsrf = await admin.post(`/admin/tenants/${tenant.id}/provision`, undefined, { noCsrf: true });
  assert.is(noCsrf.status, 403);
  assert.is(noCsrf.body.detail, 'CSRF token missing or mismatched.');
});

test('provisioning resumes after a partial failure: the schema step stays done, the failing migration is retried', async () => {
  const tenant = await createTenant(admin);
  const schema = `tenant_${tenant.id.replaceAll('-', '')}`;
  // Injected failure: a table in the way of the first tenant migration.
  await t.app.pool.query(`create schema "${schema}"; create table "${schema}".audit_log (x int)`);

  const queued = await admin.post(`/admin/tenants/${tenant.id}/provision`);
  const failedOnce = await eventually(async () => {
    const res = await admin.get(`/admin/tenants/${tenant.id}/provision/status`);
    return res.body.error_detail ? res.body : undefined;
  }, 30_000);
  assert.is(failedOnce.status, 'queued', 'a transient failure is retried');
  assert.equal(failedOnce.steps_completed, ['create_schema']);
  assert.match(failedOnce.error_detail, /^Internal error; the server log holds the details under trace id job:/, 'no SQL or schema names shown');
  assert.is((await admin.get(`/admin/tenants/${tenant.id}`)).body.lifecycle_state, 'provisioning');
  assert.equal(await appliedTenantMigrations(t.app.pool, schema), []);

  await t.app.pool.query(`drop table "${schema}".audit_log`);
  await hurryRetries();
  const done = await eventually(async () => {
    const res = await admin.get(`/admin/tenants/${tenant.id}/provision/status`);
    return res.body.status === 'succeeded' ? res.body : undefined;
  }, 30_000);
  assert.equal(done.steps_completed, ['create_schema', 'apply_migrations', 'seed_role_profiles', 'seed_defaults']);
  assert.is(done.error_detail, null);
  assert.is((await admin.get(`/admin/tenants/${tenant.id}`)).body.lifecycle_state, 'onboarding');
  const { rows } = await t.app.pool.query('select id, attempts from job_runs where job_key = $1', [`provision:${tenant.id}`]);
  assert.is(rows[0].id, queued.body.job_id);
  assert.is(rows[0].attempts, 2);
});

test('a provisioning that keeps failing ends failed with error_detail; provisioning again re-queues the same job', async () => {
  const tenant = await createTenant(admin);
  const schema = `tenant_${tenant.id.replaceAll('-', '')}`;
  await t.app.pool.query(`create schema "${schema}"; create table "${schema}".users (x int)`);
  const queued = await admin.post(`/admin/tenants/${tenant.id}/provision`);
  const failed = await eventually(async () => {
    await hurryRetries();
    const res = await admin.get(`/admin/tenants/${tenant.id}/provision/status`);
    return res.body.status === 'failed' ? res.body : undefined;
  }, 45_000);
  assert.match(failed.error_detail, /^Internal error; the server log holds the details under trace id job:/);
  assert.equal(failed.steps_completed, ['create_schema']);
  assert.is((await admin.get(`/admin/tenants/${tenant.id}`)).body.lifecycle_state, 'provisioning');

  await t.app.pool.query(`drop table "${schema}".users`);
  const again = await admin.post(`/admin/tenants/${tenant.id}/provision`);
  assert.is(again.status, 202);
  assert.equal(again.body, { status: 'queued', job_id: queued.body.job_id }, 'the failed job is queued again');
  await provisionTenant(t, admin, tenant.id);
  assert.is((await admin.get(`/admin/tenants/${tenant.id}`)).body.lifecycle_state, 'onboarding');
});

test('every tenant gets its own schema: two tenants never share rows', async () => {
  const a = await createTenant(admin);
  const b = await createTenant(admin);
  await provisionTenant(t, admin, a.id);
  await provisionTenant(t, admin, b.id);
  const schemaA = `tenant_${a.id.replaceAll('-', '')}`;
  const schemaB = `tenant_${b.id.replaceAll('-', '')}`;
  await t.app.pool.query(`insert into "${schemaA}".users (email, password_hash) values ('only-a@client.test', 'x')`);
  const { rows } = await t.app.pool.query(`select count(*)::int as n from "${schemaB}".users`);
  assert.is(rows[0].n, 0);
});

test('svc migrate brings existing tenant schemas up to the tenant migrations of the code', async () => {
  const tenant = await createTenant(admin);
  await provisionTenant(t, admin, tenant.id);
  const schema = `tenant_${tenant.id.replaceAll('-', '')}`;
  // As if the tenant had been provisioned by a release that had none of today's tenant migrations.
  await t.app.pool.query(`drop schema "${schema}" cascade; create schema "${schema}";
    create table "${schema}".tenant_migrations (id integer primary key, name text not null, applied_at timestamptz not null default now())`);

  const { applied } = await migrate(t.app.pool, createLogger('silent'));
  assert.equal(
    applied.filter((name) => name.startsWith(schema)),
    tenantMigrationFiles().map((f) => `${schema}/${f.name}`),
  );
  assert.equal(
    await appliedTenantMigrations(t.app.pool, schema),
    tenantMigrationFiles().map((f) => f.name),
  );
  assert.equal((await migrate(t.app.pool, createLogger('silent'))).applied, [], 'idempotent');
});

test.run();

test('422 items use pydantic’s vocabulary and the spec’s key order {loc, msg, type, input} on real routes', async () => {
  const notObject = await admin.post('/admin/login', []);
  assert.is(notObject.status, 422);
  assert.equal(notObject.body.detail, [
    { loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', type: 'model_attributes_type', input: [] },
  ]);
  assert.equal(Object.keys(notObject.body.detail[0]), ['loc', 'msg', 'type', 'input']);

  const badPath = await admin.get('/admin/tenants/acme/provision/status');
  assert.is(badPath.status, 422);
  assert.equal(badPath.body.detail, [{ loc: ['path', 'tenant_id'], msg: 'Input should be a valid UUID', type: 'uuid_parsing', input: 'acme' }]);

  const tenant = await createTenant(admin);
  const wrongTypes = await admin.post(`/admin/tenants/${tenant.id}/train`, { retry_terminal: 'yes' });
  assert.equal(wrongTypes.body.detail, [{ loc: ['body', 'retry_terminal'], msg: 'Input should be a valid boolean', type: 'bool_type', input: 'yes' }]);
  const policy = await admin.put(`/admin/tenants/${tenant.id}/data-policy`, { retention_days: 'ten', redact_pii: [] });
  assert.equal(
    policy.body.detail.map((d: { loc: string[]; type: string }) => [d.loc.join('.'), d.type]),
    [
      ['body.retention_days', 'float_type'],
      ['body.redact_pii', 'bool_type'],
    ],
  );
  const fraction = await admin.put(`/admin/tenants/${tenant.id}/data-policy`, { retention_days: 1.5 });
  assert.equal(fraction.body.detail[0].loc, ['body', 'retention_days']);
  assert.is(fraction.body.detail[0].type, 'int_type');
});
