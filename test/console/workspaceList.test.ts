/**
 * The sign-in picker's workspace list: `GET /workspaces.json` on the console answers the product
 * API's live workspaces to a caller without any cookie, while the proxy keeps its rule (401 without a
 * session on `/api/backend/workspaces`, not one of the ten public paths); 502 when the API is down.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startConsole } from '../../console/server/start.ts';
import { createLogger } from '../../lib/logger.ts';
import { startTestConsole } from '../helpers/console.ts';
import { createTenant, liveTenant, staffLogin } from '../helpers/product.ts';

const c = await startTestConsole({ worker: true });
test.after(() => c.close());

test('the live workspaces, to a caller with no cookie; the proxy still refuses /workspaces without a session', async () => {
  const admin = await staffLogin(c.t);
  const { tenant } = await liveTenant(c.t, admin);
  await createTenant(admin, { company: 'Not Live Yet' });
  const res = await fetch(`${c.url}/workspaces.json`);
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', 'application/json');
  assert.equal(await res.json(), [{ client_id: tenant.slug, company: 'Acme Industrial', industry: null, status: 'live' }]);
  const proxied = await fetch(`${c.url}/api/backend/workspaces`);
  assert.is(proxied.status, 401);
  assert.equal(await proxied.json(), { detail: 'no session' });
});

test('502 backend unavailable when the product API cannot be reached', async () => {
  const down = await startConsole(
    {
      CONSOLE_PORT: 0,
      HOST: '127.0.0.1',
      PRODUCT_URL: 'http://127.0.0.1:9',
      TRUST_PROXY: false,
      CONSOLE_PROXY_SECRET: c.secret,
      CONSOLE_PROXY_TIMEOUT_MS: 2000,
    },
    createLogger('silent'),
  );
  try {
    const res = await fetch(`${down.url}/workspaces.json`);
    assert.is(res.status, 502);
    assert.equal(await res.json(), { detail: 'backend unavailable' });
  } finally {
    await down.close();
  }
});

test.run();
