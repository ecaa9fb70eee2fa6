/**
 * The cross-tenant matrix of the product surface (issue 18), next to the /v1 one in crossTenant.test.ts.
 * Tenant B is given one of everything (a trained model and its patterns, records, sources, an upload,
 * CAPs in each state, a pending and a decided review, an invitation); B's ids are read from every uuid
 * column of B's schema, so a resource added later is probed too. Then a signed-in user of tenant A (by
 * login, and by a staff impersonation session) sends every published route that takes an id, in a path
 * parameter, a query filter or a body field, with each of B's ids. The route list comes from the route
 * table (api/product/routes.ts filtered by the allowlist); a new route with an id input fails the test
 * until it has a recipe below.
 *
 * Every answer must be what an id that exists nowhere gets (same status and body, the id aside), must
 * not name anything of B, and on a path id must be 404 (403 at most, never data); staff routes answer
 * A's tenant cookie 401. Afterwards B's rows are byte for byte what they were, A holds no trace of B's
 * ids, and A's own ids still work through the same requests (so the 404s are lookups, not bad input).
 */
import { randomUUID } from 'node:crypto';
import ExcelJS from 'exceljs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { publishedRoutes } from '../../../api/product/app.ts';
import type { ProductRoute } from '../../../api/product/route.ts';
import { productRoutes } from '../../../api/product/routes.ts';
import { findTenant } from '../../../sql/tenants.ts';
import { withTenant } from '../../../sql/tenant/schema.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import type { HttpResponse } from '../../helpers/http.ts';
import { recordsCsv, syntheticRecords, trainedTenant, uploadFile } from '../../helpers/onboarding.ts';
import {
  createTenant,
  createTenantUser,
  provisionTenant,
  ProductClient,
  setTenantState,
  staffLogin,
  tenantLogin,
  type TenantBody,
} from '../../helpers/product.ts';

/** Everything of B carries this in its name, slug, e-mail or text: an answer to A must never show it. */
const B_MARK = /beta.?secret/i;
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

let t: TestApp;
test.before(async () => {
  // TRUST_PROXY: every cookie jar sends its own client address, so logins stay within their budget.
  t = await startTestApp({ worker: true, env: { TRUST_PROXY: '1' } });
});
test.after(async () => t.close());

type Staff = Awaited<ReturnType<typeof staffLogin>>;

interface Tenant {
  tenant: TenantBody;
  schema: string;
  user: { id: string; email: string; password: string };
  client: ProductClient;
}

async function liveTenantNamed(staff: Staff, company: string, slugPrefix: string): Promise<Tenant> {
  const tenant = await createTenant(staff, { slug: `${slugPrefix}-${randomUUID().slice(0, 8)}`, company });
  await provisionTenant(t, staff, tenant.id);
  const user = await createTenantUser(t, tenant.id, { email: `${slugPrefix}-admin@${slugPrefix}.test`, fullName: `${company} admin` });
  await setTenantState(t, tenant.id, 'live');
  const schema = (await findTenant(t.app.pool, tenant.id))!.schema_name;
  return { tenant, schema, user, client: await tenantLogin(t, tenant.slug, user.email, user.password) };
}

function expectStatus(res: HttpResponse, status: number, what: string): HttpResponse {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${res.text}`);
  return res;
}

/** A draft CAP, optionally submitted (which opens a review) and the review decided. */
async function cap(client: ProductClient, body: Record<string, unknown>, submit: boolean, decide?: 'approved' | 'rejected') {
  const created = expectStatus(await client.post('/remediation/caps', body), 201, 'create CAP').body;
  if (!submit) return created;
  expectStatus(await client.patch(`/remediation/caps/${created.id}`, { expected_version: 1, status: 'submitted' }), 200, 'submit CAP');
  if (decide) {
    const reviews = (await client.get(`/remediation/reviews?target_type=${body.target_type}&target_id=${body.target_id}`)).body;
    const review = reviews.find((r: { cap_id: string }) => r.cap_id === created.id);
    expectStatus(await client.patch(`/remediation/reviews/${review.id}`, { decision: decide, comment: 'Beta secret decision' }), 200, 'decide');
  }
  return created;
}

const uuidColumns = async (schema: string) =>
  (
    await t.app.pool.query<{ table_name: string; column_name: string }>(
      `select c.table_name, c.column_name from information_schema.columns c
         join information_schema.tables tb on tb.table_schema = c.table_schema and tb.table_name = c.table_name and tb.table_type = 'BASE TABLE'
        where c.table_schema = $1 and c.udt_name = 'uuid' order by 1, 2`,
      [schema],
    )
  ).rows;

/** Distinct values of every uuid column of a tenant schema (at most `perColumn` each). */
async function schemaIds(schema: string, perColumn = Number.MAX_SAFE_INTEGER): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const { table_name, column_name } of await uuidColumns(schema)) {
    const { rows } = await t.app.pool.query(
      `select distinct "${column_name}"::text as v from "${schema}"."${table_name}" where "${column_name}" is not null order by 1 limit ${Math.min(perColumn, 1_000_000)}`,
    );
    for (const r of rows) ids.add(r.v);
  }
  return ids;
}

/** Every row of every table of a tenant schema, as text: what "B's rows did not change" compares. */
async function schemaDump(schema: string): Promise<string> {
  const { rows: tables } = await t.app.pool.query<{ table_name: string }>(
    `select table_name from information_schema.tables where table_schema = $1 and table_type = 'BASE TABLE' order by 1`,
    [schema],
  );
  const out: string[] = [];
  for (const { table_name } of tables) {
    const { rows } = await withTenant(t.app.pool, schema, (db) => db.query(`select * from "${table_name}"`));
    out.push(`${table_name}: ${JSON.stringify(rows.map((r) => JSON.stringify(r)).sort())}`);
  }
  return out.join('\n');
}

/** A tenant's control-plane row and the ids of its jobs. */
const controlRow = async (tenantId: string) =>
  (
    await t.app.pool.query(
      `select row_to_json(x)::text as row from (
         select id, slug, company, lifecycle_state, updated_at, (select array_agg(id order by id) from job_runs where tenant_id = tenants.id) as jobs
           from tenants where id = $1) x`,
      [tenantId],
    )
  ).rows[0].row as string;

/** The answer's text; a spreadsheet is unpacked to its cell values (its zip would hide any name). */
async function readable(client: ProductClient, path: string): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = { 'x-forwarded-for': client.ip, cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
  const res = await fetch(client.base + path, { headers });
  const bytes = Buffer.from(await res.arrayBuffer());
  if (!(res.headers.get('content-type') ?? '').startsWith(XLSX)) return { status: res.status, text: bytes.toString('utf8') };
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  const cells: string[] = [];
  workbook.eachSheet((sheet) => sheet.eachRow((row) => cells.push(JSON.stringify(row.values))));
  return { status: res.status, text: cells.join('\n') };
}

// ---------------------------------------------------------------------------------------------------
// How to call each route that takes an id. Keyed by operationId; the test fails for a published route
// that takes an id (path parameter, query or body field named `id`/`*_id`) and has no recipe here.

interface Recipe {
  /** A valid JSON body for a route with path parameters (so the request reaches the lookup). */
  body?: Record<string, unknown>;
  /** A valid multipart body for an upload route. */
  multipart?: () => FormData;
  /** Query strings carrying `id` in an id filter. */
  idQueries?: (id: string) => Record<string, string>[];
  /** Bodies carrying `id` in an id field (sent to A's own resource when the route has a path id). */
  idBodies?: (id: string) => Record<string, unknown>[];
}

const csvForm = () => {
  const form = new FormData();
  form.append('file', new Blob([recordsCsv(syntheticRecords(2, 77, 1, 'tenant-a-probe'))]), 'a.csv');
  return form;
};

const recipes: Record<string, Recipe> = {
  update_cap: { body: { expected_version: 1, title: 'Renamed by tenant A' }, idBodies: (id) => [{ expected_version: 1, owner_user_id: id }] },
  decide_review: { body: { decision: 'approved', comment: 'tenant A decides' } },
  upload_to_source: { multipart: csvForm },
  list_caps: {
    idQueries: (id): Record<string, string>[] => [{ target_id: id }, { target_type: 'source', target_id: id }, { target_type: 'pattern', target_id: id }],
  },
  // A's own active snapshot filtered by B's pattern: the empty answer of an unknown pattern.
  insight_snapshot: { idQueries: (id): Record<string, string>[] => [{ pattern_id: id }, { pattern_id: id, view: 'summary' }] },
  list_reviews: { idQueries: (id): Record<string, string>[] => [{ target_id: id }, { target_type: 'source', target_id: id }] },
  create_cap: {
    idBodies: (id) => [
      { target_type: 'pattern', target_id: id, title: 'Tenant A probes a pattern' },
      { target_type: 'record', target_id: id, title: 'Tenant A probes a record' },
      { target_type: 'source', target_id: id, title: 'Tenant A probes a source' },
      { target_type: 'other', target_id: 'tenant-a-asset', title: 'Tenant A probes an owner', owner_user_id: id },
    ],
  },
};

const shapeOf = (schema: unknown): Record<string, unknown> => (schema as { shape?: Record<string, unknown> } | undefined)?.shape ?? {};
const idKeys = (schema: unknown) => Object.keys(shapeOf(schema)).filter((k) => k === 'id' || k.endsWith('_id'));
const pathParams = (route: ProductRoute) => [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);

interface Call {
  method: string;
  path: string;
  body?: unknown;
  raw?: FormData;
}

interface Probe {
  what: string;
  route: ProductRoute;
  call(id: string): Call;
  /** Statuses allowed for B's ids. */
  statuses: number[];
  /** Only these of B's ids (default: all). */
  only?: string[];
}

const withQuery = (path: string, query: Record<string, string>) => `${path}?${new URLSearchParams(query)}`;

/**
 * The probes of every published route that takes an id, from the route table. `own` names a resource
 * of A per path parameter: a body id is probed on A's own resource, so that the body is what is looked up.
 */
function probesOf(routes: ProductRoute[], own: Record<string, string>, bTenantId: string): Probe[] {
  const probes: Probe[] = [];
  for (const route of routes) {
    const recipe = recipes[route.operationId] ?? {};
    const method = route.method.toUpperCase();
    const name = `${method} ${route.path}`;
    const params = pathParams(route);
    if (params.length && route.auth === 'staff') {
      // Staff routes mean nothing to a tenant cookie: 401 before any lookup, whichever tenant is named
      // (B's tenant id, and B's ids in any other parameter).
      const onlyTenant = params.every((p) => p === 'tenant_id');
      probes.push({
        what: name,
        route,
        call: (id) => ({ method, path: route.path.replace(/\{([^}]+)\}/g, (_, p: string) => (p === 'tenant_id' && !onlyTenant ? bTenantId : id)) }),
        statuses: [401],
        only: onlyTenant ? [bTenantId] : undefined,
      });
    } else if (params.length) {
      const multipart = route.bodyContentType === 'multipart/form-data';
      if (multipart) assert.ok(recipe.multipart, `${name} takes an id and a file: add a multipart recipe to crossTenantProduct.test.ts`);
      else if (route.body) {
        assert.ok(recipe.body, `${name} takes an id and a body: add a valid body recipe to crossTenantProduct.test.ts`);
        assert.ok(route.body.safeParse(recipe.body).success, `the body recipe of ${name} does not pass its schema`);
      }
      probes.push({
        what: name,
        route,
        call: (id) => ({
          method,
          path: route.path.replace(/\{[^}]+\}/g, id),
          ...(multipart ? { raw: recipe.multipart!() } : route.body ? { body: recipe.body } : {}),
        }),
        statuses: [403, 404],
      });
    }
    if (route.auth !== 'tenant') continue;
    if (idKeys(route.query).length) {
      assert.ok(recipe.idQueries, `${name} filters by ${idKeys(route.query)}: add idQueries to crossTenantProduct.test.ts`);
      recipe.idQueries!('x').forEach((_, i) =>
        probes.push({ what: `${name} query #${i}`, route, call: (id) => ({ method, path: withQuery(route.path, recipe.idQueries!(id)[i]) }), statuses: [200] }),
      );
    }
    if (idKeys(route.body).length) {
      assert.ok(recipe.idBodies, `${name} takes ${idKeys(route.body)} in its body: add idBodies to crossTenantProduct.test.ts`);
      recipe.idBodies!(randomUUID()).forEach((body, i) => {
        assert.ok(route.body!.safeParse(body).success, `idBodies #${i} of ${name} does not pass its schema`);
        const path = route.path.replace(/\{([^}]+)\}/g, (_, param: string) => {
          assert.ok(own[param], `no resource of A for {${param}} of ${name}: add one to the test`);
          return own[param];
        });
        probes.push({ what: `${name} body #${i}`, route, call: (id) => ({ method, path, body: recipe.idBodies!(id)[i] }), statuses: [404, 422] });
      });
    }
  }
  for (const operationId of Object.keys(recipes)) {
    assert.ok(
      routes.some((r) => r.operationId === operationId),
      `recipe ${operationId} names no published route`,
    );
  }
  return probes;
}

const send = (client: ProductClient, call: Call) => client.request(call.method, call.path, call.raw ? { raw: call.raw } : { body: call.body });
const normalised = (res: HttpResponse, id: string) => `${res.status} ${res.text.split(id).join('<id>')}`;

test("A's users against every id of B on every product route that takes one: the unknown-id answer, never B's data", async () => {
  const staff = await staffLogin(t);
  const a = await liveTenantNamed(staff, 'Alpha Works', 'tenant-a');
  const b = await liveTenantNamed(staff, 'Beta Secret Works', 'beta-secret');

  // B: a trained model (checkpoint, patterns, records), sources, an upload, CAPs in each state, reviews, an invitation.
  await trainedTenant(t, staff, b.tenant.id, syntheticRecords(80, 42, 3, 'beta-secret-system'));
  const bPattern = (await b.client.get('/insights/snapshot')).body.patterns[0].id as string;
  const bSource = expectStatus(await b.client.post('/sources', { name: 'Beta secret uploads', kind: 'file_upload' }), 201, 'B source').body;
  expectStatus(await b.client.post('/sources', { name: 'Beta secret feed', kind: 'api' }), 201, 'B api source');
  const bUpload = await uploadFile(b.client, `/sources/${bSource.id}/upload`, 'beta.csv', recordsCsv(syntheticRecords(3, 43, 1, 'beta-secret-upload')));
  expectStatus(bUpload, 201, 'B upload');
  const bAnalyst = await createTenantUser(t, b.tenant.id, { email: 'beta-secret-analyst@beta-secret.test', roleProfile: 'analyst' });
  const onSource = { target_type: 'source', target_id: bSource.id };
  await cap(b.client, { ...onSource, title: 'Beta secret draft', problem_statement: 'Beta secret problem', owner_user_id: bAnalyst.id }, false);
  await cap(b.client, { ...onSource, title: 'Beta secret submitted' }, true);
  await cap(b.client, { ...onSource, title: 'Beta secret approved' }, true, 'approved');
  await cap(b.client, { target_type: 'pattern', target_id: bPattern, title: 'Beta secret on a pattern' }, true, 'rejected');
  expectStatus(
    await staff.post(`/admin/tenants/${b.tenant.id}/invite`, { email: 'beta-secret-invitee@beta-secret.test', role_profile: 'viewer' }),
    201,
    'B invitation',
  );

  // A: its own source, a draft CAP and a CAP waiting for review, for the positive controls.
  const aSource = expectStatus(await a.client.post('/sources', { name: 'Alpha uploads', kind: 'file_upload' }), 201, 'A source').body;
  const aDraft = await cap(a.client, { target_type: 'source', target_id: aSource.id, title: 'Alpha draft' }, false);
  const aSubmitted = await cap(a.client, { target_type: 'source', target_id: aSource.id, title: 'Alpha submitted' }, true);
  const aReview = (await a.client.get('/remediation/reviews')).body.find((r: { cap_id: string }) => r.cap_id === aSubmitted.id);

  // A second caller of A: a staff impersonation session, holding only the tenant cookie (and its CSRF value).
  const impersonating = await staffLogin(t);
  expectStatus(await impersonating.post(`/admin/tenants/${a.tenant.id}/impersonate`), 200, 'impersonate A');
  const impersonated = new ProductClient(t.product.base);
  for (const name of ['svc_tenant_session', 'svc_csrf']) impersonated.cookies.set(name, impersonating.cookies.get(name)!);
  assert.is((await impersonated.get('/me')).body.workspace, a.tenant.slug);

  // B's ids: every uuid of B's schema, and B's tenant id, less what is not B's (staff ids, anything also in A).
  const shared = new Set([...(await schemaIds(a.schema)), ...(await t.app.pool.query('select id::text as id from employees')).rows.map((r) => r.id)]);
  const named = [b.tenant.id, bPattern, bSource.id, bUpload.body.id, bAnalyst.id, b.user.id];
  const bIds = [...new Set([...named, ...(await schemaIds(b.schema, 2))])].filter((id) => !shared.has(id));
  assert.ok(bIds.length >= 25, `only ${bIds.length} ids of B`);

  const bRowsBefore = await schemaDump(b.schema);
  const bControlBefore = await controlRow(b.tenant.id);

  const routes = publishedRoutes(productRoutes);
  const own: Record<string, string> = { cap_id: aDraft.id, review_id: aReview.id, source_id: aSource.id };
  const probes = probesOf(routes, own, b.tenant.id);
  const probed = new Set(probes.map((p) => p.route.operationId));
  for (const id of ['update_cap', 'decide_review', 'upload_to_source', 'list_caps', 'list_reviews', 'create_cap']) assert.ok(probed.has(id), `${id} is probed`);
  assert.ok(probes.filter((p) => p.route.auth === 'staff').length >= 15, 'the staff routes are probed');

  let checked = 0;
  for (const [who, caller] of [
    ['A user', a.client],
    ['A impersonated', impersonated],
  ] as const) {
    // The impersonation session is a tenant cookie like the other: the staff routes' 401 is checked once.
    for (const probe of probes.filter((p) => who === 'A user' || p.route.auth !== 'staff')) {
      const unknown = randomUUID();
      const baseline = await send(caller, probe.call(unknown));
      for (const id of probe.only ?? bIds) {
        const res = await send(caller, probe.call(id));
        const what = `${who}: ${probe.what} with B's ${id}`;
        assert.ok(probe.statuses.includes(res.status), `${what}: ${res.status} ${res.text.slice(0, 300)}`);
        assert.is(normalised(res, id), normalised(baseline, unknown), `${what} answers differently from an unknown id`);
        assert.not.match(res.text, B_MARK, `${what} names B: ${res.text.slice(0, 300)}`);
        const leaked = bIds.find((other) => other !== id && res.text.includes(other));
        assert.not.ok(leaked, `${what} shows B's ${leaked}`);
        if (probe.route.auth === 'staff') assert.equal(res.body, { detail: 'No employee session.' }, what);
        checked++;
      }
    }
  }
  assert.ok(checked >= 20 * bIds.length, `only ${checked} requests`);

  // Routes without an id input still answer A only with A's data (the export unpacked).
  for (const route of routes.filter((r) => r.auth === 'tenant' && r.method === 'get')) {
    for (const [who, caller] of [
      ['A user', a.client],
      ['A impersonated', impersonated],
    ] as const) {
      const res = await readable(caller, route.path);
      assert.ok(res.status < 500, `${who}: GET ${route.path}: ${res.status}`);
      assert.not.match(res.text, B_MARK, `${who}: GET ${route.path} names B`);
      const leaked = bIds.find((id) => res.text.includes(id));
      assert.not.ok(leaked, `${who}: GET ${route.path} shows B's ${leaked}`);
    }
  }

  // A's session token presented under B's slug is no session at all, on every tenant route.
  const forged = new ProductClient(t.product.base);
  forged.cookies.set('svc_tenant_session', a.client.cookies.get('svc_tenant_session')!.replace(`${a.tenant.slug}:`, `${b.tenant.slug}:`));
  forged.cookies.set('svc_csrf', a.client.cookies.get('svc_csrf')!);
  for (const route of routes.filter((r) => r.auth === 'tenant')) {
    const res = await forged.request(route.method.toUpperCase(), route.path.replace(/\{[^}]+\}/g, bSource.id), {
      body: route.method === 'get' ? undefined : {},
    });
    assert.is(res.status, 401, `${route.method.toUpperCase()} ${route.path} with A's token under B's slug: ${res.status} ${res.text}`);
    assert.equal(res.body, { detail: 'Tenant session expired or revoked.' });
  }

  // Nothing of B changed, and A holds no trace of B's ids.
  assert.fixture(await schemaDump(b.schema), bRowsBefore);
  assert.is(await controlRow(b.tenant.id), bControlBefore);
  const aRows = await schemaDump(a.schema);
  const trace = bIds.find((id) => aRows.includes(id));
  assert.not.ok(trace, `A's rows hold B's id ${trace}`);

  // Positive controls: the same requests with A's own ids reach A's resources.
  for (const probe of probes.filter((p) => p.route.auth === 'tenant' && pathParams(p.route).length && !p.what.includes(' body #'))) {
    const [param] = pathParams(probe.route);
    assert.ok(own[param], `no resource of A for {${param}}: add one to the positive controls`);
    const res = await send(a.client, probe.call(own[param]));
    assert.ok(res.status >= 200 && res.status < 300, `${probe.what} with A's own ${param}: ${res.status} ${res.text.slice(0, 300)}`);
  }
  const ownFilter = await a.client.get(withQuery('/remediation/caps', { target_type: 'source', target_id: aSource.id }));
  assert.equal(ownFilter.body.map((c: { id: string }) => c.id).sort(), [aDraft.id, aSubmitted.id].sort());
  const ownTarget = await a.client.post('/remediation/caps', {
    target_type: 'source',
    target_id: aSource.id,
    title: 'Alpha on its own source',
    owner_user_id: a.user.id,
  });
  assert.is(ownTarget.status, 201, ownTarget.text);
});

test.run();
