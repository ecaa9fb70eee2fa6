import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { demoToken, startTestApp, type TestApp } from '../../helpers/app.ts';

let t: TestApp;
test.before(async () => {
  t = await startTestApp();
});
test.after(async () => t.close());

test('exchange then list jobs', async () => {
  const token = await demoToken(t);
  const res = await t.platform.get('/v1/jobs', { token });
  assert.is(res.status, 200, res.text);
  assert.equal(res.body, { data: [], page: { next_cursor: null, has_more: false, total: 0 } });
  assert.ok(res.headers.get('x-request-id'));
});

test('unknown route is 404 envelope', async () => {
  const res = await t.platform.get('/v1/nope', { headers: { 'x-request-id': 'abc-123' } });
  assert.is(res.status, 404);
  assert.is(res.body.error.code, 'not_found');
  assert.is(res.body.error.trace_id, 'abc-123');
});

test.run();
