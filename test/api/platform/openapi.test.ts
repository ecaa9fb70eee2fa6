/**
 * The machine-readable description (Versioning rule 5) and the explorer at /docs: OpenAPI 3.1,
 * version 1.0.0, every mounted /v1 operation with its method, scopes and security of bearer
 * routes, the mandatory Idempotency-Key as a required header, and a /docs page that needs no CDN.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { reply } from '../../../api/http/routes.ts';
import { platformRoute } from '../../../api/platform/route.ts';
import { platformRoutes } from '../../../api/platform/routes.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';

// Probes under the mandatory Idempotency-Key rule (the real ingest, config and engine routes are
// checked by the same loop once they are mounted).
const accepted = { 202: { description: 'Accepted', schema: z.object({ ok: z.boolean() }) } };
const probes = [
  platformRoute({
    method: 'post',
    path: '/v1/ingest/test-probe',
    operationId: 'probeIngest',
    summary: 'probe',
    tags: ['test'],
    scope: 'ingest:write',
    responses: accepted,
    handler: () => reply.accepted({ ok: true }),
  }),
];

let t: TestApp;
let doc: any;
test.before(async () => {
  t = await startTestApp({ extraPlatformRoutes: probes });
  const res = await t.platform.get('/openapi.json');
  assert.is(res.status, 200, res.text);
  doc = res.body;
});
test.after(async () => t.close());

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Every (method, path, operation) of the document. */
function operations(): Array<{ method: string; path: string; op: any }> {
  return Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ method, path, op: item[method] })),
  );
}

/** The spec's rule 4, written out independently of the implementation. */
const mandatoryKey = (method: string, path: string) =>
  method === 'post' && (path.startsWith('/v1/ingest/') || path.startsWith('/v1/configs/') || path === '/v1/engine/runs');

/**
 * Where the spec allows a request without a bearer token (Cross-cutting rule 1: token exchange,
 * refresh, the SSO flow, inbound webhooks, provisioning), plus accepting an invitation, whose
 * caller has no membership yet (docs/decisions.md).
 */
const mayBeWithoutBearer = (path: string) =>
  /^\/v1\/auth\/(exchange|refresh|sign-out|sso)(\/|$)/.test(path) ||
  /^\/v1\/(sso|webhooks\/inbound|provisioning)\//.test(path) ||
  path === '/v1/invitations/accept' ||
  // CONTRACT.md: an export's download URL is signed and expiring and needs no bearer.
  path === '/v1/exports/{id}/download';

test('GET /openapi.json is OpenAPI 3.1 declaring version 1.0.0, served as JSON', async () => {
  const res = await t.platform.get('/openapi.json');
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.match(doc.openapi, /^3\.1\.\d+$/);
  assert.is(doc.info.version, '1.0.0');
  assert.type(doc.info.title, 'string');
  assert.type(doc.paths, 'object');
  assert.type(doc.components.schemas.ErrorEnvelope, 'object');
});

test('every mounted /v1 route appears with its method', () => {
  for (const route of [...platformRoutes, ...probes]) {
    const op = doc.paths[route.path]?.[route.method];
    assert.ok(op, `${route.method.toUpperCase()} ${route.path} is missing from /openapi.json`);
    assert.is(op.operationId, route.operationId);
  }
  const documented = operations().length;
  assert.is(documented, platformRoutes.length + probes.length, 'no operation is documented that is not mounted');
  for (const { path } of operations()) assert.ok(path.startsWith('/v1/'), `${path} is under /v1`);
  const ids = operations().map(({ op }) => op.operationId);
  assert.is(new Set(ids).size, ids.length, 'operationIds are unique');
});

test('every documented operation is really served (none falls through to the 404)', async () => {
  for (const { method, path, op } of operations()) {
    const name = `${method.toUpperCase()} ${path}`;
    const concrete = path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
    // No credentials and no body: never the "no route" 404; a bearer route is 401 (or the 400 of
    // the mandatory Idempotency-Key, which is checked first), so nothing runs.
    const res = await t.platform.request(method.toUpperCase(), concrete);
    const noRoute = res.status === 404 && /^No route for/.test(res.body?.error?.message ?? '');
    assert.not.ok(noRoute, `${name} is documented but not routed: ${res.text}`);
    if (op['x-required-scope']) {
      const expected = mandatoryKey(method, path) ? 'idempotency_key_required' : 'unauthorized';
      assert.is(res.body?.error?.code, expected, `${name}: ${res.status} ${res.text}`);
    }
  }
});

test('each bearer route declares x-required-scope and bearer security; public ones declare none', () => {
  const scopes = Object.keys(doc['x-scopes']);
  assert.ok(scopes.includes('jobs:read') && scopes.includes('workspace:admin'));
  for (const { method, path, op } of operations()) {
    const name = `${method.toUpperCase()} ${path}`;
    const bearer = op.security?.some((s: Record<string, unknown>) => 'bearerAuth' in s);
    if (!bearer) {
      assert.ok(mayBeWithoutBearer(path), `${name} is documented without bearer security, which the spec does not allow`);
      assert.is(op['x-required-scope'], undefined, name);
      assert.ok(Array.isArray(op.security), `${name} declares its security explicitly`);
      continue;
    }
    const scope = op['x-required-scope'];
    assert.type(scope, 'string', `${name} declares x-required-scope`);
    assert.ok(scopes.includes(scope), `${name}: ${scope} is a declared scope`);
    assert.equal(op.security, [{ bearerAuth: [scope] }], name);
    assert.ok(op.responses['401'], `${name} documents 401`);
    assert.ok(op.responses['403'], `${name} documents 403`);
  }
  assert.is(doc.components.securitySchemes.bearerAuth.type, 'http');
  assert.is(doc.components.securitySchemes.bearerAuth.scheme, 'bearer');
  for (const path of ['/v1/auth/exchange', '/v1/auth/refresh']) assert.equal(doc.paths[path].post.security, [], `${path} is public`);
  // The spec fixes this one (service accounts need workspace:admin); jobs:read is the documented scope of GET /v1/jobs.
  assert.is(doc.paths['/v1/service-accounts'].post['x-required-scope'], 'workspace:admin');
  assert.is(doc.paths['/v1/jobs'].get['x-required-scope'], 'jobs:read');
});

test('the mandatory Idempotency-Key is a required header parameter; elsewhere it is optional on POST/PUT/PATCH', () => {
  let mandatory = 0;
  for (const { method, path, op } of operations()) {
    const name = `${method.toUpperCase()} ${path}`;
    const header = (op.parameters ?? []).find((p: { in: string; name: string }) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
    if (mandatoryKey(method, path)) {
      mandatory++;
      assert.ok(header, `${name} declares the Idempotency-Key header`);
      assert.is(header.required, true, `${name}: Idempotency-Key is required`);
      assert.is(header.schema.type, 'string');
    } else if (['post', 'put', 'patch'].includes(method)) {
      assert.ok(header, `${name} declares the optional Idempotency-Key header`);
      assert.is(header.required, false, `${name}: Idempotency-Key is optional`);
    } else {
      assert.is(header, undefined, `${name}: GET and DELETE ignore Idempotency-Key`);
    }
  }
  assert.ok(mandatory >= 3, 'the ingest, configs and engine-run probes are covered');
  assert.is(doc.paths['/v1/engine/runs/{id}/replay'].post.parameters.find((p: { name: string }) => p.name === 'Idempotency-Key').required, false);
});

test('every operation documents the 429 and 500 answers', () => {
  for (const { method, path, op } of operations()) {
    for (const status of ['429', '500']) {
      assert.ok(op.responses[status], `${method.toUpperCase()} ${path} documents ${status}`);
      assert.is(op.responses[status].content['application/json'].schema.$ref, '#/components/schemas/ErrorEnvelope');
    }
  }
});

test('GET /docs serves the explorer from local assets only', async () => {
  const res = await t.platform.get('/docs');
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  const html = res.text;
  assert.not.match(html, /https?:\/\//i, 'no absolute (CDN) URLs');
  assert.not.match(html, /(src|href)\s*=\s*["']\/\//i, 'no protocol-relative URLs');
  assert.match(html, /\/openapi\.json/);

  const assets = [...html.matchAll(/(?:src|href)\s*=\s*["']([^"']+)["']/gi)].map((m) => m[1]);
  assert.ok(assets.includes('/docs/assets/swagger-ui-bundle.js'), `assets: ${assets.join(', ')}`);
  assert.ok(
    assets.some((a) => a.endsWith('.css')),
    'a stylesheet is referenced',
  );
  for (const asset of assets) {
    assert.ok(asset.startsWith('/'), `${asset} is a local path`);
    const served = await t.platform.get(asset);
    assert.is(served.status, 200, `${asset} is served`);
    assert.ok(served.text.length > 1000, `${asset} has content`);
    const type = served.headers.get('content-type') ?? '';
    if (asset.endsWith('.js')) assert.match(type, /javascript/);
    if (asset.endsWith('.css')) assert.match(type, /^text\/css/);
  }
});

test('/openapi.json and /docs need no credentials and carry the common headers', async () => {
  for (const path of ['/openapi.json', '/docs']) {
    const res = await t.platform.get(path, { headers: { 'x-request-id': 'docs-1' } });
    assert.is(res.status, 200);
    assert.is(res.headers.get('x-request-id'), 'docs-1');
    assert.is(res.headers.get('x-ratelimit-limit'), '600');
  }
});

test.run();
