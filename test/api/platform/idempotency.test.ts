/**
 * Idempotency-Key on /v1 (cross-cutting rules 3-5): mandatory on POST below /v1/ingest/ and
 * /v1/configs/ and on POST /v1/engine/runs; the first 2xx response per (Authorization, key, path)
 * is replayed for 24 hours with `Idempotency-Replayed: true`; non-2xx is not cached; no
 * Authorization means no cache; the same key with another body, or while the first is still
 * running, is 409 `conflict`.
 */
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { reply } from '../../../api/http/routes.ts';
import { platformRoute } from '../../../api/platform/route.ts';
import { AppError } from '../../../lib/errors.ts';
import { demoToken, startTestApp, type TestApp } from '../../helpers/app.ts';
import type { HttpResponse } from '../../helpers/http.ts';

/** How often each probe's handler ran, by probe name. */
const runs = new Map<string, number>();
const ran = (name: string) => {
  const n = (runs.get(name) ?? 0) + 1;
  runs.set(name, n);
  return n;
};
const count = (name: string) => runs.get(name) ?? 0;

const thingSchema = z.object({ run: z.number(), bucket: z.string(), value: z.string().nullable(), nonce: z.string() });
const bodySchema = z.object({ value: z.string().optional() }).optional();

/** A gate the slow probe waits on, opened by the test (no sleeps, no timing). */
let slowEntered: () => void = () => {};
let slowRelease: Promise<void> = Promise.resolve();

const probes = [
  platformRoute({
    method: 'post',
    path: '/v1/test-probe/things/{bucket}',
    operationId: 'probeCreateThing',
    summary: 'Counts its runs; 201 with a Location header',
    tags: ['test'],
    scope: 'jobs:write',
    params: z.object({ bucket: z.string() }),
    body: bodySchema,
    responses: { 201: { description: 'Created', schema: thingSchema } },
    handler: ({ params, body }) => {
      const n = ran(`things:${params.bucket}`);
      return reply.created(
        { run: n, bucket: params.bucket, value: body?.value ?? null, nonce: randomUUID() },
        { Location: `/v1/test-probe/things/${params.bucket}/${n}` },
      );
    },
  }),
  platformRoute({
    method: 'patch',
    path: '/v1/test-probe/things/{bucket}',
    operationId: 'probePatchThing',
    summary: 'Counts its runs',
    tags: ['test'],
    scope: 'jobs:write',
    params: z.object({ bucket: z.string() }),
    body: bodySchema,
    responses: { 200: { description: 'Updated', schema: thingSchema } },
    handler: ({ params, body }) => reply.ok({ run: ran(`patch:${params.bucket}`), bucket: params.bucket, value: body?.value ?? null, nonce: randomUUID() }),
  }),
  platformRoute({
    method: 'get',
    path: '/v1/test-probe/things/{bucket}',
    operationId: 'probeGetThing',
    summary: 'Counts its runs',
    tags: ['test'],
    scope: 'jobs:read',
    params: z.object({ bucket: z.string() }),
    responses: { 200: { description: 'The thing', schema: thingSchema } },
    handler: ({ params }) => reply.ok({ run: ran(`get:${params.bucket}`), bucket: params.bucket, value: null, nonce: randomUUID() }),
  }),
  platformRoute({
    method: 'delete',
    path: '/v1/test-probe/things/{bucket}',
    operationId: 'probeDeleteThing',
    summary: 'Counts its runs',
    tags: ['test'],
    scope: 'jobs:write',
    params: z.object({ bucket: z.string() }),
    responses: { 204: { description: 'Deleted' } },
    handler: ({ params }) => {
      ran(`delete:${params.bucket}`);
      return reply.noContent();
    },
  }),
  platformRoute({
    method: 'post',
    path: '/v1/test-probe/flaky/{bucket}',
    operationId: 'probeFlaky',
    summary: 'Fails with 409 on its first run, then succeeds',
    tags: ['test'],
    scope: 'jobs:write',
    params: z.object({ bucket: z.string() }),
    body: bodySchema,
    responses: { 201: { description: 'Created', schema: thingSchema }, 409: { description: 'First run fails' } },
    handler: ({ params, body }) => {
      const n = ran(`flaky:${params.bucket}`);
      if (n === 1) throw new AppError('conflict', 'first attempt fails');
      return reply.created({ run: n, bucket: params.bucket, value: body?.value ?? null, nonce: randomUUID() });
    },
  }),
  platformRoute({
    method: 'post',
    path: '/v1/test-probe/refuse',
    operationId: 'probeRefuse',
    summary: 'Answers 409 (returned, not thrown)',
    tags: ['test'],
    scope: 'jobs:write',
    body: bodySchema,
    responses: { 409: { description: 'Always' } },
    handler: () => {
      ran('refuse');
      return { status: 409, body: { error: { code: 'conflict', message: 'never' } } };
    },
  }),
  platformRoute({
    method: 'post',
    path: '/v1/test-probe/slow',
    operationId: 'probeSlow',
    summary: 'Waits until the test releases it',
    tags: ['test'],
    scope: 'jobs:write',
    body: bodySchema,
    responses: { 201: { description: 'Created', schema: thingSchema } },
    handler: async ({ body }) => {
      const n = ran('slow');
      slowEntered();
      await slowRelease;
      return reply.created({ run: n, bucket: 'slow', value: body?.value ?? null, nonce: randomUUID() });
    },
  }),
  platformRoute({
    method: 'post',
    path: '/v1/test-probe/public',
    operationId: 'probePublic',
    summary: 'No authentication',
    tags: ['test'],
    auth: 'public',
    body: bodySchema,
    responses: { 201: { description: 'Created', schema: thingSchema } },
    handler: ({ body }) => reply.created({ run: ran('public'), bucket: 'public', value: body?.value ?? null, nonce: randomUUID() }),
  }),
  platformRoute({
    method: 'post',
    path: '/v1/ingest/test-probe',
    operationId: 'probeIngest',
    summary: 'Under the mandatory Idempotency-Key rule',
    tags: ['test'],
    scope: 'ingest:write',
    body: bodySchema,
    responses: { 202: { description: 'Accepted', schema: thingSchema } },
    handler: ({ body }) => reply.accepted({ run: ran('ingest'), bucket: 'ingest', value: body?.value ?? null, nonce: randomUUID() }),
  }),
  platformRoute({
    method: 'post',
    path: '/v1/configs/{kind}/probe-versions',
    operationId: 'probeConfigVersion',
    summary: 'Under the mandatory Idempotency-Key rule',
    tags: ['test'],
    scope: 'configs:write',
    params: z.object({ kind: z.string() }),
    body: bodySchema,
    responses: { 201: { description: 'Created', schema: thingSchema } },
    handler: ({ params, body }) => reply.created({ run: ran('configs'), bucket: params.kind, value: body?.value ?? null, nonce: randomUUID() }),
  }),
];

let t: TestApp;
let token: string;
let otherToken: string;
test.before(async () => {
  t = await startTestApp({ extraPlatformRoutes: probes });
  token = await demoToken(t);
  otherToken = await demoToken(t);
});
test.after(async () => t.close());

const key = () => randomUUID();
const bucket = () => randomUUID().slice(0, 8);
const idem = (k: string, more: Record<string, string> = {}) => ({ 'idempotency-key': k, ...more });

function assertRequired(res: HttpResponse) {
  assert.is(res.status, 400, res.text);
  assert.is(res.body.error.code, 'idempotency_key_required');
  assert.is(res.body.error.trace_id, res.headers.get('x-request-id'));
}

async function cacheRows(): Promise<number> {
  const { rows } = await t.app.pool.query<{ n: number }>('select count(*)::int as n from idempotency_keys');
  return rows[0].n;
}

// --- mandatory key -------------------------------------------------------------------------------

test('POST below /v1/ingest/, /v1/configs/ and to /v1/engine/runs without Idempotency-Key is 400 before the handler', async () => {
  assertRequired(await t.platform.post('/v1/ingest/test-probe', { value: 'a' }, { token }));
  assertRequired(await t.platform.post('/v1/configs/rubric/versions', { value: 'a' }, { token }));
  assertRequired(await t.platform.post('/v1/configs/rubric/probe-versions', { value: 'a' }, { token }));
  assertRequired(await t.platform.post('/v1/engine/runs', { value: 'a' }, { token }));
  assertRequired(await t.platform.post('/v1/engine/runs/', { value: 'a' }, { token }));
  assertRequired(await t.platform.post('/v1/ingest/test-probe', { value: 'a' }, { token, headers: { 'idempotency-key': '' } }));
  assert.is(count('ingest'), 0);
  assert.is(count('configs'), 0);
  assert.is(count('engine'), 0);

  // The check precedes routing, authentication and body validation.
  assertRequired(await t.platform.post('/v1/ingest/no-such-endpoint', { value: 'a' }, { token }));
  assertRequired(await t.platform.post('/v1/configs/anything/at/all', {}, { token }));
  assertRequired(await t.platform.post('/v1/ingest/test-probe', { value: 'a' }));
  assertRequired(await t.platform.post('/v1/ingest/test-probe', { value: 42 }, { token }));
  assert.is(count('ingest'), 0);
});

test('with the key the mandatory-key endpoints run; the rule does not reach other methods or paths', async () => {
  const ingest = await t.platform.post('/v1/ingest/test-probe', { value: 'a' }, { token, headers: idem(key()) });
  assert.is(ingest.status, 202, ingest.text);
  const config = await t.platform.post('/v1/configs/rubric/probe-versions', { value: 'a' }, { token, headers: idem(key()) });
  assert.is(config.status, 201, config.text);
  // The real engine-run route: with the key it queues a run.
  const engine = await t.platform.post('/v1/engine/runs', {}, { token, headers: idem(key()) });
  assert.is(engine.status, 202, engine.text);
  assert.equal([count('ingest'), count('configs')], [1, 1]);

  // Not below the mandatory prefixes: no key needed (an unknown run is simply not found).
  const replay = await t.platform.post(`/v1/engine/runs/${randomUUID()}/replay`, undefined, { token });
  assert.is(replay.status, 404, replay.text);
  assert.is(replay.body.error.code, 'not_found');
  const other = await t.platform.post(`/v1/test-probe/things/${bucket()}`, { value: 'a' }, { token });
  assert.is(other.status, 201, other.text);
  // GET below a mandatory prefix: the rule is about POST.
  const get = await t.platform.get('/v1/ingest/test-probe', { token });
  assert.is(get.status, 404);
  assert.is(get.body.error.code, 'not_found');
  // Another spelling of a mandatory path does not slip past the rule into the handler.
  for (const path of ['/V1/INGEST/test-probe', '/v1/Ingest/test-probe', '/v1/ENGINE/runs']) {
    const res = await t.platform.post(path, { value: 'a' }, { token });
    assert.ok([400, 404].includes(res.status), `${path}: ${res.status} ${res.text}`);
    assert.ok(['idempotency_key_required', 'not_found'].includes(res.body.error.code), res.text);
  }
  assert.equal([count('ingest'), count('configs')], [1, 1]);
  // With a key, an unknown path below /v1/ingest/ is simply not found.
  const unknown = await t.platform.post('/v1/ingest/no-such-endpoint', {}, { token, headers: idem(key()) });
  assert.is(unknown.status, 404);
});

// --- replay ------------------------------------------------------------------------------------------

test('a repeated 2xx request is replayed byte for byte with Idempotency-Replayed: true, without running the handler', async () => {
  const b = bucket();
  const k = key();
  const first = await t.platform.post(`/v1/test-probe/things/${b}`, { value: 'v' }, { token, headers: idem(k) });
  assert.is(first.status, 201, first.text);
  assert.is(first.headers.get('idempotency-replayed'), null);
  assert.is(first.headers.get('location'), `/v1/test-probe/things/${b}/1`);

  for (let i = 0; i < 2; i++) {
    const again = await t.platform.post(`/v1/test-probe/things/${b}`, { value: 'v' }, { token, headers: idem(k) });
    assert.is(again.status, 201);
    assert.is(again.text, first.text);
    assert.is(again.headers.get('location'), first.headers.get('location'));
    assert.is(again.headers.get('content-type'), first.headers.get('content-type'));
    assert.is(again.headers.get('idempotency-replayed'), 'true');
    // The replay is a new request: it has its own request id and rate-limit headers.
    assert.is.not(again.headers.get('x-request-id'), first.headers.get('x-request-id'));
    assert.ok(again.headers.get('x-ratelimit-remaining'));
  }
  assert.is(count(`things:${b}`), 1);

  // The same body with its keys in another order is the same request.
  const reordered = await t.platform.post(`/v1/test-probe/things/${b}`, undefined, {
    token,
    headers: idem(k, { 'content-type': 'application/json' }),
    raw: '{ "value" : "v" }',
  });
  assert.is(reordered.status, 201);
  assert.is(reordered.text, first.text);
  assert.is(count(`things:${b}`), 1);
});

test('mandatory-key endpoints replay too', async () => {
  const k = key();
  const first = await t.platform.post('/v1/ingest/test-probe', { value: 'x' }, { token, headers: idem(k) });
  assert.is(first.status, 202);
  const before = count('ingest');
  const again = await t.platform.post('/v1/ingest/test-probe', { value: 'x' }, { token, headers: idem(k) });
  assert.is(again.status, 202);
  assert.is(again.text, first.text);
  assert.is(again.headers.get('idempotency-replayed'), 'true');
  assert.is(count('ingest'), before);
});

test('PATCH is cached like POST', async () => {
  const b = bucket();
  const k = key();
  const first = await t.platform.patch(`/v1/test-probe/things/${b}`, { value: 'p' }, { token, headers: idem(k) });
  assert.is(first.status, 200, first.text);
  const again = await t.platform.patch(`/v1/test-probe/things/${b}`, { value: 'p' }, { token, headers: idem(k) });
  assert.is(again.status, 200);
  assert.is(again.text, first.text);
  assert.is(again.headers.get('idempotency-replayed'), 'true');
  assert.is(count(`patch:${b}`), 1);
});

// --- the cache key is (Authorization, key, path) ------------------------------------------------------

test('the same key on another path runs again', async () => {
  const k = key();
  const [b1, b2] = [bucket(), bucket()];
  const one = await t.platform.post(`/v1/test-probe/things/${b1}`, { value: 'v' }, { token, headers: idem(k) });
  const two = await t.platform.post(`/v1/test-probe/things/${b2}`, { value: 'v' }, { token, headers: idem(k) });
  assert.is(one.status, 201);
  assert.is(two.status, 201);
  assert.is(two.headers.get('idempotency-replayed'), null);
  assert.is(two.body.bucket, b2);
  assert.equal([count(`things:${b1}`), count(`things:${b2}`)], [1, 1]);
});

test('the same key from another Authorization value runs again', async () => {
  const k = key();
  const b = bucket();
  const mine = await t.platform.post(`/v1/test-probe/things/${b}`, { value: 'v' }, { token, headers: idem(k) });
  const theirs = await t.platform.post(`/v1/test-probe/things/${b}`, { value: 'v' }, { token: otherToken, headers: idem(k) });
  assert.is(mine.status, 201);
  assert.is(theirs.status, 201);
  assert.is(theirs.headers.get('idempotency-replayed'), null);
  assert.is.not(theirs.text, mine.text);
  assert.is(count(`things:${b}`), 2);
  // Each caller still gets its own replay.
  const mineAgain = await t.platform.post(`/v1/test-probe/things/${b}`, { value: 'v' }, { token, headers: idem(k) });
  const theirsAgain = await t.platform.post(`/v1/test-probe/things/${b}`, { value: 'v' }, { token: otherToken, headers: idem(k) });
  assert.is(mineAgain.text, mine.text);
  assert.is(theirsAgain.text, theirs.text);
  assert.is(count(`things:${b}`), 2);
});

test('a request without an Authorization header never reads or writes the cache', async () => {
  const k = key();
  const rowsBefore = await cacheRows();
  const first = await t.platform.post('/v1/test-probe/public', { value: 'v' }, { headers: idem(k) });
  const second = await t.platform.post('/v1/test-probe/public', { value: 'v' }, { headers: idem(k) });
  assert.is(first.status, 201);
  assert.is(second.status, 201);
  assert.is(second.headers.get('idempotency-replayed'), null);
  assert.is.not(second.text, first.text);
  assert.is(count('public'), 2);
  assert.is(await cacheRows(), rowsBefore);
});

// --- what is not cached -------------------------------------------------------------------------------

test('a non-2xx original is not cached: the retry executes again', async () => {
  const b = bucket();
  const k = key();
  const failed = await t.platform.post(`/v1/test-probe/flaky/${b}`, { value: 'v' }, { token, headers: idem(k) });
  assert.is(failed.status, 409, failed.text);
  assert.is(failed.body.error.code, 'conflict');
  const retried = await t.platform.post(`/v1/test-probe/flaky/${b}`, { value: 'v' }, { token, headers: idem(k) });
  assert.is(retried.status, 201, retried.text);
  assert.is(retried.headers.get('idempotency-replayed'), null);
  assert.is(retried.body.run, 2);
  // The success is what is cached.
  const replayed = await t.platform.post(`/v1/test-probe/flaky/${b}`, { value: 'v' }, { token, headers: idem(k) });
  assert.is(replayed.text, retried.text);
  assert.is(replayed.headers.get('idempotency-replayed'), 'true');
  assert.is(count(`flaky:${b}`), 2);

  // A non-2xx answer the handler returns (rather than throws) is not cached either.
  const k2 = key();
  for (let i = 1; i <= 2; i++) {
    const res = await t.platform.post('/v1/test-probe/refuse', { value: 'v' }, { token, headers: idem(k2) });
    assert.is(res.status, 409);
    assert.is(res.headers.get('idempotency-replayed'), null);
    assert.is(count('refuse'), i);
  }
});

test('a request that fails validation is not cached', async () => {
  const b = bucket();
  const k = key();
  const invalid = await t.platform.post(`/v1/test-probe/things/${b}`, { value: 5 }, { token, headers: idem(k) });
  assert.is(invalid.status, 400);
  assert.is(invalid.body.error.code, 'validation_error');
  const unauthorized = await t.platform.post(`/v1/test-probe/things/${b}`, { value: 'v' }, { token: 'garbage', headers: idem(k) });
  assert.is(unauthorized.status, 401);
  assert.is(count(`things:${b}`), 0);
  const valid = await t.platform.post(`/v1/test-probe/things/${b}`, { value: 5 }, { token, headers: idem(k) });
  assert.is(valid.status, 400, 'the same invalid request is evaluated again');
});

test('GET and DELETE ignore Idempotency-Key', async () => {
  const b = bucket();
  const k = key();
  const rowsBefore = await cacheRows();
  const g1 = await t.platform.get(`/v1/test-probe/things/${b}`, { token, headers: idem(k) });
  const g2 = await t.platform.get(`/v1/test-probe/things/${b}`, { token, headers: idem(k) });
  assert.is(g1.status, 200);
  assert.is(g2.status, 200);
  assert.is(g2.headers.get('idempotency-replayed'), null);
  assert.is.not(g2.text, g1.text);
  assert.is(count(`get:${b}`), 2);

  const d1 = await t.platform.delete(`/v1/test-probe/things/${b}`, { token, headers: idem(k) });
  const d2 = await t.platform.delete(`/v1/test-probe/things/${b}`, { token, headers: idem(k) });
  assert.is(d1.status, 204);
  assert.is(d2.status, 204);
  assert.is(d2.headers.get('idempotency-replayed'), null);
  assert.is(count(`delete:${b}`), 2);
  assert.is(await cacheRows(), rowsBefore);
});

// --- conflicts ------------------------------------------------------------------------------------------

test('the same key and path with a different body is 409 conflict and does not run the handler', async () => {
  const b = bucket();
  const k = key();
  const first = await t.platform.post(`/v1/test-probe/things/${b}`, { value: 'one' }, { token, headers: idem(k) });
  assert.is(first.status, 201);
  for (const body of [{ value: 'two' }, {}, undefined]) {
    const res = await t.platform.post(`/v1/test-probe/things/${b}`, body, { token, headers: idem(k) });
    assert.is(res.status, 409, res.text);
    assert.is(res.body.error.code, 'conflict');
    assert.is(res.body.error.trace_id, res.headers.get('x-request-id'));
    assert.is(res.headers.get('idempotency-replayed'), null);
  }
  assert.is(count(`things:${b}`), 1);
  // The original is still replayed.
  const again = await t.platform.post(`/v1/test-probe/things/${b}`, { value: 'one' }, { token, headers: idem(k) });
  assert.is(again.text, first.text);
});

test('a duplicate that arrives while the first is in flight is 409 conflict; the handler runs once', async () => {
  const k = key();
  let release!: () => void;
  slowRelease = new Promise((resolve) => (release = resolve));
  const before = count('slow');

  const both = [1, 2].map(() => t.platform.post('/v1/test-probe/slow', { value: 's' }, { token, headers: idem(k) }));
  // One of the two holds the key inside the handler, which waits for release(): the other answers first.
  const early = await Promise.race(both);
  assert.is(early.status, 409, early.text);
  assert.is(early.body.error.code, 'conflict');
  assert.is(early.body.error.trace_id, early.headers.get('x-request-id'));
  release();
  const responses = await Promise.all(both);
  assert.equal(responses.map((r) => r.status).sort(), [201, 409]);
  assert.is(count('slow'), before + 1);
  const first = responses.find((r) => r.status === 201)!;

  // Once it finished, the duplicate is a replay.
  const after = await t.platform.post('/v1/test-probe/slow', { value: 's' }, { token, headers: idem(k) });
  assert.is(after.status, 201);
  assert.is(after.text, first.text);
  assert.is(after.headers.get('idempotency-replayed'), 'true');
  assert.is(count('slow'), before + 1);
});

test('concurrent identical requests: exactly one runs, the others are 409', async () => {
  const k = key();
  let release!: () => void;
  slowRelease = new Promise((resolve) => (release = resolve));
  const before = count('slow');
  const entered = new Promise<void>((resolve) => (slowEntered = resolve));
  const all = Array.from({ length: 6 }, () => t.platform.post('/v1/test-probe/slow', { value: 'c' }, { token, headers: idem(k) }));
  await entered;
  // The request inside the handler cannot answer before it is released: wait for the other five.
  // (If a second one wrongly entered the handler, release after a while so the test fails, not hangs.)
  let answered = 0;
  await new Promise<void>((resolve) => {
    const safety = setTimeout(resolve, 10_000);
    for (const pending of all) {
      void pending.then(() => {
        if (++answered === all.length - 1) {
          clearTimeout(safety);
          resolve();
        }
      });
    }
  });
  release();
  const responses = await Promise.all(all);
  assert.equal(responses.map((r) => r.status).sort(), [201, 409, 409, 409, 409, 409]);
  assert.ok(responses.filter((r) => r.status === 409).every((r) => r.body.error.code === 'conflict'));
  assert.is(count('slow'), before + 1);
});

// --- expiry -------------------------------------------------------------------------------------------

test('after 24 hours the same request runs again', async () => {
  const b = bucket();
  const k = key();
  const first = await t.platform.post(`/v1/test-probe/things/${b}`, { value: 'e' }, { token, headers: idem(k) });
  assert.is(first.status, 201);
  const { rows } = await t.app.pool.query<{ hours: number }>(
    `select round(extract(epoch from expires_at - created_at) / 3600)::int as hours from idempotency_keys where idempotency_key = $1`,
    [k],
  );
  assert.equal(rows, [{ hours: 24 }]);

  await t.app.pool.query(`update idempotency_keys set expires_at = now() - interval '1 second' where idempotency_key = $1`, [k]);
  const later = await t.platform.post(`/v1/test-probe/things/${b}`, { value: 'e' }, { token, headers: idem(k) });
  assert.is(later.status, 201);
  assert.is(later.headers.get('idempotency-replayed'), null);
  assert.is(later.body.run, 2);
  assert.is(count(`things:${b}`), 2);
  // The new response is the one replayed from now on.
  const replay = await t.platform.post(`/v1/test-probe/things/${b}`, { value: 'e' }, { token, headers: idem(k) });
  assert.is(replay.text, later.text);
  assert.is(replay.headers.get('idempotency-replayed'), 'true');

  // An expired key may even carry a different body now.
  await t.app.pool.query(`update idempotency_keys set expires_at = now() - interval '1 second' where idempotency_key = $1`, [k]);
  const changed = await t.platform.post(`/v1/test-probe/things/${b}`, { value: 'other' }, { token, headers: idem(k) });
  assert.is(changed.status, 201);
  assert.is(changed.body.value, 'other');
});

test('an over-long Idempotency-Key is 400 validation_error', async () => {
  const b = bucket();
  const res = await t.platform.post(`/v1/test-probe/things/${b}`, { value: 'v' }, { token, headers: idem('k'.repeat(256)) });
  assert.is(res.status, 400, res.text);
  assert.is(res.body.error.code, 'validation_error');
  assert.ok(res.body.error.details['Idempotency-Key']);
  assert.is(count(`things:${b}`), 0);
  const longest = await t.platform.post(`/v1/test-probe/things/${b}`, { value: 'v' }, { token, headers: idem('k'.repeat(255)) });
  assert.is(longest.status, 201);
});

test.run();
