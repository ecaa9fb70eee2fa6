/**
 * `svc serve` runs the console and the product API in one process; unless PRODUCT_URL is set, the
 * console's proxy reaches the product API over a Unix socket private to the process (docs/decisions.md,
 * issue 29, session 13). What must hold: the socket is the console's way (PRODUCT_PORT=0 makes the
 * default PRODUCT_URL unreachable, so a proxied answer can only have come through it), the file is
 * not world-accessible and is gone after shutdown, the client address the console forwards is still
 * believed (login rate limits per browser), a forged `x-svc-client-ip` sent straight to the socket is
 * not, and an operator's PRODUCT_URL is honoured (no socket).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import http from 'node:http';
import { dirname } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestDatabase, type TestDatabase } from '../../fixtures/database.ts';
import { loadConfig } from '../../lib/config.ts';
import { startProcess, type RunningProcess } from '../../scripts/processes.ts';
import { ProductClient } from '../helpers/product.ts';

let db: TestDatabase;
let served: RunningProcess | undefined;
let consoleUrl: string;

const env = (databaseUrl: string) => ({
  NODE_ENV: 'test',
  DATABASE_URL: databaseUrl,
  LOG_LEVEL: 'silent',
  PASSWORD_SCRYPT_LOG_N: '14',
  PLATFORM_PORT: '0',
  PRODUCT_PORT: '0',
  CONSOLE_PORT: '0',
  METRICS_PORT: '0',
  TRUST_PROXY: 'true',
});

test.before(async () => {
  db = await createTestDatabase();
  served = await startProcess(loadConfig(env(db.url)), { api: true, worker: false, console: true });
  consoleUrl = served.console!.url;
});
test.after(async () => {
  await served?.stop();
  await db?.drop();
});

/** A login attempt straight to the private socket, as another local process of the same user could send it. */
function loginOverSocket(socketPath: string, headers: Record<string, string>): Promise<number> {
  const body = JSON.stringify({ email: `nobody-${randomBytes(4).toString('hex')}@example.com`, password: 'wrong password' });
  return new Promise((resolve, reject) => {
    const req = http.request(
      { socketPath, path: '/admin/login', method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

test('the console reaches the product API over the private socket, mode 0600 in a 0700 directory', async () => {
  const socket = served!.productSocket;
  assert.ok(socket, 'svc serve without PRODUCT_URL listens on a private socket');
  assert.is(statSync(socket.path).mode & 0o777, 0o600);
  assert.is(statSync(dirname(socket.path)).mode & 0o777, 0o700);
  // PRODUCT_PORT=0: the default PRODUCT_URL names port 0, which nothing answers; the socket does.
  const res = await new ProductClient(`${consoleUrl}/api/backend`).get('/health/live');
  assert.is(res.status, 200);
  const connections = await new Promise<number>((resolve, reject) => socket.server.getConnections((err, n) => (err ? reject(err) : resolve(n))));
  assert.ok(connections >= 1, 'the proxied request came in on the socket');
});

test('through the socket each browser keeps its own login budget; a forged x-svc-client-ip sent to the socket is ignored', async () => {
  const attempt = (client: ProductClient, i: number) =>
    client.post('/admin/login', { email: `nobody-${i}-${randomBytes(4).toString('hex')}@example.com`, password: 'wrong password' });
  const busy = new ProductClient(`${consoleUrl}/api/backend`, '203.0.113.7');
  const statuses: number[] = [];
  for (let i = 0; i < 21; i++) statuses.push((await attempt(busy, i)).status);
  assert.is(statuses[19], 401);
  assert.is(statuses[20], 429, 'the browser is limited at its own 21st attempt');
  assert.is((await attempt(new ProductClient(`${consoleUrl}/api/backend`, '203.0.113.8'), 0)).status, 401, 'another browser has its own budget');

  // Without the console's secret a forged address buys nothing: every attempt shares one budget.
  const path = served!.productSocket!.path;
  const forged = (i: number) => ({ 'x-svc-client-ip': `192.0.2.${i + 1}`, ...(i % 2 ? { 'x-svc-console-secret': 'guess'.repeat(10) } : {}) });
  let allowed = 0;
  while ((await loginOverSocket(path, forged(allowed))) === 401 && allowed < 25) allowed++;
  assert.is(allowed, 20, 'limited at the 21st attempt whatever address each one claimed');
});

test('the socket file and its directory are removed on shutdown', async () => {
  const path = served!.productSocket!.path;
  const stopping = served!;
  served = undefined;
  await stopping.stop();
  assert.not.ok(existsSync(path));
  assert.not.ok(existsSync(dirname(path)));
});

test('with PRODUCT_URL set, svc serve proxies to it and opens no socket', async () => {
  const other = await startProcess(loadConfig({ ...env(db.url), PRODUCT_URL: 'http://127.0.0.1:9' }), { api: true, worker: false, console: true });
  try {
    assert.is(other.productSocket, undefined);
    // Port 9 (discard) answers nothing: the console went where it was told.
    const res = await new ProductClient(`${other.console!.url}/api/backend`).get('/health/live');
    assert.equal([res.status, res.body], [502, { detail: 'backend unavailable' }]);
  } finally {
    await other.stop();
  }
});

test.run();
