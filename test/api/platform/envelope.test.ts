/**
 * The /v1 plumbing every client relies on: X-Request-Id, the error envelope
 * `{error: {code, message, trace_id, details?}}` (trace_id equal to X-Request-Id), 404 for unknown
 * routes, 400 `validation_error` with dot-path details, 500 `internal_error` that leaks nothing,
 * 401 `unauthorized` and 403 `forbidden`.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { reply } from '../../../api/http/routes.ts';
import { platformRoute } from '../../../api/platform/route.ts';
import { demoToken, startTestApp, type TestApp } from '../../helpers/app.ts';
import type { HttpResponse } from '../../helpers/http.ts';

const SECRET_DETAIL = 'db password hunter2 at /srv/internal/secret.ts';

const probes = [
  platformRoute({
    method: 'post',
    path: '/v1/test-probe/validate',
    operationId: 'probeValidate',
    summary: 'Validation probe',
    tags: ['test'],
    auth: 'public',
    query: z.object({ n: z.coerce.number({ error: 'must be a number' }).int('must be an integer').optional() }),
    body: z.object({
      records: z
        .array(
          z.object({
            title: z.string({ error: 'must be a string' }).min(1, 'must not be empty'),
            severity: z.enum(['low', 'high'], { error: 'must be low or high' }),
          }),
        )
        .min(1, 'must hold at least one record'),
      meta: z.object({ source: z.string({ error: 'is required' }) }),
    }),
    responses: { 200: { description: 'Accepted', schema: z.object({ ok: z.literal(true), count: z.number() }) } },
    handler: ({ body }) => reply.ok({ ok: true, count: body.records.length }),
  }),
  platformRoute({
    method: 'get',
    path: '/v1/test-probe/boom',
    operationId: 'probeBoom',
    summary: 'Throws an unexpected error',
    tags: ['test'],
    auth: 'public',
    responses: { 200: { description: 'Never' } },
    handler: async () => {
      await Promise.resolve();
      throw new TypeError(SECRET_DETAIL);
    },
  }),
  platformRoute({
    method: 'get',
    path: '/v1/test-probe/boom-sync',
    operationId: 'probeBoomSync',
    summary: 'Throws a non-Error value synchronously',
    tags: ['test'],
    auth: 'public',
    responses: { 200: { description: 'Never' } },
    handler: () => {
      throw { message: SECRET_DETAIL, stack: SECRET_DETAIL };
    },
  }),
];

let t: TestApp;
let token: string;
test.before(async () => {
  t = await startTestApp({ extraPlatformRoutes: probes });
  token = await demoToken(t);
});
test.after(async () => t.close());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Asserts the envelope shape, status and code, and that trace_id equals X-Request-Id. */
function assertEnvelope(res: HttpResponse, status: number, code: string) {
  assert.is(res.status, status, res.text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.type(res.body, 'object');
  assert.equal(Object.keys(res.body), ['error']);
  const { error } = res.body;
  assert.is(error.code, code);
  assert.type(error.message, 'string');
  assert.ok(error.message.length > 0);
  assert.type(error.trace_id, 'string');
  assert.is(error.trace_id, res.headers.get('x-request-id'));
  const allowed = ['code', 'message', 'trace_id', 'details'];
  for (const key of Object.keys(error)) assert.ok(allowed.includes(key), `unexpected envelope key ${key}`);
}

// --- X-Request-Id ---------------------------------------------------------------------------

test('a sane X-Request-Id is echoed on success and becomes the trace_id of errors', async () => {
  const ok = await t.platform.get('/v1/jobs', { token, headers: { 'x-request-id': 'client.req-42:a_b' } });
  assert.is(ok.status, 200);
  assert.is(ok.headers.get('x-request-id'), 'client.req-42:a_b');

  const longest = 'r'.repeat(128);
  const err = await t.platform.get('/v1/jobs', { headers: { 'x-request-id': longest } });
  assertEnvelope(err, 401, 'unauthorized');
  assert.is(err.headers.get('x-request-id'), longest);
  assert.is(err.body.error.trace_id, longest);
});

test('X-Request-Id is generated when absent', async () => {
  const a = await t.platform.get('/v1/jobs', { token });
  const b = await t.platform.get('/v1/jobs', { token });
  assert.match(a.headers.get('x-request-id') ?? '', UUID);
  assert.match(b.headers.get('x-request-id') ?? '', UUID);
  assert.is.not(a.headers.get('x-request-id'), b.headers.get('x-request-id'));
});

test('an insane X-Request-Id (too long, spaces, markup) is replaced by a generated one', async () => {
  for (const insane of ['x'.repeat(300), 'has spaces in it', '<script>alert(1)</script>', 'a"b', 'r'.repeat(129)]) {
    const res = await t.platform.get('/v1/nope', { headers: { 'x-request-id': insane } });
    assertEnvelope(res, 404, 'not_found');
    const id = res.headers.get('x-request-id') ?? '';
    assert.is.not(id, insane);
    assert.match(id, UUID);
    assert.is(res.body.error.trace_id, id);
  }
});

// --- 404 and malformed bodies -------------------------------------------------------------------

test('an unknown /v1 route is 404 not_found in the envelope', async () => {
  for (const [method, path] of [
    ['GET', '/v1/does-not-exist'],
    ['GET', '/v1/jobs/a/b/c/d'],
    ['POST', '/v1/nothing-here'],
    ['GET', '/v2/jobs'],
  ] as const) {
    const res = await t.platform.request(method, path, { token, body: method === 'POST' ? {} : undefined });
    assertEnvelope(res, 404, 'not_found');
    assert.is(res.body.error.details, undefined);
  }
});

test('a malformed JSON body is 400 validation_error', async () => {
  const res = await t.platform.request('POST', '/v1/auth/exchange', {
    raw: '{"subject_token": "demo",',
    headers: { 'content-type': 'application/json', 'x-request-id': 'bad-json-1' },
  });
  assertEnvelope(res, 400, 'validation_error');
  assert.is(res.body.error.trace_id, 'bad-json-1');
  assert.type(res.body.error.details, 'object');

  const onBearerRoute = await t.platform.request('POST', '/v1/service-accounts', { token, raw: 'not json', headers: { 'content-type': 'application/json' } });
  assertEnvelope(onBearerRoute, 400, 'validation_error');
});

// --- zod validation ----------------------------------------------------------------------------

test('body validation failures are 400 validation_error with details keyed by dot-path', async () => {
  const res = await t.platform.post('/v1/test-probe/validate', {
    records: [{ title: 'fine', severity: 'low' }, { title: '', severity: 'critical' }, { severity: 'high' }],
    meta: {},
  });
  assertEnvelope(res, 400, 'validation_error');
  assert.equal(res.body.error.details, {
    'records.1.title': 'must not be empty',
    'records.1.severity': 'must be low or high',
    'records.2.title': 'must be a string',
    'meta.source': 'is required',
  });
});

test('a body that is absent or not an object is reported under the key `body`', async () => {
  const absent = await t.platform.post('/v1/test-probe/validate');
  assertEnvelope(absent, 400, 'validation_error');
  assert.equal(Object.keys(absent.body.error.details), ['body']);

  const array = await t.platform.post('/v1/test-probe/validate', [1, 2]);
  assertEnvelope(array, 400, 'validation_error');
  assert.equal(Object.keys(array.body.error.details), ['body']);

  const emptyList = await t.platform.post('/v1/test-probe/validate', { records: [], meta: { source: 's' } });
  assertEnvelope(emptyList, 400, 'validation_error');
  assert.equal(emptyList.body.error.details, { records: 'must hold at least one record' });
});

test('query validation failures are 400 validation_error keyed by parameter, together with body failures', async () => {
  const good = { records: [{ title: 't', severity: 'high' }], meta: { source: 's' } };
  const queryOnly = await t.platform.post('/v1/test-probe/validate?n=abc', good);
  assertEnvelope(queryOnly, 400, 'validation_error');
  assert.equal(queryOnly.body.error.details, { n: 'must be a number' });

  const both = await t.platform.post('/v1/test-probe/validate?n=1.5', { records: [{ title: 't', severity: 'x' }], meta: { source: 's' } });
  assertEnvelope(both, 400, 'validation_error');
  assert.equal(both.body.error.details, { n: 'must be an integer', 'records.0.severity': 'must be low or high' });

  const fine = await t.platform.post('/v1/test-probe/validate?n=3', good);
  assert.is(fine.status, 200, fine.text);
  assert.equal(fine.body, { ok: true, count: 1 });

  const realRoute = await t.platform.get('/v1/jobs?limit=abc', { token });
  assertEnvelope(realRoute, 400, 'validation_error');
  assert.type(realRoute.body.error.details.limit, 'string');
});

// --- 500 ---------------------------------------------------------------------------------------

test('an unexpected exception is 500 internal_error that leaks neither message nor stack', async () => {
  for (const path of ['/v1/test-probe/boom', '/v1/test-probe/boom-sync']) {
    const res = await t.platform.get(path, { headers: { 'x-request-id': 'boom-trace' } });
    assertEnvelope(res, 500, 'internal_error');
    assert.equal(res.body, { error: { code: 'internal_error', message: res.body.error.message, trace_id: 'boom-trace' } });
    for (const leak of ['hunter2', '/srv/internal', 'TypeError', 'secret.ts', 'at ', 'stack', '.ts:']) {
      assert.not.ok(res.text.includes(leak), `500 body leaks ${JSON.stringify(leak)}: ${res.text}`);
    }
  }
  // The process keeps serving.
  const after = await t.platform.get('/v1/jobs', { token });
  assert.is(after.status, 200);
});

// --- 401 ---------------------------------------------------------------------------------------

test('missing, malformed or garbage bearer credentials are 401 unauthorized with the spec message', async () => {
  const tampered = token.slice(0, -3) + (token.endsWith('AAA') ? 'BBB' : 'AAA');
  const cases: Array<Record<string, string>> = [
    {},
    { authorization: '' },
    { authorization: 'Bearer' },
    { authorization: 'Bearer ' },
    { authorization: `Basic ${Buffer.from('demo:demo').toString('base64')}` },
    { authorization: `Token ${token}` },
    { authorization: 'Bearer garbage' },
    { authorization: 'Bearer a.b.c' },
    { authorization: `Bearer ${tampered}` },
    { authorization: `Bearer ${token} extra` },
    { authorization: 'Bearer svc_sat_not-a-real-token' },
    { authorization: 'Bearer svc_key_not-a-real-key' },
  ];
  for (const headers of cases) {
    const res = await t.platform.get('/v1/jobs', { headers });
    assertEnvelope(res, 401, 'unauthorized');
    assert.is(res.body.error.message, 'Missing or invalid Authorization header', JSON.stringify(headers));
  }
  // Authentication comes before validation: an invalid query does not reveal anything to a stranger.
  const res = await t.platform.get('/v1/jobs?limit=0');
  assertEnvelope(res, 401, 'unauthorized');
  // The genuine token works (the cases above were rejected for their credentials, not the route).
  assert.is((await t.platform.get('/v1/jobs', { token })).status, 200);
});

// --- 403 ---------------------------------------------------------------------------------------

async function serviceAccountToken(name: string, scopes: string[]): Promise<string> {
  const account = await t.platform.post('/v1/service-accounts', { name, scopes }, { token });
  assert.is(account.status, 201, account.text);
  const expiresAt = new Date(Date.now() + 24 * 3600_000).toISOString();
  const created = await t.platform.post(`/v1/service-accounts/${account.body.id}/tokens`, { name: `${name}-token`, expires_at: expiresAt }, { token });
  assert.is(created.status, 201, created.text);
  return created.body.token as string;
}

test('a valid token without the required scope is 403 forbidden', async () => {
  const issuesOnly = await serviceAccountToken('issues-reader', ['issues:read']);
  const res = await t.platform.get('/v1/jobs', { token: issuesOnly, headers: { 'x-request-id': 'scope-check' } });
  assertEnvelope(res, 403, 'forbidden');
  assert.is(res.body.error.trace_id, 'scope-check');
  assert.match(res.body.error.message, 'jobs:read');

  const jobsOnly = await serviceAccountToken('jobs-reader', ['jobs:read']);
  const allowed = await t.platform.get('/v1/jobs', { token: jobsOnly });
  assert.is(allowed.status, 200, allowed.text);
  const denied = await t.platform.post('/v1/service-accounts', { name: 'escalation', scopes: ['workspace:admin'] }, { token: jobsOnly });
  assertEnvelope(denied, 403, 'forbidden');
  assert.match(denied.body.error.message, 'workspace:admin');
  // Nothing was created by the denied request.
  const { rows } = await t.app.pool.query('select 1 from service_accounts where name = $1', ['escalation']);
  assert.is(rows.length, 0);
});

test.run();
