/**
 * Issue 2's benchmark: the cost of the /v1 middleware stack and of the job wrapper, each as a ratio
 * to a baseline measured in the same run on the same machine (absolute times on a shared machine
 * are noise; ratios hold).
 *
 * 1. HTTP: `GET /v1/jobs?limit=25` with a real bearer token through the whole platform app (request
 *    id, access log, metrics, rate limit, JSON body, idempotency, bearer auth, scope, zod query,
 *    keyset page + total) against a bare express 5 handler answering the same request from the same
 *    database with the same queries and no middleware: the sign-in check (an access token's sign-in
 *    must be live: revocation takes effect at once, so any handler serving this endpoint asks
 *    Postgres), the keyset page and the total. That baseline isolates what the target is about, the
 *    cost of the stack; informational rows show a bare handler doing only the page and total, one
 *    sending the response bytes without any database work, and the stack on probe routes without
 *    the list query (with and without authentication). A separate client process
 *    (bench/httpLoadClient.ts) keeps 32 keep-alive connections busy; after a warm-up every round runs
 *    each target in turn, the order reversed every other round, so drift hits all of them.
 *    Target: stack p50 <= 1.5x baseline p50, the median of the per-round ratios.
 * 2. Jobs: no-op job throughput through enqueueJob + wrapTask (job_runs row) against raw
 *    graphile-worker, same concurrency and poll interval, same database (bench/jobThroughput.ts),
 *    every target in every round. Target (issue 11): wrapper >= 0.8x raw, the median of the
 *    per-round ratios. Also measured, so that the figure is not read for more than it says: raw
 *    graphile-worker with its completions batched as our runner configures it, and the wrapper with a
 *    task that returns a result (one more statement per batch of finishing runs): target (issue 32)
 *    >= 0.8x raw as well. CPU per job (this process and the Postgres backends) is reported beside each.
 * 3. Enqueue: the same jobs, one call each and `--job-concurrency` callers at a time through the same
 *    pool, by enqueueJob (job_runs row and job) against graphile-worker's own `addJob` (WorkerUtils),
 *    timed in the same rounds. Target (issue 32): enqueueJob >= 0.8x addJob, the median of the rounds.
 *
 * Run: `npm run bench:http` (flags: --seconds, --rounds, --warmup, --concurrency, --jobs,
 * --job-rounds, --job-concurrency, --only http|jobs). Results: docs/benchmarks.md.
 */
import { benchArgs } from './args.ts';
import os from 'node:os';
import express from 'express';
import { decodeJwt } from 'jose';
import { z } from 'zod';
import { loadConfig } from '../lib/config.ts';
import { createPool, type Pool } from '../lib/db.ts';
import { createLogger } from '../lib/logger.ts';
import { seedDevelopmentData } from '../sql/seed.ts';
import { listen } from '../api/http/server.ts';
import { MemoryRateLimitStore } from '../api/http/rateLimit.ts';
import { createPlatformApp, RATE_LIMIT } from '../api/platform/app.ts';
import { createPlatformAuthenticator } from '../api/platform/auth/authenticator.ts';
import { toJob } from '../api/platform/jobs/routes.ts';
import { listQuery, paginate } from '../api/platform/pagination.ts';
import { platformRoute, type PlatformRoute } from '../api/platform/route.ts';
import { platformRoutes } from '../api/platform/routes.ts';
import { reply } from '../api/http/routes.ts';
import { jobRunList, jobStatuses, type JobRun } from '../sql/jobRuns.ts';
import { liveSignIn } from '../sql/tokenFamilies.ts';
import { createAppContext } from '../scripts/processes.ts';
import { createTestDatabase, startDatabaseServer } from '../fixtures/database.ts';
import type { LoadResult, LoadRound } from './httpLoadClient.ts';
import { allowAllRateLimits } from './allowAllRateLimits.ts';
import { cpuBetween, cpuSnapshot } from './cpuAccount.ts';
import { forkLoadChild } from './loadChild.ts';
import { fmt, intFlag, median, percentile, summarize, table, verdict, type TargetSummary, type TargetTotals } from './measure.ts';
import { rawJobRound, wrappedJobRound, type JobRoundResult } from './jobThroughput.ts';

const HTTP_P50_TARGET = 1.5; // stack p50 / baseline p50 at most
const JOB_TARGET = 0.8; // wrapper jobs/s / raw jobs/s at least (issue 11; issue 2 asked for 0.5)
const LIST_PATH = '/v1/jobs?limit=25';
const BARE_SQL_PATH = '/v1/bench/bare-sql?limit=25';
const BARE_LIST_PATH = '/v1/bench/bare-list?limit=25';
const BARE_STATIC_PATH = '/v1/bench/bare-static';
const PLUMBING_PATH = '/v1/bench/plumbing?limit=25';
const AUTHENTICATED_PATH = '/v1/bench/authenticated?limit=25';
const SEEDED_JOB_RUNS = 1000;

const { values: flags } = benchArgs(import.meta.url, {
  options: {
    seconds: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '32' },
    jobs: { type: 'string', default: '1000' },
    'job-rounds': { type: 'string', default: '10' },
    'job-concurrency': { type: 'string', default: '4' },
    'poll-interval': { type: 'string', default: '2000' },
    only: { type: 'string' },
  },
});
const positiveInt = (name: Exclude<keyof typeof flags, 'only'>) => intFlag(name, flags[name]);
const settings = {
  seconds: positiveInt('seconds'),
  rounds: positiveInt('rounds'),
  warmup: positiveInt('warmup'),
  concurrency: positiveInt('concurrency'),
  jobs: positiveInt('jobs'),
  jobRounds: positiveInt('job-rounds'),
  jobConcurrency: positiveInt('job-concurrency'),
  pollInterval: positiveInt('poll-interval'),
};
if (flags.only !== undefined && flags.only !== 'http' && flags.only !== 'jobs') throw new Error('--only must be http or jobs');
const runHttp = flags.only !== 'jobs';
const runJobs = flags.only !== 'http';

/**
 * Two probes mounted next to the real routes to split the stack's cost (informational rows): the
 * same query schema as GET /v1/jobs and the same response bytes, with no database work
 * (`plumbing`), and with bearer authentication and the scope check but no list query
 * (`authenticated`).
 */
function probeRoutes(sample: () => unknown): PlatformRoute[] {
  const query = listQuery({ status: z.enum(jobStatuses).optional(), kind: z.string().max(100).optional() }, ['created_at'], '-created_at');
  return [
    platformRoute({
      method: 'get',
      path: '/v1/bench/plumbing',
      operationId: 'benchPlumbing',
      summary: 'benchmark probe',
      tags: ['bench'],
      auth: 'public',
      query,
      responses: { 200: { description: 'the sample page' } },
      handler: () => reply.ok(sample()),
    }),
    platformRoute({
      method: 'get',
      path: '/v1/bench/authenticated',
      operationId: 'benchAuthenticated',
      summary: 'benchmark probe',
      tags: ['bench'],
      scope: 'jobs:read',
      query,
      responses: { 200: { description: 'the sample page' } },
      handler: () => reply.ok(sample()),
    }),
  ];
}

/** A realistic job history for the token's workspace: mixed kinds and states, one a minute. */
async function seedJobRuns(pool: Pool, workspaceId: string, count: number): Promise<void> {
  await pool.query(
    `insert into job_runs (kind, workspace_id, status, progress, steps_completed, error_detail, result, payload,
                           attempts, max_attempts, created_at, updated_at, started_at, finished_at)
     select case i % 3 when 0 then 'mail__send' when 1 then 'engine__run' else 'maintenance__purge_expired' end,
            $1,
            case when i % 10 = 0 then 'failed' else 'succeeded' end,
            100,
            array['render', 'send'],
            case when i % 10 = 0 then 'smtp: connection refused' end,
            case when i % 10 = 0 then null else jsonb_build_object('message_id', 'msg-' || i, 'accepted', 1) end,
            jsonb_build_object('to', 'user' || i || '@example.com', 'template', 'invitation'),
            1 + (i % 10 = 0)::int * 4, 5,
            now() - i * interval '1 minute', now() - i * interval '1 minute' + interval '2 seconds',
            now() - i * interval '1 minute' + interval '1 second', now() - i * interval '1 minute' + interval '2 seconds'
       from generate_series(1, $2) i`,
    [workspaceId, count],
  );
  await pool.query('analyze job_runs');
}

/** The per-call cost of the product's in-memory limiter, which the HTTP run replaced. */
async function rateLimitTakeRate(distinctClients: number, calls: number): Promise<{ callsPerSecond: number; usPerCall: number }> {
  const store = new MemoryRateLimitStore();
  const keys = Array.from({ length: distinctClients }, (_, i) => `ip:10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
  const limit = Number.MAX_SAFE_INTEGER; // the allowed path, which every served request takes
  const now = Date.now();
  for (let i = 0; i < 50_000; i++) await store.take(keys[i % keys.length], limit, RATE_LIMIT.windowMs, now); // warm-up
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) await store.take(keys[i % keys.length], limit, RATE_LIMIT.windowMs, now + (i >> 10));
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { callsPerSecond: calls / seconds, usPerCall: (seconds * 1e6) / calls };
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const server = await startDatabaseServer(); // the tests' server, else an embedded one
  const db = await createTestDatabase();
  // NODE_ENV=production refuses AUTH_PROVIDER=none, which the demo token needs; development with
  // LOG_LEVEL=warn keeps the access log (an info line per request) from dominating the figure.
  const config = loadConfig({ NODE_ENV: 'development', DATABASE_URL: db.url, LOG_LEVEL: 'warn' });
  const logger = createLogger(config.LOG_LEVEL, { service: 'svc-bench' });
  const pool = createPool(db.url, { max: 10, applicationName: 'svc-bench' }); // the size processes.ts uses
  const closers: Array<() => Promise<unknown>> = [() => server.stop(), () => db.drop(), () => pool.end()];
  const close = async () => {
    for (const step of closers.reverse()) await step().catch(() => {});
  };
  try {
    const demo = await seedDevelopmentData(pool, logger);
    const app = await createAppContext(config, pool, logger);
    const pgSettings = (
      await pool.query<{ version: string; fsync: string; sync: string }>(
        "select current_setting('server_version') as version, current_setting('fsync') as fsync, current_setting('synchronous_commit') as sync",
      )
    ).rows[0];
    const cpus = os.cpus();
    const say = (text = '') => console.log(text);
    const load = () =>
      os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ');
    say(
      `Machine: ${cpus.length} cores (${cpus[0]?.model.trim() ?? 'unknown cpu'}), Node ${process.version}, PostgreSQL ${pgSettings.version} ` +
        `(fsync ${pgSettings.fsync}, synchronous_commit ${pgSettings.sync}) on the same machine; client, server and PostgreSQL share these cores.`,
    );
    say(`Load average at start: ${load()}`);
    say(`App settings: NODE_ENV=development (production refuses AUTH_PROVIDER=none, which mints the demo token), LOG_LEVEL=warn.`);

    let httpPass: boolean | undefined;
    if (runHttp) {
      await seedJobRuns(pool, demo.workspaceId, SEEDED_JOB_RUNS);
      let sample: unknown = null; // set from the first real response, before any probe is called
      const stackApp = createPlatformApp(app, {
        routes: [...platformRoutes, ...probeRoutes(() => sample)],
        authenticator: createPlatformAuthenticator(app),
        rateLimitStore: allowAllRateLimits,
      });
      const stack = await listen(stackApp, 0, '127.0.0.1');
      closers.push(() => stack.close(1000));

      const exchange = await fetch(`${stack.url}/v1/auth/exchange`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ subject_token: 'demo' }),
      });
      if (exchange.status !== 200) throw new Error(`token exchange answered ${exchange.status}: ${await exchange.text()}`);
      const token = ((await exchange.json()) as { access_token: string }).access_token;
      const headers = { Authorization: `Bearer ${token}` };
      const first = await fetch(`${stack.url}${LIST_PATH}`, { headers });
      const body = await first.text();
      if (first.status !== 200) throw new Error(`${LIST_PATH} answered ${first.status}: ${body}`);
      const parsed = JSON.parse(body) as { data: unknown[]; page: { total: number } };
      if (parsed.data.length !== 25 || parsed.page.total !== SEEDED_JOB_RUNS)
        throw new Error(`unexpected page: ${parsed.data.length} rows, total ${parsed.page.total}`);
      sample = parsed;

      // Bare express 5 handlers, no middleware, ETag off as on the platform app (so that neither side
      // hashes its body), each answering the same bytes.
      const bareApp = express();
      bareApp.disable('x-powered-by');
      bareApp.set('etag', false);
      const claims = decodeJwt(token) as { sub: string; ws: string; fam: string };
      const listPage = () =>
        paginate(pool, jobRunList(claims.ws, {}), { query: { limit: 25, sort: '-created_at' }, cursorKey: app.secrets.cursorKey }, (row) =>
          toJob(row as unknown as JobRun),
        );
      const sendJson = (res: express.Response, text: string) => {
        res.setHeader('Content-Type', 'application/json; charset=utf-8');
        res.send(text);
      };
      // The baseline: the endpoint's own database work (sign-in check, page, total), nothing else.
      bareApp.get('/v1/bench/bare-sql', async (_req, res) => {
        if (!(await liveSignIn(pool, claims.fam, claims.sub, claims.ws))) throw new Error('sign-in is not live');
        sendJson(res, JSON.stringify(await listPage()));
      });
      bareApp.get('/v1/bench/bare-list', async (_req, res) => sendJson(res, JSON.stringify(await listPage())));
      bareApp.get('/v1/bench/bare-static', (_req, res) => sendJson(res, body));
      const bare = await listen(bareApp, 0, '127.0.0.1');
      closers.push(() => bare.close(1000));

      const client = forkLoadChild<LoadRound, LoadResult>(new URL('./httpLoadClient.ts', import.meta.url));
      closers.push(async () => client.close());
      const targets = {
        bare: { label: 'baseline: bare handler, same queries', url: bare.url, path: BARE_SQL_PATH },
        bareList: { label: 'bare handler, page + total only', url: bare.url, path: BARE_LIST_PATH },
        bareStatic: { label: 'bare handler, static bytes', url: bare.url, path: BARE_STATIC_PATH },
        plumbing: { label: 'stack, public probe, no DB', url: stack.url, path: PLUMBING_PATH },
        authenticated: { label: 'stack + bearer auth, no list query', url: stack.url, path: AUTHENTICATED_PATH },
        stack: { label: 'full stack GET /v1/jobs', url: stack.url, path: LIST_PATH },
      };
      type Target = keyof typeof targets;
      const names = Object.keys(targets) as Target[];
      const totals = Object.fromEntries(
        names.map((n): [Target, TargetTotals] => [n, { requests: 0, elapsedMs: 0, latenciesUs: [], serverCpuMs: 0, postgresCpuMs: 0, clientCpuMs: 0 }]),
      ) as Record<Target, TargetTotals>;
      const roundP50Ms = Object.fromEntries(names.map((n): [Target, number[]] => [n, []])) as Record<Target, number[]>;
      const runTarget = async (name: Target, durationMs: number, record: boolean) => {
        const before = await cpuSnapshot(pool, db.name);
        const { url, path } = targets[name];
        const result = await client.run({ url, path, headers, concurrency: settings.concurrency, durationMs });
        const cpu = cpuBetween(before, await cpuSnapshot(pool, db.name));
        if (result.non2xx) throw new Error(`${name}: ${result.non2xx} responses were not 2xx (first: ${result.firstBadStatus})`);
        if (result.bodyBytes !== Buffer.byteLength(body)) throw new Error(`${name}: body of ${result.bodyBytes} bytes, expected ${Buffer.byteLength(body)}`);
        if (!record) return;
        const t = totals[name];
        t.requests += result.requests;
        t.elapsedMs += result.elapsedMs;
        for (const l of result.latenciesUs) t.latenciesUs.push(l);
        roundP50Ms[name].push(percentile(Float64Array.from(result.latenciesUs).sort(), 0.5) / 1000);
        t.serverCpuMs += cpu.self * 1000;
        t.postgresCpuMs += (cpu.postgres ?? NaN) * 1000; // NaN: PostgreSQL runs elsewhere, its CPU is not readable
        t.clientCpuMs += result.cpuMs;
      };

      console.log(`\nHTTP: warming up ${settings.warmup} s per target …`);
      for (const name of names) await runTarget(name, settings.warmup * 1000, false);
      const roundMs = (settings.seconds * 1000) / settings.rounds;
      for (let r = 0; r < settings.rounds; r++) {
        for (const name of r % 2 === 0 ? names : [...names].reverse()) {
          console.log(`HTTP: round ${r + 1}/${settings.rounds}, ${name}, ${roundMs / 1000} s`);
          await runTarget(name, roundMs, true);
        }
      }
      const summaries = Object.fromEntries(names.map((n) => [n, summarize(totals[n])])) as Record<Target, TargetSummary>;
      const b = summaries.bare;
      const s = summaries.stack;
      const take1 = await rateLimitTakeRate(1, 1_000_000);
      const take10k = await rateLimitTakeRate(10_000, 1_000_000);
      // The verdict takes the median of the per-round ratios: each round measures both targets
      // minutes apart at most, so a burst of other work on the machine spoils one round, not the figure.
      const roundRatios = roundP50Ms.stack.map((p50, r) => p50 / roundP50Ms.bare[r]);
      const p50Ratio = median(roundRatios);
      httpPass = p50Ratio <= HTTP_P50_TARGET;

      say('');
      say(
        `HTTP: ${Buffer.byteLength(body)}-byte JSON body, concurrency ${settings.concurrency}, keep-alive, ` +
          `${settings.warmup} s warm-up then ${settings.rounds} alternating rounds, ${settings.seconds} s per target`,
      );
      say(
        table(
          [
            'target',
            'requests',
            'req/s',
            'p50 ms',
            'p99 ms',
            'p50 / baseline',
            'p99 / baseline',
            'server CPU µs/req',
            'postgres CPU µs/req',
            'client CPU µs/req',
          ],
          names.map((n) => {
            const t = summaries[n];
            return [
              targets[n].label,
              String(t.requests),
              fmt(t.rps, 0),
              fmt(t.p50Ms, 3),
              fmt(t.p99Ms, 3),
              fmt(t.p50Ms / b.p50Ms),
              fmt(t.p99Ms / b.p99Ms),
              fmt(t.serverCpuUsPerRequest, 0),
              fmt(t.postgresCpuUsPerRequest, 0),
              fmt(t.clientCpuUsPerRequest, 0),
            ];
          }),
        ),
      );
      say(
        `Per-round full stack / baseline p50: ${roundRatios.map((x) => fmt(x)).join(', ')}; pooled ${fmt(s.p50Ms / b.p50Ms)}x, p99 pooled ${fmt(s.p99Ms / b.p99Ms)}x (reported only)`,
      );
      say(`Target: full stack p50 <= ${HTTP_P50_TARGET}x baseline p50 (median of rounds): ${fmt(p50Ratio)}x -> ${verdict(httpPass)}`);
      const cpuPerRequest = (t: TargetSummary) => t.serverCpuUsPerRequest + t.postgresCpuUsPerRequest;
      say(
        `CPU per request (server + postgres), less sensitive to other work on the machine than latency: full stack / baseline ` +
          `${fmt(cpuPerRequest(s) / cpuPerRequest(b))}x (reported only)`,
      );
      const versus = (other: Target) => fmt(median(roundP50Ms.stack.map((p50, r) => p50 / roundP50Ms[other][r])));
      say(
        `Informational (median of per-round p50 ratios): full stack / bare page + total only ${versus('bareList')}x, ` +
          `full stack / bare static bytes ${versus('bareStatic')}x. The "stack" probes run the whole middleware stack and the jobs query ` +
          `schema without the list query, without and with bearer authentication.`,
      );
      say(`Rate limit: the stack ran with an allow-all RateLimitStore (the product's ${RATE_LIMIT.limit}/min per IP would answer 429 within a second).`);
      say(
        `  MemoryRateLimitStore.take(): ${fmt(take1.callsPerSecond / 1e6)} M calls/s with 1 client (${fmt(take1.usPerCall, 3)} µs), ` +
          `${fmt(take10k.callsPerSecond / 1e6)} M calls/s over 10,000 clients (${fmt(take10k.usPerCall, 3)} µs): ` +
          `${fmt((100 * take10k.usPerCall) / s.serverCpuUsPerRequest)}% of the full stack's server CPU per request.`,
      );
      say(
        `CPU columns: process CPU over the measured rounds divided by requests (postgres: the backends serving the benchmark's database, /proc; NaN when PostgreSQL runs elsewhere).`,
      );
    }

    let jobPass: boolean | undefined;
    if (runJobs) {
      const options = { databaseUrl: db.url, jobs: settings.jobs, concurrency: settings.jobConcurrency, pollInterval: settings.pollInterval };
      // The target compares the first two; the others say what the figure does not: graphile-worker
      // with its completions batched as our runner has them, and our wrapper with a task that has a result.
      const targets = [
        { label: 'raw graphile-worker', run: () => rawJobRound(pool, options) },
        { label: 'job wrapper, no-op', run: () => wrappedJobRound(app, demo.workspaceId, options) },
        { label: 'raw graphile-worker, batched completions', run: () => rawJobRound(pool, options, true) },
        { label: 'job wrapper, no-op with a result', run: () => wrappedJobRound(app, demo.workspaceId, options, true) },
      ];
      const rounds: JobRoundResult[][] = targets.map(() => []);
      for (let r = 0; r < settings.jobRounds; r++) {
        // Each round runs every target, in an order rotated from round to round.
        for (let k = 0; k < targets.length; k++) {
          const i = (k + r) % targets.length;
          console.log(`Jobs: round ${r + 1}/${settings.jobRounds}, ${targets[i].label}, ${settings.jobs} jobs`);
          rounds[i].push(await targets[i].run());
        }
      }
      const rate = (results: JobRoundResult[]) => {
        const jobs = results.reduce((n, x) => n + x.jobs, 0);
        const seconds = results.reduce((n, x) => n + x.seconds, 0);
        const enqueue = results.reduce((n, x) => n + x.enqueueSeconds, 0);
        const nodeCpu = results.reduce((n, x) => n + x.cpu.node, 0);
        const postgresCpu = results.some((x) => x.cpu.postgres === null) ? Number.NaN : results.reduce((n, x) => n + x.cpu.postgres!, 0);
        return {
          jobs,
          seconds,
          jobsPerSecond: jobs / seconds,
          enqueuePerSecond: jobs / enqueue,
          nodeUsPerJob: (1e6 * nodeCpu) / jobs,
          postgresUsPerJob: (1e6 * postgresCpu) / jobs,
        };
      };
      const rates = rounds.map(rate);
      // As for HTTP, a ratio is the median of the per-round ratios (each round runs every target).
      const perRound = (a: number, b: number) => rounds[a].map((x, r) => x.jobs / x.seconds / (rounds[b][r].jobs / rounds[b][r].seconds));
      // Enqueue rates: each wrapper round against the raw rounds' addJob of the same round (both raw targets use addJob).
      const enqueuePerRound = (a: number) =>
        rounds[a].map((x, r) => x.enqueueSeconds ** -1 / (2 / (rounds[0][r].enqueueSeconds + rounds[2][r].enqueueSeconds)));
      const ratios = [
        { label: 'job wrapper, no-op / raw graphile-worker (target)', rounds: perRound(1, 0), target: true },
        { label: 'job wrapper, no-op / raw graphile-worker, batched completions', rounds: perRound(1, 2), target: false },
        { label: 'job wrapper, no-op with a result / raw graphile-worker (target)', rounds: perRound(3, 0), target: true },
        { label: 'enqueueJob / graphile-worker addJob, same jobs and pool (target; the no-op rounds)', rounds: enqueuePerRound(1), target: true },
        { label: 'enqueueJob / graphile-worker addJob (the with-a-result rounds)', rounds: enqueuePerRound(3), target: false },
      ];
      jobPass = ratios.every((r) => !r.target || median(r.rounds) >= JOB_TARGET);
      say('');
      say(
        `Jobs: ${settings.jobs} jobs enqueued up front per round and target (one call each, ${settings.jobConcurrency} callers), ${settings.jobRounds} rounds running every target in rotated order, ` +
          `concurrency ${settings.jobConcurrency}, pollInterval ${settings.pollInterval} ms, first job started to last job deleted`,
      );
      say(
        table(
          ['target', 'jobs', 'seconds', 'jobs/s', 'node CPU µs/job', 'postgres CPU µs/job', 'enqueue jobs/s (apart from seconds)'],
          targets.map(({ label }, i) => [
            label,
            String(rates[i].jobs),
            fmt(rates[i].seconds),
            fmt(rates[i].jobsPerSecond, 0),
            fmt(rates[i].nodeUsPerJob, 0),
            fmt(rates[i].postgresUsPerJob, 0),
            fmt(rates[i].enqueuePerSecond, 0),
          ]),
        ),
      );
      for (const { label, rounds: values, target } of ratios)
        say(
          `${label}: median ${fmt(median(values))}x (rounds ${values.map((x) => fmt(x)).join(', ')})${target ? ` -> ${verdict(median(values) >= JOB_TARGET)}` : ''}`,
        );
      say(`Targets: each marked ratio >= ${JOB_TARGET}x (median of rounds): ${verdict(jobPass)}`);
    }

    say('');
    say(`Load average at end: ${load()} (other work on the machine adds noise to both sides of each ratio)`);
    if (httpPass !== undefined) say(`HTTP stack p50 <= ${HTTP_P50_TARGET}x baseline: ${verdict(httpPass)}`);
    if (jobPass !== undefined) say(`Job wrapper, with a result and enqueue >= ${JOB_TARGET}x raw: ${verdict(jobPass)}`);
  } finally {
    await close();
  }
}

await main();
