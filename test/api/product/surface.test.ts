import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { allowlist, type AllowedOperation } from '../../../api/product/allowlist.ts';
import { productRoute } from '../../../api/product/route.ts';
import { AppError } from '../../../lib/errors.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { request } from '../../helpers/http.ts';

// Probe routes of the shared product plumbing. `hidden` is declared but deliberately not allowlisted.
const thingSchema = z.object({ id: z.string(), name: z.string(), count: z.number(), limit: z.number().nullable() });
const probeRoutes = [
  productRoute({
    method: 'post',
    path: '/probe/things/{thing_id}',
    operationId: 'probe_create_thing',
    summary: 'Validation probe',
    tags: ['probe'],
    auth: 'public',
    params: z.object({ thing_id: z.uuid() }),
    query: z.object({ limit: z.coerce.number().int().min(1).max(100).optional() }),
    body: z.object({ name: z.string().min(1), count: z.number().int() }),
    responses: { 201: { description: 'Created', schema: thingSchema } },
    handler: ({ params, query, body }) => ({ status: 201, body: { id: params.thing_id, name: body.name, count: body.count, limit: query.limit ?? null } }),
  }),
  productRoute({
    method: 'get',
    path: '/probe/tenants/{tenant_id}',
    operationId: 'probe_tenant',
    summary: 'AppError probe',
    tags: ['probe'],
    auth: 'public',
    responses: { 404: { description: 'Not found' } },
    handler: () => {
      throw new AppError('not_found', 'Tenant not found.');
    },
  }),
  productRoute({
    method: 'get',
    path: '/probe/boom',
    operationId: 'probe_boom',
    summary: 'Unexpected error probe',
    tags: ['probe'],
    auth: 'public',
    responses: { 200: { description: 'Never' } },
    handler: () => {
      throw new Error('connect ECONNREFUSED 10.1.2.3:5432 (password=hunter2)');
    },
  }),
  productRoute({
    method: 'get',
    path: '/probe/hidden',
    operationId: 'probe_hidden',
    summary: 'Declared but not published',
    tags: ['probe'],
    auth: 'public',
    responses: { 200: { description: 'Should never be reachable' } },
    handler: () => ({ status: 200, body: { secret: true } }),
  }),
];
const probeAllowlist: AllowedOperation[] = [
  { method: 'post', path: '/probe/things/{thing_id}', group: 'observability' },
  { method: 'get', path: '/probe/tenants/{tenant_id}', group: 'observability' },
  { method: 'get', path: '/probe/boom', group: 'observability' },
];

const NOT_FOUND = '{"detail":"Not Found"}';

let t: TestApp;
test.before(async () => {
  t = await startTestApp({ extraProductRoutes: probeRoutes, extraAllowlist: probeAllowlist });
});
test.after(async () => t.close());

test('GET /health and /health/live answer 200', async () => {
  for (const path of ['/health', '/health/live']) {
    const res = await t.product.get(path);
    assert.is(res.status, 200, path);
    assert.equal(res.body, { status: 'ok' });
  }
});

test('GET /health/ready is 200 when the database answers and every migration is applied, 503 when one is missing', async () => {
  const ready = await t.product.get('/health/ready');
  assert.is(ready.status, 200);
  assert.equal(ready.body, { status: 'ready', checks: { database: 'ok', migrations: 'ok' } });

  const { rows } = await t.app.pool.query<{ id: number; name: string; applied_at: Date }>(
    'delete from schema_migrations where id = (select max(id) from schema_migrations) returning *',
  );
  assert.is(rows.length, 1);
  try {
    const notReady = await t.product.get('/health/ready');
    assert.is(notReady.status, 503);
    assert.equal(notReady.body, { detail: { status: 'not_ready', checks: { database: 'ok', migrations: 'pending' } } });
  } finally {
    await t.app.pool.query('insert into schema_migrations (id, name, applied_at) values ($1, $2, $3)', [rows[0].id, rows[0].name, rows[0].applied_at]);
  }
  assert.is((await t.product.get('/health/ready')).status, 200);
});

test('an unknown path and a wrong method on a known path are exactly 404 {"detail":"Not Found"}', async () => {
  const cases: Array<[string, string]> = [
    ['GET', '/nope'],
    ['GET', '/v1/jobs'],
    ['DELETE', '/health'],
    ['POST', '/health/ready'],
    ['PUT', '/health/live'],
    ['OPTIONS', '/health'],
    ['GET', `/probe/things/${randomUUID()}`],
    ['GET', '/HEALTH'],
    ['GET', '/health/'],
  ];
  for (const [method, path] of cases) {
    const res = await t.product.request(method, path);
    assert.is(res.status, 404, `${method} ${path}`);
    assert.is(res.text, NOT_FOUND, `${method} ${path}`);
    assert.match(res.headers.get('content-type') ?? '', 'application/json', `${method} ${path}`);
    assert.is(res.headers.get('allow'), null, `${method} ${path} must not reveal the allowed methods`);
  }
});

test('a request body sent to an unpublished path is still the plain 404, even malformed or too large', async () => {
  const json = { 'content-type': 'application/json' };
  for (const [method, path] of [
    ['POST', '/nope'],
    ['POST', '/health'],
    ['PUT', '/probe/hidden'],
  ]) {
    const malformed = await t.product.request(method, path, { raw: '{"name":', headers: json });
    assert.is(malformed.status, 404, `${method} ${path}`);
    assert.is(malformed.text, NOT_FOUND);
    const huge = await t.product.request(method, path, { raw: JSON.stringify({ name: 'x'.repeat(2_000_000) }), headers: json });
    assert.is(huge.status, 404, `${method} ${path}`);
    assert.is(huge.text, NOT_FOUND);
  }
});

test('a declared route missing from the allowlist is the same 404 and absent from /openapi.json', async () => {
  const hidden = await t.product.get('/probe/hidden');
  const missing = await t.product.get('/probe/absent');
  assert.is(hidden.status, 404);
  assert.is(hidden.text, NOT_FOUND);
  assert.is(hidden.status, missing.status);
  assert.is(hidden.text, missing.text);
  assert.is(hidden.headers.get('content-type'), missing.headers.get('content-type'));

  const spec = await t.product.get('/openapi.json');
  assert.is(spec.status, 200);
  assert.not.ok('/probe/hidden' in spec.body.paths);
  assert.not.ok(JSON.stringify(spec.body).includes('probe_hidden'));
});

test('body validation failures are 422 with detail [{loc, msg, type, input}] located in the body', async () => {
  const res = await t.product.post(`/probe/things/${randomUUID()}`, { count: 'three' });
  assert.is(res.status, 422, res.text);
  assert.ok(Array.isArray(res.body.detail));
  for (const item of res.body.detail) {
    assert.equal(Object.keys(item).sort(), ['input', 'loc', 'msg', 'type']);
    assert.is(item.loc[0], 'body');
  }
  const name = res.body.detail.find((d: { loc: unknown[] }) => d.loc[1] === 'name');
  assert.equal(name, { loc: ['body', 'name'], msg: 'Field required', type: 'missing', input: null });
  const count = res.body.detail.find((d: { loc: unknown[] }) => d.loc[1] === 'count');
  assert.equal(count.loc, ['body', 'count']);
  assert.is(count.input, 'three');
  assert.type(count.msg, 'string');

  const whole = await t.product.request('POST', `/probe/things/${randomUUID()}`);
  assert.is(whole.status, 422);
  assert.equal(whole.body.detail, [{ loc: ['body'], msg: 'Field required', type: 'missing', input: null }]);
});

test('query and path validation failures are 422 located in the query and the path', async () => {
  const query = await t.product.post(`/probe/things/${randomUUID()}?limit=abc`, { name: 'n', count: 1 });
  assert.is(query.status, 422, query.text);
  assert.is(query.body.detail.length, 1);
  assert.equal(query.body.detail[0].loc, ['query', 'limit']);
  assert.is(query.body.detail[0].input, 'abc');

  const tooBig = await t.product.post(`/probe/things/${randomUUID()}?limit=1000`, { name: 'n', count: 1 });
  assert.is(tooBig.status, 422);
  assert.equal(tooBig.body.detail[0], { loc: ['query', 'limit'], msg: 'Input should be less than or equal to 100', type: 'less_than_equal', input: '1000' });

  const path = await t.product.post('/probe/things/not-a-uuid', { name: 'n', count: 1 });
  assert.is(path.status, 422);
  assert.equal(path.body.detail[0].loc, ['path', 'thing_id']);
  assert.is(path.body.detail[0].input, 'not-a-uuid');

  const id = randomUUID();
  const ok = await t.product.post(`/probe/things/${id}?limit=5`, { name: 'n', count: 2 });
  assert.is(ok.status, 201, ok.text);
  assert.equal(ok.body, { id, name: 'n', count: 2, limit: 5 });
});

test('a path parameter that cannot be percent-decoded is 422 located in the path, not a 500', async () => {
  const res = await t.product.post('/probe/things/%ZZ', { name: 'n', count: 1 });
  assert.is(res.status, 422, res.text);
  assert.equal(res.body.detail, [{ loc: ['path'], msg: 'Invalid percent-encoding in the path', type: 'value_error', input: '/probe/things/%ZZ' }]);
});

test('malformed JSON is 422 with a body location; an oversized body is 413', async () => {
  const res = await t.product.request('POST', `/probe/things/${randomUUID()}`, {
    raw: '{"name": "n", "count":',
    headers: { 'content-type': 'application/json' },
  });
  assert.is(res.status, 422, res.text);
  assert.ok(Array.isArray(res.body.detail));
  assert.equal(res.body.detail[0].loc, ['body']);
  assert.is(res.body.detail[0].type, 'json_invalid');

  const huge = await t.product.request('POST', `/probe/things/${randomUUID()}`, {
    raw: JSON.stringify({ name: 'x'.repeat(2_000_000), count: 1 }),
    headers: { 'content-type': 'application/json' },
  });
  assert.is(huge.status, 413);
  assert.is(huge.text, '{"detail":"Request body is too large."}');
});

test('a handler AppError becomes its status with {detail: message}', async () => {
  const res = await t.product.get(`/probe/tenants/${randomUUID()}`);
  assert.is(res.status, 404);
  assert.is(res.text, '{"detail":"Tenant not found."}');
});

test('an unexpected exception is 500 {"detail":"Internal Server Error"} and leaks nothing', async () => {
  const res = await t.product.get('/probe/boom');
  assert.is(res.status, 500);
  assert.is(res.text, '{"detail":"Internal Server Error"}');
  for (const leak of ['hunter2', 'ECONNREFUSED', '10.1.2.3', 'at ']) assert.not.ok(res.text.includes(leak), leak);
  for (const [name, value] of res.headers) assert.not.ok(value.includes('hunter2'), name);
});

test('/openapi.json lists exactly the published operations, and each is routed', async () => {
  const res = await t.product.get('/openapi.json');
  assert.is(res.status, 200);
  assert.is(res.body.openapi, '3.1.0');
  assert.is(res.body.info.version, '1.0.0');
  const documented = Object.entries(res.body.paths as Record<string, Record<string, unknown>>)
    .flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`))
    .sort();
  const published = [...allowlist, ...probeAllowlist].map((op) => `${op.method.toUpperCase()} ${op.path}`).sort();
  assert.equal(documented, published);
  assert.ok(documented.includes('GET /health/ready'));

  for (const op of documented) {
    const [method, template] = op.split(' ');
    const path = template.replace(/\{[^}]+\}/g, randomUUID());
    const answer = await t.product.request(method, path);
    assert.is.not(answer.text, NOT_FOUND, `${op} is documented but not routed`);
  }
});

test('/docs and /redoc are served from local assets only', async () => {
  for (const page of ['/docs', '/redoc']) {
    const res = await t.product.get(page);
    assert.is(res.status, 200, page);
    assert.match(res.headers.get('content-type') ?? '', 'text/html');
    assert.not.match(res.text, /https?:\/\//, `${page} references a remote URL`);
    assert.match(res.text, '/openapi.json');
    const assets = [...res.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    assert.ok(assets.length >= 1, `${page} loads its UI from assets`);
    for (const asset of assets) {
      assert.ok(asset.startsWith('/') && !asset.startsWith('//'), `${page}: ${asset} is not local`);
      const served = await request(t.product.base, 'GET', asset);
      assert.is(served.status, 200, `${page}: ${asset}`);
      assert.ok(served.text.length > 1000, `${page}: ${asset} has content`);
    }
  }
});

test.run();
