/** Edge cases of the /v1 plumbing: NUL characters, path spelling, query strings and cursors bound to their list. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { reply } from '../../../api/http/routes.ts';
import { platformRoute } from '../../../api/platform/route.ts';
import { demoToken, startTestApp, type TestApp } from '../../helpers/app.ts';
import type { Client } from '../../helpers/http.ts';

let runs = 0;
const probe = platformRoute({
  method: 'post',
  path: '/v1/probe/echo',
  operationId: 'probeEcho',
  summary: 'probe',
  tags: ['probe'],
  scope: 'jobs:read',
  body: z.object({ text: z.string() }),
  responses: { 201: { description: 'echo', schema: z.object({ text: z.string(), run: z.number() }) } },
  handler: ({ body }) => reply.created({ text: body.text, run: ++runs }),
});

let t: TestApp;
let api: Client;
test.before(async () => {
  t = await startTestApp({ extraPlatformRoutes: [probe] });
  api = t.platform.as(await demoToken(t));
});
test.after(async () => t.close());

test('a NUL character anywhere in a body is a 400 validation_error, not a database failure', async () => {
  const res = await api.post('/v1/service-accounts', { name: 'bad\u0000name', scopes: ['jobs:read'] });
  assert.is(res.status, 400);
  assert.is(res.body.error.code, 'validation_error');
  assert.ok(res.body.error.details.body.includes('NUL'));
  const key = await api.post('/v1/probe/echo', { 'k\u0000': 1, text: 'x' });
  assert.is(key.status, 400);
  assert.equal(key.body.error.details, { body: 'must not contain NUL (\\u0000) characters' });
});

test('a trailing slash is another path: 404, never the same operation', async () => {
  const res = await api.get('/v1/jobs/');
  assert.is(res.status, 404);
  assert.is(res.body.error.code, 'not_found');
});

test('malformed JSON sent to an unknown path is a plain 404', async () => {
  const res = await api.post('/v1/nowhere', undefined, { raw: '{oops', headers: { 'content-type': 'application/json' } });
  assert.is(res.status, 404);
  assert.is(res.body.error.code, 'not_found');
});

test('the mandatory Idempotency-Key is checked before the body is parsed', async () => {
  const res = await api.post('/v1/ingest/events', undefined, { raw: '{oops', headers: { 'content-type': 'application/json' } });
  assert.is(res.status, 400);
  assert.is(res.body.error.code, 'idempotency_key_required');
});

test('the same Idempotency-Key with another query string is another request (409), not a replay', async () => {
  const first = await api.post('/v1/probe/echo?a=1', { text: 'q' }, { headers: { 'idempotency-key': 'query-key' } });
  assert.is(first.status, 201);
  const again = await api.post('/v1/probe/echo?a=1', { text: 'q' }, { headers: { 'idempotency-key': 'query-key' } });
  assert.is(again.headers.get('idempotency-replayed'), 'true');
  const other = await api.post('/v1/probe/echo?a=2', { text: 'q' }, { headers: { 'idempotency-key': 'query-key' } });
  assert.is(other.status, 409);
  assert.is(other.body.error.code, 'conflict');
});

test('a cursor of one list is refused by another list', async () => {
  await t.app.pool.query(`insert into job_runs (kind, workspace_id, status) select 'probe', $1, 'succeeded' from generate_series(1, 3)`, [t.demo.workspaceId]);
  for (let i = 0; i < 3; i++) await api.post('/v1/service-accounts', { name: `sa-${i}`, scopes: ['jobs:read'] });
  const jobs = await api.get('/v1/jobs?limit=1');
  assert.ok(jobs.body.page.next_cursor);
  const crossed = await api.get(`/v1/service-accounts?limit=1&cursor=${encodeURIComponent(jobs.body.page.next_cursor)}`);
  assert.is(crossed.status, 400);
  assert.is(crossed.body.error.code, 'validation_error');
  assert.equal(crossed.body.error.details, { cursor: 'does not match this query' });
});

test.run();
