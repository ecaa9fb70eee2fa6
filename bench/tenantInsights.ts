/**
 * The tenant console at scale (`npm run bench:tenantInsights`, issue 30): a real `svc api` child
 * process and the console server in front of it, Debian's Chromium (playwright-core; never a
 * downloaded browser) signed in to a tenant whose active snapshot holds 500 patterns (each with 10
 * records and a 60-point forecast curve) and who has 5,000 CAPs, against a baseline tenant of 5
 * patterns and 5 CAPs measured in the same run, the runs alternating. Medians of the runs, 1280×800:
 *
 * - insights list: bytes of the list's snapshot (`?view=summary`), first contentful paint, and
 *   "patterns shown": navigation until the first window of rows, every chart dot and the count are in
 *   the page and painted (the target: under 1 second);
 * - a pattern's page opened from the list (its first open reads the full snapshot once);
 * - scrolling the list from top to bottom (the rows below the first window render on the way):
 *   frame intervals, p95 and max (smooth: p95 near the display's 16.7 ms), and every row in the end;
 * - the plans page: navigation until the first page of plans shows, then "Next" to the second page.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { chromium } from 'playwright-core';
import { startConsole } from '../console/server/start.ts';
import { createTestDatabase } from '../fixtures/database.ts';
import { seedInsightSnapshot } from '../fixtures/insightSnapshot.ts';
import { spawnSvc, svcEnv } from '../fixtures/svcProcess.ts';
import { createTenantUser, provisionedLiveTenant } from '../fixtures/tenants.ts';
import { createPool } from '../lib/db.ts';
import { withTenant } from '../sql/tenant/schema.ts';
import { findTenant } from '../sql/tenants.ts';
import { createLogger } from '../lib/logger.ts';
import { intFlag, median, percentile } from './measure.ts';
import { benchArgs } from './args.ts';

const { values } = benchArgs(import.meta.url, {
  options: {
    patterns: { type: 'string', default: '500' },
    baseline: { type: 'string', default: '5' },
    caps: { type: 'string', default: '5000' },
    runs: { type: 'string', default: '5' },
  },
});
const SIZES = [intFlag('baseline', values.baseline), intFlag('patterns', values.patterns)];
const RUNS = intFlag('runs', values.runs);
const CAPS = [SIZES[0], intFlag('caps', values.caps)];
const CHROMIUM = '/usr/bin/chromium';

// The predicate below runs in the page (playwright serialises it); this process has no DOM types.
// It is a function, not a string: the console's CSP forbids eval, which string predicates need.
declare const document: { querySelectorAll(selector: string): { length: number }; querySelector(selector: string): { textContent: string | null } | null };
declare function requestAnimationFrame(callback: () => void): void;

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

/** `count` CAPs straight into the tenant's schema (what `POST /remediation/caps` would store), statuses mixed. */
async function seedCaps(pool: ReturnType<typeof createPool>, tenantId: string, count: number) {
  const tenant = await findTenant(pool, tenantId);
  await withTenant(pool, tenant!.schema_name, (db) =>
    db.query(
      `insert into caps (title, problem_statement, target_type, target_id, status, due_date, created_at)
       select 'Plan ' || i || ': stop the ' || (array['disk', 'timeout', 'conveyor', 'sensor', 'valve'])[1 + i % 5] || ' failures',
              'Problem statement of plan ' || i, (array['pattern', 'record', 'source', 'other'])[1 + i % 4], 'target-' || (i % 97),
              (array['draft', 'submitted', 'approved', 'in_progress', 'verified', 'closed', 'rejected', 'cancelled'])[1 + i % 8],
              date '2027-01-01' + (i % 300), now() - make_interval(mins => i)
         from generate_series(1, $1::int) as i`,
      [count],
    ),
  );
}

if (!existsSync(CHROMIUM)) {
  console.error(`${CHROMIUM} is needed (apt-get install chromium); no browser is downloaded.`);
  process.exit(1);
}

const loadAtStart = loadavg()
  .map((l) => l.toFixed(2))
  .join(', ');
const db = await createTestDatabase();
const pool = createPool(db.url, { max: 4 });
const tenants: Array<{ size: number; slug: string; email: string; password: string }> = [];
for (const size of SIZES) {
  const tenant = await provisionedLiveTenant(pool);
  const user = await createTenantUser(pool, tenant.id);
  await seedInsightSnapshot(pool, tenant.id, { patterns: size, seed: size });
  await seedCaps(pool, tenant.id, CAPS[SIZES.indexOf(size)]);
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
  /** When the list's snapshot had fully arrived. */
  snapshot: number;
  /** Navigation until the first rows, every dot and the count are painted. */
  shown: number;
  /** From clicking the first pattern until its page shows its records. */
  pattern: number;
  /** Of which the pattern's request (`?pattern_id=`), from its start to its last byte. */
  patternRequest: number;
  /** Navigation until the first page of plans is shown; then "Next" until the second. */
  caps: number;
  capsNext: number;
}
const samples = new Map<number, Sample[]>(SIZES.map((s) => [s, []]));
const frames = new Map<number, { intervals: number[]; rows: number }>();
type Page = import('playwright-core').Page;

/** performance.now() in the page after the next frame: the moment what is in the DOM was painted. */
const paintedAt = (page: Page) => page.evaluate(() => new Promise<number>((resolve) => requestAnimationFrame(() => resolve(performance.now()))));

try {
  const pages = new Map<number, Page>();
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
    for (const [i, size] of SIZES.entries()) {
      const page = pages.get(size)!;
      let bytes = 0;
      const onResponse = async (r: import('playwright-core').Response) => {
        if (r.url().includes('/insights/snapshot?view=summary')) bytes = (await r.body()).length;
      };
      page.on('response', onResponse);
      await page.goto(`${consoleServer.url}/insights`, { waitUntil: 'commit' });
      await page.waitForFunction(
        (n) =>
          document.querySelectorAll('table.patterns tbody tr').length >= Math.min(n, 60) &&
          document.querySelectorAll('svg circle.chart__point').length === n &&
          (document.querySelector('p.count')?.textContent ?? '').startsWith(`${n} patterns`),
        size,
        { polling: 'raf', timeout: 30_000 },
      );
      const shown = await paintedAt(page);
      const fcp = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN);
      const snapshot = await page.evaluate(
        () =>
          (performance.getEntriesByType('resource').find((e) => e.name.includes('/insights/snapshot?view=summary')) as { responseEnd: number } | undefined)
            ?.responseEnd ?? Number.NaN,
      );
      page.off('response', onResponse);

      // A pattern's page, opened from the list (the full snapshot is read on its first open).
      const opened = await page.evaluate(() => performance.now());
      await page.locator('table.patterns tbody tr a').first().click();
      await page.getByRole('heading', { name: 'Records', level: 2 }).waitFor({ timeout: 30_000 });
      await page.locator('table tbody tr').first().waitFor();
      const pattern = (await paintedAt(page)) - opened;
      const patternRequest = await page.evaluate(() => {
        const entry = performance.getEntriesByType('resource').find((e) => e.name.includes('/insights/snapshot?pattern_id=')) as
          | { startTime: number; responseEnd: number }
          | undefined;
        return entry ? entry.responseEnd - entry.startTime : Number.NaN;
      });

      // The plans page: the first page of plans, then the next one.
      const caps = CAPS[i];
      await page.goto(`${consoleServer.url}/remediation/caps`, { waitUntil: 'commit' });
      await page.getByText(`Plans 1–${Math.min(50, caps)} of ${caps}`).waitFor({ timeout: 30_000 });
      const capsShown = await paintedAt(page);
      let capsNext = Number.NaN;
      if (caps > 50) {
        const clicked = await page.evaluate(() => performance.now());
        await page.getByRole('button', { name: 'Next' }).click();
        await page.getByText(`Plans 51–100 of ${caps}`).waitFor();
        capsNext = (await paintedAt(page)) - clicked;
      }
      // The first run warms the browser's caches (the bundle) and is not counted.
      if (run > 0) samples.get(size)!.push({ bytes, fcp, snapshot, shown, pattern, patternRequest, caps: capsShown, capsNext });
    }
  }
  for (const size of SIZES) {
    const page = pages.get(size)!;
    await page.goto(`${consoleServer.url}/insights`);
    await page.locator('table.patterns tbody tr').first().waitFor();
    const intervals = (await page.evaluate(`new Promise((resolve) => {
        const intervals = [];
        let last = performance.now();
        const step = () => {
          const now = performance.now();
          intervals.push(now - last);
          last = now;
          window.scrollBy(0, 120);
          const more = document.querySelector('tr.more-rows');
          if ((!more && window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 1) || intervals.length > 2000) resolve(intervals.slice(1));
          else requestAnimationFrame(step);
        };
        window.scrollTo(0, 0);
        requestAnimationFrame(step);
      })`)) as number[];
    // A string, evaluated by the DevTools protocol (the CSP does not govern it): a function would
    // carry the bundler's __name helper for its inner function, which the page does not have.
    const rows = (await page.evaluate(`document.querySelectorAll('table.patterns tbody tr').length`)) as number;
    frames.set(size, { intervals, rows });
  }
} finally {
  await browser.close();
  await consoleServer.close();
  api.child.kill('SIGTERM');
  await pool.end();
  await db.drop();
}

const ms = (values: number[]) => {
  const m = median(values);
  return Number.isNaN(m) ? '—' : `${m.toFixed(0)} ms`;
};
console.log(`tenant console at scale, median of ${RUNS} runs each (1280x800, Chromium headless), baseline first`);
console.log(
  `load average at start: ${loadAtStart}; at end: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(', ')}`,
);
console.log(
  '| patterns / CAPs | list snapshot | FCP | list snapshot arrived | patterns shown | a pattern opened (its request) | plans shown | next page of plans |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
for (const [i, size] of SIZES.entries()) {
  const s = samples.get(size)!;
  console.log(
    `| ${size} / ${CAPS[i]} | ${(median(s.map((x) => x.bytes)) / 1024).toFixed(0)} KB | ${ms(s.map((x) => x.fcp))} | ${ms(s.map((x) => x.snapshot))} | ${ms(s.map((x) => x.shown))} | ${ms(s.map((x) => x.pattern))} (${ms(s.map((x) => x.patternRequest))}) | ${ms(s.map((x) => x.caps))} | ${ms(s.map((x) => x.capsNext))} |`,
  );
}
console.log('| patterns | scrolled top to bottom: frames | p95 frame | max frame | rows in the page at the end |');
console.log('|---|---:|---:|---:|---:|');
for (const size of SIZES) {
  const { intervals, rows } = frames.get(size)!;
  const f = [...intervals].sort((a, b) => a - b);
  console.log(`| ${size} | ${f.length} | ${f.length ? percentile(f, 0.95).toFixed(1) : '—'} ms | ${f.length ? Math.max(...f).toFixed(1) : '—'} ms | ${rows} |`);
}
const [base, big] = SIZES.map((size) => median(samples.get(size)!.map((x) => x.shown)));
console.log(
  `patterns shown, ${SIZES[1]} / ${SIZES[0]} patterns: ${(big / base).toFixed(2)}x; ${SIZES[1]} patterns: ${big.toFixed(0)} ms, ${big < 1000 ? 'under' : 'OVER'} the 1 s target`,
);
