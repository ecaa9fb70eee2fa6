/**
 * The cross-workspace matrix (issue 18), generated from the served /openapi.json so that routes added
 * later are covered: every resource kind the isolation probes know (test/helpers/isolation.ts) is
 * created in workspace B, then workspace A's owner calls EVERY templated /v1 operation with each of
 * B's ids in every path parameter. Nothing may answer 2xx or 5xx or a status that could reveal the
 * resource (only 400, 403, 404, 422), no answer may name B's workspace, and afterwards B's
 * resources are intact.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sha256Hex } from '../../../lib/crypto.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { isolationProbes, provisionWorkspace } from '../../helpers/isolation.ts';

const KEY = 'prov-cross-tenant-matrix';
let t: TestApp;
test.before(async () => {
  // TRUST_PROXY: each request names its own client address, so the matrix stays under the rate limit.
  t = await startTestApp({ worker: true, env: { SVC_PROVISION_KEY_HASHES: sha256Hex(KEY), TRUST_PROXY: '1' } });
});
test.after(async () => t.close());

test("A's owner against every id of B on every templated /v1 operation: never data", async () => {
  const a = await provisionWorkspace(t.platform, KEY, { slug: 'matrix-a', ownerEmail: 'owner@matrix-a.example.com' });
  const b = await provisionWorkspace(t.platform, KEY, { slug: 'matrix-b', ownerEmail: 'owner@matrix-b.example.com' });
  const created: Array<{ group: string; id: string }> = [];
  let n = 0;
  for (const probe of isolationProbes()) {
    const id = await probe.create(b.owner.api, { unique: `m${n++}`, anonymous: t.platform, subjectTokenFor: async (email) => `subject-${email}` });
    created.push({ group: probe.group, id });
  }
  const ids = [...new Set(created.flatMap((c) => c.id.split('/')))];

  const doc = (await t.platform.get('/openapi.json')).body;
  let checked = 0;
  for (const [template, item] of Object.entries<any>(doc.paths)) {
    if (!template.includes('{')) continue;
    for (const [method, op] of Object.entries<any>(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method) || !op['x-required-scope']) continue;
      for (const id of ids) {
        const path = template.replace(/\{[^}]+\}/g, id);
        const headers = { 'x-forwarded-for': `10.18.${(checked >> 8) & 255}.${checked & 255}` };
        const res = await a.owner.api.request(method.toUpperCase(), path, ['post', 'put', 'patch'].includes(method) ? { body: {}, headers } : { headers });
        const what = `${method.toUpperCase()} ${template} with B's ${id}`;
        assert.ok([400, 403, 404, 422].includes(res.status), `${what}: ${res.status} ${res.text.slice(0, 300)}`);
        assert.not.ok(res.text.includes(b.workspaceId), `${what} reveals B's workspace: ${res.text.slice(0, 300)}`);
        checked++;
      }
    }
  }
  assert.ok(checked >= 100, `only ${checked} requests`);

  for (const probe of isolationProbes()) {
    const id = created.find((c) => c.group === probe.group)!.id;
    for (const request of probe.paths(id)) {
      if (typeof request !== 'string' || !/^(GET )?\//.test(request)) continue;
      const res = await b.owner.api.get(request.replace(/^GET /, ''));
      assert.is(res.status, 200, `${probe.group}: B's ${request} after A's attempts: ${res.status}`);
    }
    await probe.intact?.(b.owner.api, id);
  }
});

test.run();
