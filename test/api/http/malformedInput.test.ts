/**
 * Malformed input on both surfaces (issue 18's first finding): NUL bytes in path ids, bodies and
 * queries, JSON nested deeper than any route needs, and a body in another charset all get 400/422 in
 * the surface's own error shape, never a 500; path ids pass one shared rule on every route; and /v1
 * authenticates before it reads a body.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { demoToken, startTestApp, type TestApp } from '../../helpers/app.ts';
import { assertError } from '../../helpers/errors.ts';
import type { Client } from '../../helpers/http.ts';
import { createTenant, staffLogin, type ProductClient } from '../../helpers/product.ts';

let t: TestApp;
let api: Client;
let staff: ProductClient;
test.before(async () => {
  t = await startTestApp();
  api = t.platform.as(await demoToken(t));
  staff = await staffLogin(t);
});
test.after(async () => t.close());

const deep = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

test('a NUL byte in a /v1 path id is a 400 validation_error on every method, never a database error', async () => {
  for (const res of [
    await api.get('/v1/service-accounts/%00'),
    await api.delete('/v1/service-accounts/%00'),
    await api.get('/v1/service-accounts/%00/tokens'),
    await api.post('/v1/service-accounts/%00/tokens', { name: 'n', expires_at: '2030-01-01T00:00:00Z' }),
    await api.delete('/v1/service-accounts/abc/tokens/%00'),
    await api.get('/v1/issues/a%00b'),
    await api.get('/v1/jobs/%01'),
  ]) {
    assert.is(res.status, 400, res.text);
    assert.is(res.body.error.code, 'validation_error');
    assert.is(typeof res.body.error.trace_id, 'string');
    assert.match(Object.values(res.body.error.details as Record<string, string>)[0], /must be an id/);
  }
});

test('ids outside the shared rule are 400 on /v1; well-formed unknown ids stay 404', async () => {
  const long = await api.get(`/v1/issues/${'a'.repeat(201)}`);
  assertError(long, 400, 'validation_error', { id: 'must be an id of 1-200 letters, digits or . _ ~ : @ + -' });
  assertError(await api.get('/v1/issues/a%20b'), 400, 'validation_error');
  assertError(await api.get('/v1/issues/%27%3B--'), 400, 'validation_error');
  assertError(await api.get('/v1/issues/not-a-uuid'), 404, 'not_found');
});

test('a NUL byte in a query string is a 400, not a database error', async () => {
  const res = await api.get('/v1/issues?q=a%00b');
  assertError(res, 400, 'validation_error', { query: 'must not contain NUL (\\u0000) characters' });
});

test('deeply nested JSON is a 400 on /v1 and a 422 on the product surface, and the process lives on', async () => {
  const v1 = await api.post('/v1/service-accounts', undefined, {
    raw: deep(50_000),
    headers: { 'content-type': 'application/json', 'idempotency-key': 'deep-1' },
  });
  assertError(v1, 400, 'validation_error', { body: 'must not nest deeper than 64 levels' });
  const product = await staff.post('/admin/tenants', undefined, { raw: deep(50_000), headers: { 'content-type': 'application/json' } });
  assert.is(product.status, 422, product.text);
  assert.equal(product.body.detail, [{ loc: ['body'], msg: 'must not nest deeper than 64 levels', type: 'value_error', input: null }]);
  assert.is((await api.get('/v1/service-accounts')).status, 200);
});

test('the product surface: NUL in a path id or body, and a latin1 body, are 422 {detail}', async () => {
  const tenant = await createTenant(staff);
  const path = await staff.get('/admin/tenants/%00');
  assert.is(path.status, 422, path.text);
  assert.equal(path.body.detail[0].loc, ['path', 'tenant_id']);
  const body = await staff.post('/admin/tenants', { slug: 'x\u0000', company: 'c' });
  assert.is(body.status, 422);
  assert.equal(body.body.detail, [{ loc: ['body'], msg: 'must not contain NUL (\\u0000) characters', type: 'value_error', input: null }]);
  const latin1 = await staff.post('/admin/tenants', undefined, {
    raw: Buffer.from('{"slug":"caf\xe9","company":"c"}', 'latin1'),
    headers: { 'content-type': 'application/json; charset=latin1' },
  });
  assert.is(latin1.status, 422, latin1.text);
  assert.equal(latin1.body.detail, [{ loc: ['body'], msg: 'JSON body must be UTF-8 encoded', type: 'json_invalid', input: {} }]);
  assert.is((await staff.get(`/admin/tenants/${tenant.id}`)).status, 200);
});

test('/v1 authenticates before it parses a body: an anonymous malformed or oversized body is a 401', async () => {
  const malformed = await t.platform.post('/v1/service-accounts', undefined, { raw: '{oops', headers: { 'content-type': 'application/json' } });
  assertError(malformed, 401, 'unauthorized');
  const big = await t.platform.post('/v1/service-accounts', undefined, {
    raw: `{"name":"${'x'.repeat(6 * 1024 * 1024)}"}`,
    headers: { 'content-type': 'application/json' },
  });
  assertError(big, 401, 'unauthorized');
  const authenticated = await api.post('/v1/service-accounts', undefined, { raw: '{oops', headers: { 'content-type': 'application/json' } });
  assertError(authenticated, 400, 'validation_error');
});

test('a JSON route sent a body with a wrong or missing Content-Type says so: 415 on both surfaces', async () => {
  const body = JSON.stringify({ name: 'ci' });
  // curl -d sends application/x-www-form-urlencoded
  const form = await api.post('/v1/service-accounts', undefined, {
    raw: body,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': 'ct-1' },
  });
  assertError(form, 415, 'unsupported_media_type');
  assert.is(form.body.error.message, "The request body must be JSON: send Content-Type: application/json (got 'application/x-www-form-urlencoded')");
  const none = await api.post('/v1/service-accounts', undefined, { raw: Buffer.from(body), headers: { 'idempotency-key': 'ct-2' } });
  assertError(none, 415, 'unsupported_media_type');
  assert.match(none.body.error.message, 'the request has no Content-Type');
  // Still authenticated first: an anonymous caller learns nothing about the body.
  assertError(await t.platform.post('/v1/service-accounts', undefined, { raw: body, headers: { 'content-type': 'text/plain' } }), 401, 'unauthorized');

  const product = await staff.post('/admin/tenants', undefined, { raw: body, headers: { 'content-type': 'text/plain' } });
  assert.is(product.status, 415, product.text);
  assert.equal(product.body, { detail: "The request body must be JSON: send Content-Type: application/json (got 'text/plain')" });
  // A JSON body still works with a +json type and a charset.
  const ok = await staff.post('/admin/tenants', undefined, { raw: body, headers: { 'content-type': 'application/json; charset=utf-8' } });
  assert.is.not(ok.status, 415);
});

test.run();
