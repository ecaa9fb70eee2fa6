/**
 * Every body and response of both /openapi.json documents names its schema: the test walks both, as
 * served, and fails on any empty schema `{}` (a value that cannot be described further must at least
 * say what it is). The batch ingest record was `{}` (issue 28). And `GET /` points at the explorer.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestApp, type TestApp } from '../../helpers/app.ts';

let t: TestApp;
test.before(async () => {
  t = await startTestApp();
});
test.after(async () => t.close());

/** The JSON pointers of every empty schema under a schema-valued keyword. */
function emptySchemas(node: unknown, pointer: string, out: string[]): string[] {
  if (Array.isArray(node)) node.forEach((v, i) => emptySchemas(v, `${pointer}/${i}`, out));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      const here = `${pointer}/${key}`;
      // (`not: {}` is JSON Schema's "never": an absent value, which is a full schema.)
      const schemaValued = ['schema', 'items', 'additionalProperties', 'contains'].includes(key) || /\/(properties|\$defs|schemas)$/.test(pointer);
      if (schemaValued && value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0) out.push(here);
      emptySchemas(value, here, out);
    }
  }
  return out;
}

test('no empty schema in either /openapi.json', async () => {
  for (const surface of [t.platform, t.product]) {
    const res = await surface.get('/openapi.json');
    assert.is(res.status, 200);
    assert.equal(emptySchemas(res.body, '#', []), [], surface.base);
  }
});

test('the batch ingest record is the ingest record schema', async () => {
  const doc = (await t.platform.get('/openapi.json')).body;
  const items = doc.paths['/v1/ingest/batch'].post.requestBody.content['application/json'].schema.properties.records.items;
  assert.equal(items.required, ['external_id', 'title', 'source']);
  assert.ok(items.properties.severity && items.properties.occurred_at && items.properties.narrative, JSON.stringify(items));
});

test('GET / on either port points at /docs', async () => {
  for (const surface of [t.platform, t.product]) {
    const res = await surface.get('/');
    assert.is(res.status, 302, res.text);
    assert.is(res.headers.get('location'), '/docs');
    assert.is(res.body.docs, '/docs');
    assert.is((await surface.get('/docs')).status, 200);
  }
});

test.run();
