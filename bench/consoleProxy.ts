/**
 * Issue 29's benchmark: what the console's `/api/backend/*` proxy adds to the product API call it
 * forwards, as a ratio to the same call made directly in the same run (absolute times on a shared
 * machine are noise; ratios hold); and how soon the registry of 1,000 tenants is usable in Chromium.
 *
 * 1. One keep-alive client, sequential requests, the two paths interleaved request by request so
 *    drift hits both: `GET /admin/me` (a session lookup, the commonest call) and `GET /admin/tenants`
 *    with 1,000 tenants (about 250 KB of JSON, streamed through). Per round the p50 of each; the
 *    figure is the median over rounds of proxied p50 / direct p50. Target: <= 1.2.
 * 2. Registry (when /usr/bin/chromium exists): from clicking "Tenants" in the nav to the table of
 *    1,000 rows rendered ("N of N tenants" shown), median of the runs. Target: <= 1 s.
 *
 * Run: `npm run bench:consoleProxy` (flags: --rounds, --requests). Results: docs/benchmarks.md.
 */
import { existsSync } from 'node:fs';
import http from 'node:http';
import { parseArgs } from 'node:util';
import { startConsole } from '../console/server/start.ts';
import { median } from './measure.ts';
import { createTestDatabase, startDatabaseServer } from '../fixtures/database.ts';
import { listen } from '../api/http/server.ts';
import { loadConfig } from '../lib/config.ts';
import { createPool } from '../lib/db.ts';
import { createLogger } from '../lib/logger.ts';
import { hashPassword } from '../lib/passwords.ts';
import { buildHttpApps, createAppContext } from '../scripts/processes.ts';
import { upsertEmployee } from '../sql/employees.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '7' },
    requests: { type: 'string', default: '200' },
    paths: { type: 'string', default: '/admin/me,/admin/tenants' },
    browser: { type: 'boolean', default: true },
  },
  allowNegative: true,
});
const rounds = Number(values.rounds);
const requests = Number(values.requests);

const server = await startDatabaseServer();
process.env.SVC_TEST_DATABASE_URL ??= server.url;
const db = await createTestDatabase();
const secret = 'bench-console-proxy-secret-0123456789abcdef';
const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: db.url, LOG_LEVEL: 'silent', PASSWORD_SCRYPT_LOG_N: '14', CONSOLE_PROXY_SECRET: secret });
const logger = createLogger('silent');
const pool = createPool(db.url, { max: 10 });
const app = await createAppContext(config, pool, logger);
const product = await listen(buildHttpApps(app).product, 0, '127.0.0.1');
const consoleServer = await startConsole(
  { CONSOLE_PORT: 0, HOST: '127.0.0.1', PRODUCT_URL: product.url, TRUST_PROXY: false, CONSOLE_PROXY_SECRET: secret, CONSOLE_PROXY_TIMEOUT_MS: 30_000 },
  logger,
);
await pool.query(`insert into tenants (slug, company, industry) select 'bench-' || i, 'Bench Company ' || i, 'retail' from generate_series(1, 1000) as i`);
const email = 'bench@example.com';
const password = 'bench password 1';
await upsertEmployee(pool, { email, passwordHash: await hashPassword(password), role: 'onboarding_admin', fullName: 'Bench' });

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function call(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; ms: number; body: string }> {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, ms: Number(process.hrtime.bigint() - started) / 1e6, body: Buffer.concat(chunks).toString() }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

const login = await call(product.url, 'POST', '/admin/login', { 'content-type': 'application/json' }, JSON.stringify({ email, password }));
const cookie = (login.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');
const headers = { cookie };

const rows: string[] = [];
for (const path of values.paths.split(',')) {
  for (let i = 0; i < 50; i++) {
    await call(product.url, 'GET', path, headers);
    await call(`${consoleServer.url}/api/backend`, 'GET', path, headers);
  }
  const ratios: number[] = [];
  const directP50s: number[] = [];
  const proxiedP50s: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const direct: number[] = [];
    const proxied: number[] = [];
    for (let i = 0; i < requests; i++) {
      const first = (i + round) % 2 === 0;
      const a = await call(first ? product.url : `${consoleServer.url}/api/backend`, 'GET', path, headers);
      const b = await call(first ? `${consoleServer.url}/api/backend` : product.url, 'GET', path, headers);
      if (a.status !== 200 || b.status !== 200) throw new Error(`${path}: ${a.status} ${b.status}`);
      (first ? direct : proxied).push(a.ms);
      (first ? proxied : direct).push(b.ms);
    }
    directP50s.push(median(direct));
    proxiedP50s.push(median(proxied));
    ratios.push(median(proxied) / median(direct));
  }
  rows.push(
    `| GET ${path} | ${median(directP50s).toFixed(2)} ms | ${median(proxiedP50s).toFixed(2)} ms | ${median(ratios).toFixed(2)}x (rounds ${ratios.map((r) => r.toFixed(2)).join(', ')}) |`,
  );
}
process.stdout.write(`proxy overhead: ${rounds} rounds x ${requests} requests per path, sequential, keep-alive\n`);
process.stdout.write('| call | direct p50 | through the proxy p50 | proxied/direct (median of rounds) |\n|---|---|---|---|\n');
process.stdout.write(`${rows.join('\n')}\n`);

if (values.browser && existsSync('/usr/bin/chromium')) {
  const { launchChromium, newContext } = await import('../test/helpers/browser.ts');
  const browser = await launchChromium();
  const context = await newContext(browser);
  const page = await context.newPage();
  await page.goto(`${consoleServer.url}/admin/sign-in?next=/admin/operations`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Operations', level: 1 }).waitFor();
  const times: number[] = [];
  for (let i = 0; i < 7; i++) {
    await page.getByRole('link', { name: 'Operations' }).click();
    await page.getByRole('heading', { name: 'Operations', level: 1 }).waitFor();
    const started = Date.now();
    await page.getByRole('link', { name: 'Tenants' }).click();
    await page.getByText('1000 of 1000 tenants').waitFor();
    await page.locator('tbody tr:nth-child(1000)').waitFor();
    times.push(Date.now() - started);
  }
  process.stdout.write(`registry of 1,000 tenants usable after navigation: median ${median(times)} ms (runs ${times.join(', ')} ms)\n`);
  await browser.close();
} else {
  process.stdout.write('registry timing skipped: /usr/bin/chromium is not installed\n');
}

agent.destroy();
await consoleServer.close();
await product.close(1000);
await pool.end();
await db.drop();
await server.stop();
