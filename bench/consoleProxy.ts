/**
 * Issue 29's benchmark: what the console's `/api/backend/*` proxy adds to the product API call it
 * forwards, as a ratio to the same call made directly in the same run (absolute times on a shared
 * machine are noise; ratios hold); and how soon the registry of 1,000 tenants is usable in Chromium.
 *
 * 1. One keep-alive client, sequential requests, the two paths interleaved request by request so
 *    drift hits both: `GET /admin/me` (a session lookup, the commonest call) and `GET /admin/tenants`
 *    with 1,000 tenants (about 250 KB of JSON, streamed through). Per round the p50 of each; the
 *    figure is the median over rounds of proxied p50 / direct p50. Target: <= 1.2. Next to it, the
 *    median of (proxied - direct) over the back-to-back pairs, as a ratio to the direct p50.
 *    The same calls are measured, in the same rounds (targets taking turns), against deployments whose
 *    servers run in child processes over the same database, the client staying in this process: first,
 *    what production runs, `svc serve` from the build (dist/, built first when stale; the product API
 *    and the console in one process, as `npm start` runs them); with --console-process also `svc api`
 *    + `svc console` (each in its own process, as CONTRACT allows a separately deployed console). Last,
 *    the one-thread stack: client, console and product API in this process under tsx (the figure of
 *    sessions 1-12). --no-production leaves the `svc serve` child out (unless --console-process);
 *    --tsx runs the children from the TypeScript sources; --baseline-tree DIR adds `svc serve` from
 *    DIR/dist/ (an earlier commit, built there) for a before/after in one run. --cpu adds the CPU
 *    time the servers' processes spend per direct and per proxied call (/proc schedstat of every
 *    thread; for the one-thread stack this process's, the client's included). With --concurrency N
 *    each target is also driven by N clients at once (direct, then proxied, per round): throughput
 *    and p50 through the proxy against the direct calls.
 * 2. Registry (when /usr/bin/chromium exists, unless --no-browser): from clicking "Tenants" in the
 *    nav until the registry is usable (the count "1000 of 1000 tenants", the first rows' links and
 *    the search box, painted), next to the same page with 10 tenants (a second product API and
 *    console over their own database, runs alternating). Also: until every row is in the page (the
 *    rows past the first window fill in while the browser is idle) and from typing a slug in the
 *    search until the one match shows. Median of the runs. Target: usable within 1 s.
 *
 * The load average (1, 5, 15 min) is printed at the start and the end: on the shared machine absolute
 * times follow it, ratios within one run much less.
 *
 * Run: `npm run bench:consoleProxy` (flags: --rounds, --requests, --paths a,b, --no-browser,
 * --no-production, --tsx, --baseline-tree DIR, --console-process, --cpu, --concurrency N).
 * Results: docs/benchmarks.md.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import { startConsole } from '../console/server/start.ts';
import { loadAverage, median } from './measure.ts';
import { createTestDatabase, startDatabaseServer } from '../fixtures/database.ts';
import { listen } from '../api/http/server.ts';
import { loadConfig } from '../lib/config.ts';
import { createPool } from '../lib/db.ts';
import { createLogger } from '../lib/logger.ts';
import { hashPassword } from '../lib/passwords.ts';
import { buildHttpApps, createAppContext } from '../scripts/processes.ts';
import { upsertEmployee } from '../sql/employees.ts';
import { benchArgs } from './args.ts';
import { childGroup, freePort, processCpuNs, until200 } from './childServers.ts';

// Runs in the page (playwright serialises it); this process has no DOM types.
declare function requestAnimationFrame(callback: () => void): void;

const { values } = benchArgs(import.meta.url, {
  options: {
    rounds: { type: 'string', default: '7' },
    requests: { type: 'string', default: '200' },
    paths: { type: 'string', default: '/admin/me,/admin/tenants' },
    browser: { type: 'boolean', default: true },
    'console-process': { type: 'boolean', default: false },
    production: { type: 'boolean', default: true },
    tsx: { type: 'boolean', default: false },
    'baseline-tree': { type: 'string' },
    cpu: { type: 'boolean', default: false },
    concurrency: { type: 'string', default: '0' },
  },
  allowNegative: true,
});
const rounds = Number(values.rounds);
const requests = Number(values.requests);
const concurrency = Number(values.concurrency);

const loadAtStart = loadAverage();
const server = await startDatabaseServer();
process.env.SVC_TEST_DATABASE_URL ??= server.url;
const secret = 'bench-console-proxy-secret-0123456789abcdef';
const logger = createLogger('silent');
const email = 'bench@example.com';
const password = 'bench password 1';

/** A product API over its own database of `tenants` tenants and a console in front of it, in this process (as `svc serve`). */
async function startStack(tenants: number) {
  const db = await createTestDatabase();
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: db.url, LOG_LEVEL: 'silent', PASSWORD_SCRYPT_LOG_N: '14', CONSOLE_PROXY_SECRET: secret });
  const pool = createPool(db.url, { max: 10 });
  const app = await createAppContext(config, pool, logger);
  const product = await listen(buildHttpApps(app).product, 0, '127.0.0.1');
  const consoleServer = await startConsole(
    { CONSOLE_PORT: 0, HOST: '127.0.0.1', PRODUCT_URL: product.url, TRUST_PROXY: false, CONSOLE_PROXY_SECRET: secret, CONSOLE_PROXY_TIMEOUT_MS: 30_000 },
    logger,
  );
  await pool.query(
    `insert into tenants (slug, company, industry) select 'bench-' || i, 'Bench Company ' || i, 'retail' from generate_series(1, $1::int) as i`,
    [tenants],
  );
  await upsertEmployee(pool, { email, passwordHash: await hashPassword(password), role: 'onboarding_admin', fullName: 'Bench' });
  return {
    tenants,
    product,
    consoleServer,
    databaseUrl: db.url,
    async close() {
      await consoleServer.close();
      await product.close(1000);
      await pool.end();
      await db.drop();
    },
  };
}

// The registry's baseline: the same page with 10 tenants, in the same run, runs alternating.
const stacks = [await startStack(10), await startStack(1000)];
const { product, consoleServer } = stacks[1];

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

/** `svc <command>` in a child process: the compiled dist/ that `npm start` runs, or with --tsx the TypeScript sources. */
function svc(command: string, env: Record<string, string>, tree?: string): ChildProcess {
  const entry = tree ? [`${tree}/dist/scripts/svc.js`] : values.tsx ? ['--import', 'tsx', 'scripts/svc.ts'] : ['dist/scripts/svc.js'];
  const child = spawn(process.execPath, [...entry, command], {
    cwd: tree,
    env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'warn', HOST: '127.0.0.1', PASSWORD_SCRYPT_LOG_N: '14', CONSOLE_PROXY_SECRET: secret, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return children.add(child, `svc ${command}`);
}

const children = childGroup();

/** A deployment in child processes over the database of the 1,000-tenant stack: its product API and console URLs, and its pids. */
async function startDeployment(kind: 'serve' | 'split', tree?: string): Promise<{ product: string; console: string; pids: number[] }> {
  const [platformPort, productPort, consolePort, metricsPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const product = `http://127.0.0.1:${productPort}`;
  const consoleUrl = `http://127.0.0.1:${consolePort}`;
  const env = {
    DATABASE_URL: stacks[1].databaseUrl,
    PLATFORM_PORT: String(platformPort),
    PRODUCT_PORT: String(productPort),
    CONSOLE_PORT: String(consolePort),
    METRICS_PORT: String(metricsPort),
    PRODUCT_URL: product,
  };
  const started = kind === 'serve' ? [svc('serve', env, tree)] : [svc('api', env), svc('console', { CONSOLE_PORT: env.CONSOLE_PORT, PRODUCT_URL: product })];
  await until200(`${product}/health/live`);
  await until200(`${consoleUrl}/api/backend/health/live`);
  return { product, console: consoleUrl, pids: started.map((child) => child.pid!) };
}

interface Target {
  label: string;
  direct: string;
  proxied: string;
  /** CPU time (ns) used so far by the servers' processes (this process, client included, for the one-thread stack). */
  cpuNs(): number;
}
const targets: Target[] = [
  {
    label: 'one thread (client, console, product API; tsx)',
    direct: product.url,
    proxied: `${consoleServer.url}/api/backend`,
    cpuNs: () => {
      const used = process.cpuUsage();
      return (used.user + used.system) * 1000;
    },
  },
];
const built = values.tsx ? 'tsx' : 'dist/';
// What `npm start` runs: `svc serve` from the build, the console in the product API's process. The
// client is this process, as a browser is another program.
if (values.production || values['console-process']) {
  if (!values.tsx) execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { stdio: 'inherit' });
  const serve = await startDeployment('serve');
  targets.unshift({
    label: values.tsx ? '`svc serve` child (console and product API in one process; tsx)' : '`svc serve` child from dist/: what `npm start` runs',
    direct: serve.product,
    proxied: `${serve.console}/api/backend`,
    cpuNs: () => processCpuNs(serve.pids),
  });
}
// Before against after in one run: `svc serve` built from another checkout of the tree (an earlier
// commit extracted with its own dist/, e.g. `git archive <commit> | tar -x -C DIR`, node_modules
// linked, `node scripts/build.mjs` there).
if (values['baseline-tree']) {
  const tree = values['baseline-tree'];
  const baseline = await startDeployment('serve', tree);
  targets.splice(1, 0, {
    label: `\`svc serve\` child from ${tree}/dist/ (baseline)`,
    direct: baseline.product,
    proxied: `${baseline.console}/api/backend`,
    cpuNs: () => processCpuNs(baseline.pids),
  });
}
if (values['console-process']) {
  const split = await startDeployment('split');
  targets.push({
    label: `\`svc api\` + \`svc console\` children (a process each; ${built})`,
    direct: split.product,
    proxied: `${split.console}/api/backend`,
    cpuNs: () => processCpuNs(split.pids),
  });
}

// Sessions live in the database: one login serves every product API over it.
const login = await call(product.url, 'POST', '/admin/login', { 'content-type': 'application/json' }, JSON.stringify({ email, password }));
const cookie = (login.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');
const headers = { cookie };

interface Figures {
  ratios: number[];
  added: number[];
  directP50s: number[];
  proxiedP50s: number[];
}
const rows: string[] = [];
for (const path of values.paths.split(',')) {
  // Warm-up: the JIT and both keep-alive connections (the first rounds ran 3-5x slower with 50).
  for (const target of targets) {
    for (let i = 0; i < 300; i++) {
      await call(target.direct, 'GET', path, headers);
      await call(target.proxied, 'GET', path, headers);
    }
  }
  const figures = new Map<Target, Figures>(targets.map((t) => [t, { ratios: [], added: [], directP50s: [], proxiedP50s: [] }]));
  for (let round = 0; round < rounds; round++) {
    // The targets take turns within each round, so the machine's drift reaches each of them.
    for (const target of targets) {
      const f = figures.get(target)!;
      const direct: number[] = [];
      const proxied: number[] = [];
      for (let i = 0; i < requests; i++) {
        const first = (i + round) % 2 === 0;
        const a = await call(first ? target.direct : target.proxied, 'GET', path, headers);
        const b = await call(first ? target.proxied : target.direct, 'GET', path, headers);
        if (a.status !== 200 || b.status !== 200) throw new Error(`${path}: ${a.status} ${b.status}`);
        (first ? direct : proxied).push(a.ms);
        (first ? proxied : direct).push(b.ms);
        // Each direct call and its proxied neighbour ran back to back: their difference cancels the
        // machine's slow and fast moments better than two p50s do.
        f.added.push(first ? b.ms - a.ms : a.ms - b.ms);
      }
      f.directP50s.push(median(direct));
      f.proxiedP50s.push(median(proxied));
      f.ratios.push(median(proxied) / median(direct));
    }
  }
  for (const target of targets) {
    const f = figures.get(target)!;
    const ratio = median(f.ratios);
    const pairedMs = median(f.added);
    const paired = 1 + pairedMs / median(f.directP50s);
    rows.push(
      `| ${target.label} | GET ${path} | ${median(f.directP50s).toFixed(2)} ms | ${median(f.proxiedP50s).toFixed(2)} ms | ${ratio.toFixed(2)}x (rounds ${f.ratios.map((r) => r.toFixed(2)).join(', ')}) | +${pairedMs.toFixed(3)} ms = ${paired.toFixed(2)}x | ${ratio <= 1.2 && paired <= 1.2 ? 'met' : 'NOT met'} |`,
    );
  }
}
process.stdout.write(`load average at start: ${loadAtStart}\n`);
process.stdout.write(`proxy overhead: ${rounds} rounds x ${requests} requests per path, sequential, keep-alive; baseline: the same call made directly\n`);
process.stdout.write(
  '| servers | call | direct p50 (baseline) | through the proxy p50 | proxied/direct (median of rounds) | added (median of back-to-back pairs) | target <= 1.20x |\n|---|---|---|---|---|---|---|\n',
);
process.stdout.write(`${rows.join('\n')}\n`);

if (values.cpu) {
  // CPU time per call of the servers' processes (a figure the machine's load moves much less than
  // latency): per round and target, `requests` direct calls then as many proxied (order alternating
  // round by round); what a proxied call costs the servers over a direct one is the hop's CPU.
  const cpuRows: string[] = [];
  for (const path of values.paths.split(',')) {
    const per = new Map(targets.map((t) => [t, { direct: [] as number[], proxied: [] as number[] }]));
    for (let round = 0; round < rounds; round++) {
      for (const target of round % 2 === 0 ? targets : [...targets].reverse()) {
        const r = per.get(target)!;
        for (const kind of round % 2 === 0 ? (['direct', 'proxied'] as const) : (['proxied', 'direct'] as const)) {
          const before = target.cpuNs();
          for (let i = 0; i < requests; i++) await call(target[kind], 'GET', path, headers);
          r[kind].push((target.cpuNs() - before) / requests / 1000);
        }
      }
    }
    for (const target of targets) {
      const r = per.get(target)!;
      const added = r.proxied.map((p, i) => p - r.direct[i]);
      cpuRows.push(
        `| ${target.label} | GET ${path} | ${median(r.direct).toFixed(0)} µs | ${median(r.proxied).toFixed(0)} µs | +${median(added).toFixed(0)} µs (rounds ${added.map((x) => x.toFixed(0)).join(', ')}) | ${median(r.proxied.map((p, i) => p / r.direct[i])).toFixed(2)}x |`,
      );
    }
  }
  process.stdout.write(
    `\nCPU time of the servers' processes per call (this process, client included, for the one-thread stack), ${rounds} rounds x ${requests} calls\n`,
  );
  process.stdout.write(
    '| servers | call | direct | through the proxy | added by the hop (median of rounds) | proxied/direct (median of rounds) |\n|---|---|---|---|---|---|\n',
  );
  process.stdout.write(`${cpuRows.join('\n')}\n`);
}

if (concurrency > 0) {
  const many = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  /** `requests` calls with `concurrency` in flight: requests per second and the p50 latency. */
  async function load(base: string, path: string): Promise<{ rps: number; p50: number }> {
    const times: number[] = [];
    let next = 0;
    const started = process.hrtime.bigint();
    const client = async () => {
      while (next++ < requests) {
        const t = process.hrtime.bigint();
        const status = await new Promise<number>((resolve, reject) =>
          http
            .get(`${base}${path}`, { headers, agent: many }, (res) => {
              res.resume();
              res.on('end', () => resolve(res.statusCode!));
            })
            .on('error', reject),
        );
        if (status !== 200) throw new Error(`${base}${path}: ${status}`);
        times.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, client));
    return { rps: times.length / (Number(process.hrtime.bigint() - started) / 1e9), p50: median(times) };
  }
  const loadRows: string[] = [];
  for (const path of values.paths.split(',')) {
    const results = new Map(targets.map((t) => [t, { direct: [] as { rps: number; p50: number }[], proxied: [] as { rps: number; p50: number }[] }]));
    for (const target of targets) {
      await load(target.direct, path);
      await load(target.proxied, path);
    }
    for (let round = 0; round < rounds; round++) {
      for (const target of targets) {
        const r = results.get(target)!;
        r.direct.push(await load(target.direct, path));
        r.proxied.push(await load(target.proxied, path));
      }
    }
    for (const target of targets) {
      const r = results.get(target)!;
      const rps = (xs: { rps: number }[]) => median(xs.map((x) => x.rps));
      const p50 = (xs: { p50: number }[]) => median(xs.map((x) => x.p50));
      const ratios = r.proxied.map((p, i) => p.p50 / r.direct[i].p50);
      loadRows.push(
        `| ${target.label} | GET ${path} | ${rps(r.direct).toFixed(0)}/s, p50 ${p50(r.direct).toFixed(2)} ms | ${rps(r.proxied).toFixed(0)}/s, p50 ${p50(r.proxied).toFixed(2)} ms | ${(rps(r.proxied) / rps(r.direct)).toFixed(2)}x | ${median(ratios).toFixed(2)}x (rounds ${ratios.map((x) => x.toFixed(2)).join(', ')}) |`,
      );
    }
  }
  many.destroy();
  process.stdout.write(
    `\nunder load: ${concurrency} clients at once, ${requests} requests per measurement, ${rounds} rounds (direct then proxied, targets in turn)\n`,
  );
  process.stdout.write(
    '| servers | call | direct | through the proxy | proxied/direct throughput | proxied/direct p50 (median of rounds) |\n|---|---|---|---|---|---|\n',
  );
  process.stdout.write(`${loadRows.join('\n')}\n`);
}

const registryRows: string[] = [];
if (values.browser && existsSync('/usr/bin/chromium')) {
  const { launchChromium, newContext } = await import('../test/helpers/browser.ts');
  const browser = await launchChromium();
  const pages: import('playwright-core').Page[] = [];
  for (const stack of stacks) {
    const page = await (await newContext(browser)).newPage();
    await page.goto(`${stack.consoleServer.url}/admin/sign-in?next=/admin/operations`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Operations', level: 1 }).waitFor();
    pages.push(page);
  }
  const paintedAt = (page: (typeof pages)[number]) =>
    page.evaluate(() => new Promise<number>((resolve) => requestAnimationFrame(() => resolve(performance.now()))));
  const times = stacks.map(() => ({ usable: [] as number[], whole: [] as number[], search: [] as number[] }));
  for (let run = 0; run <= rounds; run++) {
    for (const [i, stack] of stacks.entries()) {
      const page = pages[i];
      const n = stack.tenants;
      await page.getByRole('link', { name: 'Operations' }).click();
      await page.getByRole('heading', { name: 'Operations', level: 1 }).waitFor();
      // Usable: the count, the first rows (links a person can open) and the search box, painted.
      const started = await page.evaluate(() => performance.now());
      await page.getByRole('link', { name: 'Tenants' }).click();
      await page.getByText(`${n} of ${n} tenants`).waitFor();
      await page.locator('tbody tr a').first().waitFor();
      const usable = (await paintedAt(page)) - started;
      // The rest of the rows fill in while the browser is idle.
      await page.locator(`tbody tr:nth-child(${n}) a`).waitFor({ state: 'attached' });
      const whole = (await paintedAt(page)) - started;
      // Searching the registry: typing a slug until the one match is shown.
      const typed = await page.evaluate(() => performance.now());
      await page.getByLabel('Search slug, company or industry').fill(`bench-${n}`);
      await page.getByText(`1 of ${n} tenants`).waitFor();
      const search = (await paintedAt(page)) - typed;
      await page.getByLabel('Search slug, company or industry').fill('');
      // The first run warms the browser (the bundle, the JIT) and is not counted.
      if (run > 0) {
        times[i].usable.push(usable);
        times[i].whole.push(whole);
        times[i].search.push(search);
      }
    }
  }
  const f = (values: number[]) => `${median(values).toFixed(0)} ms`;
  for (const [i, stack] of stacks.entries()) {
    const t = times[i];
    registryRows.push(
      `| ${stack.tenants}${i === 0 ? ' (baseline)' : ''} | ${f(t.usable)} (runs ${t.usable.map((x) => x.toFixed(0)).join(', ')}) | ${f(t.whole)} | ${f(t.search)} |`,
    );
  }
  await browser.close();
} else {
  registryRows.push(values.browser ? '(registry timing skipped: /usr/bin/chromium is not installed)' : '(registry timing skipped: --no-browser)');
}

process.stdout.write(`\nregistry in Chromium, ${rounds} runs each after a warm-up, alternating; target: 1,000 tenants usable within 1 s of navigation\n`);
process.stdout.write(
  '| tenants | usable after navigation (count, first rows, search; painted) | every row in the page | search to the one match |\n|---|---|---|---|\n',
);
process.stdout.write(`${registryRows.join('\n')}\n`);

process.stdout.write(`load average at end: ${loadAverage()}\n`);
agent.destroy();
await children.stopAll();
for (const stack of stacks) await stack.close();
await server.stop();
