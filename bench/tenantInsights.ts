/**
 * The tenant console's insights page at scale (`npm run bench:tenantInsights`): a real `svc api`
 * child process and the console server in front of it, Debian's Chromium (playwright-core) signed in
 * to a tenant whose active snapshot holds 500 patterns (each with 10 records and a 60-point forecast
 * curve), against the same page for a tenant of 5 patterns as the baseline measured in the same run.
 * Printed per size, as medians of alternating runs: the snapshot's size on the wire, first
 * contentful paint, and the time from navigation until every pattern row and chart dot is in the
 * page (the figure the target, under 1 second, is about); then the frame intervals while the page
 * scrolls from top to bottom (smooth: the 95th percentile near the display's 16.7 ms).
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { startConsole } from '../console/server/start.ts';
import { createTestDatabase } from '../fixtures/database.ts';
import { seedInsightSnapshot } from '../fixtures/insightSnapshot.ts';
import { spawnSvc, svcEnv } from '../fixtures/svcProcess.ts';
import { createTenantUser, provisionedLiveTenant } from '../fixtures/tenants.ts';
import { createPool } from '../lib/db.ts';
import { createLogger } from '../lib/logger.ts';
import { intFlag, median, percentile } from './measure.ts';
import { benchArgs } from './args.ts';

const { values } = benchArgs(import.meta.url, {
  options: { patterns: { type: 'string', default: '500' }, baseline: { type: 'string', default: '5' }, runs: { type: 'string', default: '5' } },
});
const SIZES = [intFlag('baseline', values.baseline), intFlag('patterns', values.patterns)];
const RUNS = intFlag('runs', values.runs);
const CHROMIUM = '/usr/bin/chromium';

// The predicate below runs in the page (playwright serialises it); this process has no DOM types.
// It is a function, not a string: the console's CSP forbids eval, which string predicates need.
declare const document: { querySelectorAll(selector: string): { length: number } };

function startApi(databaseUrl: string): Promise<{ child: ChildProcess; product: string }> {
  const child = spawnSvc(
    ['api'],
    svcEnv({ DATABASE_URL: databaseUrl, PLATFORM_PORT: '0', PRODUCT_PORT: '0', METRICS_PORT: '0', LOG_LEVEL: 'info', NODE_ENV: 'test' }),
  );
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`svc api did not start within 60 s:\n${output}`)), 60_000);
    child.stderr!.on('data', (d) => (output += d));
    child.stdout!.on('data', (d) => {
      output += d;
      const product = /"product":"(http:[^"]+)"/.exec(output)?.[1];
      if (product) {
        clearTimeout(timer);
        resolve({ child, product });
      }
    });
  });
}

if (!existsSync(CHROMIUM)) {
  console.error(`${CHROMIUM} is needed (apt-get install chromium); no browser is downloaded.`);
  process.exit(1);
}

const db = await createTestDatabase();
const pool = createPool(db.url, { max: 4 });
const tenants: Array<{ size: number; slug: string; email: string; password: string }> = [];
for (const size of SIZES) {
  const tenant = await provisionedLiveTenant(pool);
  const user = await createTenantUser(pool, tenant.id);
  await seedInsightSnapshot(pool, tenant.id, { patterns: size, seed: size });
  tenants.push({ size, slug: tenant.slug, email: user.email, password: user.password });
}
const api = await startApi(db.url);
const consoleServer = await startConsole(
  { CONSOLE_PORT: 0, HOST: '127.0.0.1', PRODUCT_URL: api.product, TRUST_PROXY: false, CONSOLE_PROXY_SECRET: undefined, CONSOLE_PROXY_TIMEOUT_MS: 30_000 },
  createLogger('silent'),
);
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
});

interface Sample {
  bytes: number;
  fcp: number;
  /** When the snapshot's response had fully arrived (the rest of `rows` is parsing and rendering). */
  snapshot: number;
  rows: number;
}
const samples = new Map<number, Sample[]>(SIZES.map((s) => [s, []]));
const frames = new Map<number, number[]>();
try {
  const pages = new Map<number, import('playwright-core').Page>();
  for (const t of tenants) {
    const login = await fetch(`${consoleServer.url}/api/backend/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ workspace: t.slug, email: t.email, password: t.password }),
    });
    if (login.status !== 200) throw new Error(`login ${login.status}: ${await login.text()}`);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addCookies(
      login.headers.getSetCookie().map((c) => ({ name: c.split('=')[0], value: c.split(';')[0].split('=').slice(1).join('='), url: consoleServer.url })),
    );
    pages.set(t.size, await context.newPage());
  }
  for (let run = 0; run <= RUNS; run++) {
    for (const size of SIZES) {
      const page = pages.get(size)!;
      let bytes = 0;
      const onResponse = async (r: import('playwright-core').Response) => {
        if (r.url().endsWith('/insights/snapshot')) bytes = (await r.body()).length;
      };
      page.on('response', onResponse);
      await page.goto(`${consoleServer.url}/insights`, { waitUntil: 'commit' });
      await page.waitForFunction(
        (n) => document.querySelectorAll('table.patterns tbody tr').length === n && document.querySelectorAll('svg circle.chart__point').length === n,
        size,
        { polling: 'raf', timeout: 30_000 },
      );
      const rows = await page.evaluate(() => performance.now());
      const fcp = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN);
      const snapshot = await page.evaluate(
        () =>
          (performance.getEntriesByType('resource').find((e) => e.name.endsWith('/insights/snapshot')) as { responseEnd: number } | undefined)?.responseEnd ??
          Number.NaN,
      );
      page.off('response', onResponse);
      // The first run warms the browser's caches (the bundle) and is not counted.
      if (run > 0) samples.get(size)!.push({ bytes, fcp, snapshot, rows });
    }
  }
  for (const size of SIZES) {
    const page = pages.get(size)!;
    frames.set(
      size,
      // A string, evaluated by the DevTools protocol (the CSP does not govern it): a function would
      // carry the bundler's __name helper for its inner function, which the page does not have.
      (await page.evaluate(`new Promise((resolve) => {
        const intervals = [];
        let last = performance.now();
        const step = () => {
          const now = performance.now();
          intervals.push(now - last);
          last = now;
          window.scrollBy(0, 120);
          if (window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 1 || intervals.length > 600) resolve(intervals.slice(1));
          else requestAnimationFrame(step);
        };
        window.scrollTo(0, 0);
        requestAnimationFrame(step);
      })`)) as number[],
    );
  }
} finally {
  await browser.close();
  await consoleServer.close();
  api.child.kill('SIGTERM');
  await pool.end();
  await db.drop();
}

const fmt = (n: number) => n.toFixed(0).padStart(7);
console.log(`insights page, median of ${RUNS} runs each (1280x800, Chromium headless)`);
console.log('patterns  snapshot KB   FCP ms  snapshot arrived ms  all rows+dots ms  scroll frames  p95 frame ms  max frame ms');
for (const size of SIZES) {
  const s = samples.get(size)!;
  const f = [...frames.get(size)!].sort((a, b) => a - b);
  console.log(
    `${String(size).padStart(8)}  ${fmt(median(s.map((x) => x.bytes)) / 1024)}    ${fmt(median(s.map((x) => x.fcp)))}  ${fmt(median(s.map((x) => x.snapshot))).padStart(19)}  ${fmt(median(s.map((x) => x.rows))).padStart(16)}  ${String(f.length).padStart(13)}  ${percentile(f, 0.95).toFixed(1).padStart(12)}  ${Math.max(
      ...f,
    )
      .toFixed(1)
      .padStart(12)}`,
  );
}
const [base, big] = SIZES.map((size) => median(samples.get(size)!.map((x) => x.rows)));
console.log(
  `ratio ${SIZES[1]} / ${SIZES[0]} patterns, navigation to all rows and dots: ${(big / base).toFixed(2)}x; ${SIZES[1]} patterns: ${big < 1000 ? 'under' : 'OVER'} the 1 s target`,
);
