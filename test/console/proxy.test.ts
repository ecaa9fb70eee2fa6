/**
 * The console's `/api/backend/*` proxy at the HTTP level (product-api.md "Console proxy rules"):
 * the 401 without a session except on the ten public paths, the Cookie forwarded, inbound x-svc-*
 * dropped, x-svc-client-ip from the trusted forwarded-for chain, both Set-Cookie of a login relayed
 * as two headers, bodies streamed both ways, 502 when the backend is down or resets; and the product
 * API believing x-svc-client-ip only from the console (login rate limits key on the real client).
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { hasSessionCookie } from '../../console/server/proxy.ts';
import { startConsole, type RunningConsole } from '../../console/server/start.ts';
import { createLogger } from '../../lib/logger.ts';
import { startTestConsole } from '../helpers/console.ts';
import { ProductClient, seedStaff } from '../helpers/product.ts';

const c = await startTestConsole();
test.after(async () => c.close());

/** A stand-in backend that records what reached it; `handler` decides the answer. */
async function fakeBackend(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((r) => server.close(() => r())), server };
}

async function consoleFor(productUrl: string, options: { trustProxy?: boolean; secret?: string; timeoutMs?: number } = {}): Promise<RunningConsole> {
  return startConsole(
    {
      CONSOLE_PORT: 0,
      HOST: '127.0.0.1',
      PRODUCT_URL: productUrl,
      TRUST_PROXY: options.trustProxy ?? false,
      CONSOLE_PROXY_SECRET: options.secret,
      CONSOLE_PROXY_TIMEOUT_MS: options.timeoutMs ?? 30_000,
    },
    createLogger('silent'),
  );
}

/** A raw request: every header line of the answer as sent (rawHeaders), and the body. */
function raw(url: string, options: { method?: string; headers?: Record<string, string | string[]>; body?: string } = {}) {
  return new Promise<{ status: number; rawHeaders: string[]; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, rawHeaders: res.rawHeaders, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

test('without a session cookie only the ten public paths pass; everything else is 401 no session', async () => {
  const anonymous = c.client();
  for (const path of ['/admin/tenants', '/admin/me', '/me', '/members', '/metrics', '/admin/jobs', '/no/such/route', '/admin/login/']) {
    const res = await anonymous.get(path);
    assert.is(res.status, 401, path);
    assert.equal(res.body, { detail: 'no session' }, path);
  }
  // Public paths reach the product API, whose own answers come back.
  assert.is((await anonymous.get('/health')).status, 200);
  assert.is((await anonymous.get('/health/live')).status, 200);
  assert.is((await anonymous.get('/health/ready')).status, 200);
  const login = await anonymous.post('/admin/login', { email: 'nobody@example.com', password: 'nope nope' });
  assert.equal([login.status, login.body], [401, { detail: 'Invalid email or password.' }]);
  const tenantLogin = await anonymous.post('/login', { workspace: 'ghost', email: 'a@b.c', password: 'nope nope' });
  assert.equal([tenantLogin.status, tenantLogin.body], [401, { detail: 'Invalid workspace, email, or password.' }]);
  assert.is((await anonymous.post('/accept-invite', { workspace: 'ghost', token: 'x', password: 'long enough' })).status, 400);
  for (const path of ['/admin/password-reset/request', '/password-reset/request']) {
    assert.is((await anonymous.post(path, { email: 'a@example.com', workspace: 'ghost' })).status, 202, path);
  }
  for (const path of ['/admin/password-reset/confirm', '/password-reset/confirm']) {
    assert.is((await anonymous.post(path, { token: 'x'.repeat(20), password: 'long enough' })).status, 400, path);
  }
  // An empty session cookie is no session either.
  const empty = await anonymous.request('GET', '/admin/me', { headers: { cookie: 'svc_admin_session=; svc_csrf=x' } });
  assert.equal([empty.status, empty.body], [401, { detail: 'no session' }]);
});

test('a session cookie counts wherever it sits in the Cookie header, and only with a value', () => {
  for (const header of ['svc_admin_session=abc', 'svc_csrf=x; svc_tenant_session=abc', ' svc_admin_session = abc ;other=1', 'a=1;svc_tenant_session=t=2'])
    assert.ok(hasSessionCookie(header), header);
  for (const header of [
    undefined,
    '',
    'svc_admin_session=',
    'svc_admin_session= ; svc_csrf=x',
    'xsvc_admin_session=abc',
    'svc_admin_sessionx=abc',
    'svc_admin_session',
    'other=svc_admin_session=abc',
    '=abc; svc_csrf=x',
  ])
    assert.not.ok(hasSessionCookie(header), String(header));
});

test('login through the proxy relays both Set-Cookie headers unchanged, and the Cookie header is forwarded', async () => {
  const staff = await seedStaff(c.t);
  const direct = await raw(`${c.t.productServer!.url}/admin/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: staff.email, password: staff.password }),
  });
  const res = await raw(`${c.url}/api/backend/admin/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: staff.email, password: staff.password }),
  });
  assert.is(res.status, 200, res.body);
  const lines = (r: { rawHeaders: string[] }) => r.rawHeaders.filter((_v, i) => i % 2 === 0 && r.rawHeaders[i].toLowerCase() === 'set-cookie').length;
  assert.is(lines(res), 2, 'two Set-Cookie header lines, never one comma-joined');
  const names = res.headers['set-cookie']!.map((s) => s.split('=')[0]).sort();
  assert.equal(names, ['svc_admin_session', 'svc_csrf']);
  const attributes = (list: string[]) => list.map((s) => s.replace(/=[^;]*;/, '=<value>;').replace(/Expires=[^;]*/, 'Expires=<time>')).sort();
  assert.equal(attributes(res.headers['set-cookie']!), attributes(direct.headers['set-cookie']!), 'attributes exactly as the product API sets them');

  const jar = c.client();
  assert.is((await jar.post('/admin/login', { email: staff.email, password: staff.password })).status, 200);
  const me = await jar.get('/admin/me');
  assert.equal([me.status, me.body.email], [200, staff.email]);
  // CSRF stays the product API's: a write without the header is refused there.
  const logout = await jar.post('/admin/logout', undefined, { noCsrf: true });
  assert.equal([logout.status, logout.body], [403, { detail: 'CSRF token missing or mismatched.' }]);
});

test('inbound x-svc-* headers are dropped; x-svc-client-ip and the console secret are the proxy’s own', async () => {
  const seen: http.IncomingHttpHeaders[] = [];
  const backend = await fakeBackend((req, res) => {
    seen.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
  const secret = randomBytes(32).toString('base64url');
  const trusting = await consoleFor(backend.url, { trustProxy: true, secret });
  const untrusting = await consoleFor(backend.url, { trustProxy: false, secret });
  const forged = {
    cookie: 'svc_admin_session=abc; svc_csrf=def',
    'x-svc-client-ip': '6.6.6.6',
    'X-Svc-Console-Secret': 'forged',
    'x-svc-anything': 'x',
    'x-forwarded-for': '203.0.113.7, 10.0.0.1',
    'x-request-id': 'trace-1',
  };
  await raw(`${trusting.url}/api/backend/admin/me?x=1`, { headers: forged });
  await raw(`${untrusting.url}/api/backend/admin/me`, { headers: forged });
  const [viaTrusting, viaUntrusting] = seen;
  assert.is(viaTrusting['x-svc-client-ip'], '203.0.113.7', 'TRUST_PROXY: the first X-Forwarded-For value');
  assert.is(viaUntrusting['x-svc-client-ip'], '127.0.0.1', 'no TRUST_PROXY: the socket peer, X-Forwarded-For ignored');
  for (const headers of seen) {
    assert.is(headers['x-svc-console-secret'], secret);
    assert.is(headers['x-svc-anything'], undefined);
    assert.is(headers.cookie, 'svc_admin_session=abc; svc_csrf=def');
    assert.is(headers['x-request-id'], 'trace-1');
    assert.is(headers['x-forwarded-for'], undefined, 'the product API is handed the address, not the chain');
  }
  await trusting.close();
  await untrusting.close();
  await backend.close();
});

test('502 backend unavailable when the product API is down, resets, or sends no headers in time', async () => {
  const stopped = await fakeBackend(() => {});
  const url = stopped.url;
  await stopped.close();
  const down = await consoleFor(url);
  for (const path of ['/health', '/admin/me']) {
    const res = await raw(`${down.url}/api/backend${path}`, { headers: { cookie: 'svc_admin_session=x' } });
    assert.equal([res.status, JSON.parse(res.body)], [502, { detail: 'backend unavailable' }], path);
  }
  await down.close();

  const resetting = await fakeBackend((req) => req.socket.destroy());
  const viaReset = await consoleFor(resetting.url);
  const reset = await raw(`${viaReset.url}/api/backend/health`);
  assert.equal([reset.status, JSON.parse(reset.body)], [502, { detail: 'backend unavailable' }]);
  await viaReset.close();
  await resetting.close();

  const silent = await fakeBackend(() => {});
  const viaSilent = await consoleFor(silent.url, { timeoutMs: 300 });
  const slow = await raw(`${viaSilent.url}/api/backend/health`);
  assert.equal([slow.status, JSON.parse(slow.body)], [502, { detail: 'backend unavailable' }]);
  await viaSilent.close();
  silent.server.closeAllConnections();
  await silent.close();
});

test('bodies stream both ways: the backend sees an upload’s start before it ends, the browser a download’s', async () => {
  let uploadStarted: () => void;
  const firstChunkArrived = new Promise<void>((r) => (uploadStarted = r));
  let releaseDownload: () => void;
  const downloadMayEnd = new Promise<void>((r) => (releaseDownload = r));
  const backend = await fakeBackend((req, res) => {
    if (req.url === '/upload') {
      let received = 0;
      req.on('data', (d: Buffer) => {
        received += d.length;
        uploadStarted();
      });
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ received }));
      });
    } else {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.write('first part|');
      void downloadMayEnd.then(() => res.end('second part'));
    }
  });
  const proxy = await consoleFor(backend.url);

  // Upload: the first half is sent, the backend must see it while the rest is still held back.
  const answer = new Promise<string>((resolve, reject) => {
    const req = http.request(
      `${proxy.url}/api/backend/upload`,
      { method: 'POST', headers: { cookie: 'svc_admin_session=x', 'content-type': 'application/octet-stream' } },
      (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve(body));
      },
    );
    req.on('error', reject);
    req.write(Buffer.alloc(64 * 1024, 1));
    void firstChunkArrived.then(() => req.end(Buffer.alloc(64 * 1024, 2)));
  });
  assert.equal(JSON.parse(await answer), { received: 128 * 1024 });

  // Download: the first part reaches the browser while the backend has not finished.
  const parts: string[] = [];
  await new Promise<void>((resolve, reject) => {
    http
      .get(`${proxy.url}/api/backend/download`, { headers: { cookie: 'svc_admin_session=x' } }, (res) => {
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          parts.push(d);
          if (parts.length === 1) releaseDownload();
        });
        res.on('end', resolve);
      })
      .on('error', reject);
  });
  assert.is(parts[0], 'first part|', 'the first part arrived on its own, before the backend ended');
  assert.is(parts.join(''), 'first part|second part');
  await proxy.close();
  await backend.close();
});

test('the product API keys login rate limits on x-svc-client-ip only when the console sent it', async () => {
  const attempt = (client: ProductClient, i: number, headers: Record<string, string> = {}) =>
    client.post('/admin/login', { email: `nobody-${i}-${randomBytes(4).toString('hex')}@example.com`, password: 'wrong password' }, { headers });

  // Straight to the product API, a forged x-svc-client-ip (with or without a made-up secret) is
  // ignored: every attempt spends the socket address's one budget of 20 (an earlier test spent some).
  const direct = new ProductClient(c.t.productServer!.url, '198.51.100.1');
  const forgedIp = (i: number) => ({ 'x-svc-client-ip': `192.0.2.${i + 1}`, ...(i % 2 ? { 'x-svc-console-secret': 'guess'.repeat(10) } : {}) });
  let allowed = 0;
  while ((await attempt(direct, allowed, forgedIp(allowed))).status === 401 && allowed < 25) allowed++;
  assert.ok(allowed <= 20, `limited by the 21st attempt from one socket, not after ${allowed}`);
  for (let i = 30; i < 33; i++) assert.is((await attempt(direct, i, forgedIp(i))).status, 429, 'a new forged address does not buy a new budget');

  // Through the console each browser has its own budget (its own address), even though every
  // request reaches the product API from the console's one socket address.
  for (let person = 0; person < 3; person++) {
    const browser = c.client(`203.0.113.${person + 10}`);
    for (let i = 0; i < 8; i++) assert.is((await attempt(browser, i)).status, 401);
  }
  const busy = c.client('203.0.113.99');
  const busyStatuses: number[] = [];
  for (let i = 0; i < 21; i++) busyStatuses.push((await attempt(busy, i)).status);
  assert.is(busyStatuses[19], 401);
  assert.is(busyStatuses[20], 429, 'one browser through the console is still limited at its own 21st attempt');
});

test('every console response carries the security headers; pages are the app, assets are local', async () => {
  for (const path of ['/admin/tenants', '/accept-invite?workspace=a&token=b', '/reset-password?token=x', '/admin/reset-password?token=x', '/api/backend/me']) {
    const res = await raw(`${c.url}${path}`);
    const csp = String(res.headers['content-security-policy']);
    assert.match(csp, /script-src 'self'(;|$)/, path);
    assert.not.match(csp, /unsafe-inline/, path);
    assert.match(csp, /frame-ancestors 'none'/, path);
    assert.is(res.headers['x-content-type-options'], 'nosniff', path);
    assert.is(res.headers['referrer-policy'], 'no-referrer', path);
  }
  const page = await raw(`${c.url}/accept-invite?workspace=a&token=b`);
  assert.is(page.status, 200);
  const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
  assert.is(assets.length, 2);
  for (const asset of assets) {
    assert.ok(asset.startsWith('/assets/'), `${asset} is served by the console itself`);
    const res = await raw(`${c.url}${asset}`);
    assert.is(res.status, 200, asset);
    assert.match(res.headers['cache-control'] ?? '', /immutable/);
  }
  assert.not.match(page.body, /<script>|<style>|style="/, 'no inline script or style');
  assert.is((await raw(`${c.url}/admin/tenants`, { method: 'POST' })).status, 405);
});

test.run();
