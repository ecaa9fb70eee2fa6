/**
 * Ingest throughput (issue 4): records per second through `POST /v1/ingest/batch` against a raw
 * multi-row INSERT of the same rows into the same database server in the same run, then the real
 * Hadoop bug reports through the same endpoint.
 *
 *   npm run bench:ingest [-- --records 100000 --warmup 10000 --batch 500 --concurrency 6 --rounds 6 --seed 42
 *                            --workspaces 1 --hadoop PATH --skip-hadoop --keep]
 *
 * With --workspaces N, batch i goes to workspace i mod N: writers of one workspace share its event-log
 * counter (taken by the last statement of each transaction), so N > 1 shows what that costs.
 * Results: docs/benchmarks.md.
 *
 * The platform app runs in this process on an ephemeral port over a fresh test database (the
 * server of fixtures/database.ts); the load generator is a child process (bench/ingestLoadClient.ts)
 * so that it does not share the server's event loop. The two measurements alternate in rounds
 * (raw then HTTP, HTTP then raw, …) so that drift on a noisy machine hits both. The ratio is the
 * figure to trust, as the median of the rounds' ratios (a checkpoint or a neighbour's burst of load
 * falls in one round); absolute rates move with the machine.
 */
import { benchArgs } from './args.ts';
import os from 'node:os';
import { loadConfig } from '../lib/config.ts';
import { createPool } from '../lib/db.ts';
import { createLogger } from '../lib/logger.ts';
import { seedDevelopmentData } from '../sql/seed.ts';
import { ensureMembership } from '../sql/users.ts';
import { findWorkspace, insertWorkspace } from '../sql/workspaces.ts';
import { listen } from '../api/http/server.ts';
import { createPlatformApp } from '../api/platform/app.ts';
import { createPlatformAuthenticator } from '../api/platform/auth/authenticator.ts';
import { platformRoutes } from '../api/platform/routes.ts';
import { createAppContext } from '../scripts/processes.ts';
import { createTestDatabase } from '../fixtures/database.ts';
import { HADOOP_BUGS_CSV, HADOOP_SOURCE } from './data/hadoop.ts';
import { syntheticRecords, type SyntheticOptions } from '../fixtures/syntheticIssues.ts';
import type { LoadJob, LoadResult } from './ingestLoadClient.ts';
import { allowAllRateLimits } from './allowAllRateLimits.ts';
import { cpuBetween, cpuSnapshot } from './cpuAccount.ts';
import { forkLoadChild } from './loadChild.ts';
import { fmt as decimal, intFlag, median, verdict } from './measure.ts';
import { createScratchIssuesTable, rawBatch, rawInsert, SCRATCH_TABLE, type RawBatch } from './rawIssueInsert.ts';

const TARGET_RECORDS_PER_SECOND = 10_000;
const TARGET_RATIO = 0.8; // HTTP / raw issue and event rows (issue 11)

const { values: args } = benchArgs(import.meta.url, {
  options: {
    records: { type: 'string', default: '100000' },
    warmup: { type: 'string', default: '10000' },
    batch: { type: 'string', default: '500' },
    concurrency: { type: 'string', default: '6' },
    rounds: { type: 'string', default: '6' },
    workspaces: { type: 'string', default: '1' },
    seed: { type: 'string', default: '42' },
    hadoop: { type: 'string', default: HADOOP_BUGS_CSV },
    'skip-hadoop': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});
const RECORDS = intFlag('records', args.records);
const WARMUP = intFlag('warmup', args.warmup, 0);
const BATCH = intFlag('batch', args.batch);
const CONCURRENCY = intFlag('concurrency', args.concurrency);
const ROUNDS = intFlag('rounds', args.rounds);
const SEED = intFlag('seed', args.seed);
const WORKSPACES = intFlag('workspaces', args.workspaces);

const fmt = (n: number) => decimal(n, 0);
const log = (line = '') => process.stdout.write(line + '\n');

async function api(base: string, method: string, route: string, body: unknown, token?: string) {
  const res = await fetch(base + route, {
    method,
    headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID(), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** A service-account token with only ingest:write, made through the real API with the demo owner's token. */
async function ingestToken(base: string, workspaceId: string): Promise<string> {
  const owner = (await api(base, 'POST', '/v1/auth/exchange', { subject_token: 'demo', workspace_id: workspaceId })).access_token as string;
  const account = await api(base, 'POST', '/v1/service-accounts', { name: 'bench-ingest', scopes: ['ingest:write'] }, owner);
  const expires = new Date(Date.now() + 24 * 3600_000).toISOString();
  const token = await api(base, 'POST', `/v1/service-accounts/${account.id as string}/tokens`, { name: 'bench', expires_at: expires }, owner);
  return token.token as string;
}

function checkHttp(what: string, r: LoadResult) {
  if (r.errors.length || r.rejected) throw new Error(`${what}: ${JSON.stringify(r.statuses)} rejected=${r.rejected} ${r.errors.join('\n')}`);
}

async function main() {
  const started = Date.now();
  const db = await createTestDatabase();
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: db.url, LOG_LEVEL: 'warn', AUTH_PROVIDER: 'none' });
  const logger = createLogger(config.LOG_LEVEL, { bench: 'ingest' });
  const pool = createPool(db.url, { max: 10, applicationName: 'svc-bench' }); // the pool size of `svc serve`
  const rawPool = createPool(db.url, { max: CONCURRENCY, applicationName: 'svc-bench-raw' });
  const demo = await seedDevelopmentData(pool, logger);
  const app = await createAppContext(config, pool, logger);
  const platform = createPlatformApp(app, { routes: platformRoutes, authenticator: createPlatformAuthenticator(app), rateLimitStore: allowAllRateLimits });
  const server = await listen(platform, 0, '127.0.0.1');
  const client = forkLoadChild<LoadJob, LoadResult>(new URL('./ingestLoadClient.ts', import.meta.url));
  try {
    // Workspace 1 is the demo workspace; more (--workspaces) belong to the demo organization and owner.
    const organizationId = (await findWorkspace(pool, demo.workspaceId))!.organization_id;
    const workspaceIds = [demo.workspaceId];
    for (let k = 2; k <= WORKSPACES; k++) {
      const workspace = await insertWorkspace(pool, organizationId, `Bench workspace ${k}`);
      await ensureMembership(pool, workspace.id, demo.userId, 'owner');
      workspaceIds.push(workspace.id);
    }
    const tokens: string[] = [];
    for (const id of workspaceIds) tokens.push(await ingestToken(server.url, id));
    const pg = (await pool.query<{ v: string }>(`select current_setting('server_version') as v`)).rows[0].v;
    log('# Ingest benchmark (issue 4)');
    log(`machine: ${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), node ${process.version}, PostgreSQL ${pg}, database ${db.name}`);
    log(
      `workload: ${fmt(RECORDS)} measured records + ${fmt(WARMUP)} warm-up, ${BATCH} records per request, ${CONCURRENCY} in flight, ${ROUNDS} alternating rounds, seed ${SEED}`,
    );
    log(
      `workspaces: ${WORKSPACES}${WORKSPACES > 1 ? ' (batch i goes to workspace i mod N; each workspace has its own event-log counter)' : ' (every writer shares the one event-log counter: the bulk-load case of a single tenant)'}`,
    );
    log('rate limit: the benchmark installs an always-allow RateLimitStore; production allows 600 requests/min per client IP');
    log('auth: a service-account token with ingest:write (one lookup per request, as in production); no worker running');

    const options: SyntheticOptions = { seed: SEED, tag: `bench${SEED}`, now: new Date() };
    const jobOptions = { ...options, now: options.now.toISOString() };
    const httpJob = (start: number, count: number): LoadJob => ({
      kind: 'synthetic',
      baseUrl: server.url,
      tokens,
      concurrency: CONCURRENCY,
      batchSize: BATCH,
      options: jobOptions,
      start,
      count,
    });
    const rawBatches = (start: number, count: number): RawBatch[] => {
      const out: RawBatch[] = [];
      for (let i = start; i < start + count; i += BATCH) {
        const workspaceId = workspaceIds[Math.floor(i / BATCH) % workspaceIds.length];
        out.push(rawBatch(syntheticRecords(options, i, Math.min(BATCH, start + count - i)), workspaceId, options.now));
      }
      return out;
    };
    await createScratchIssuesTable(pool);

    if (WARMUP > 0) {
      checkHttp('warm-up', await client.run(httpJob(0, WARMUP)));
      await rawInsert(rawPool, rawBatches(0, WARMUP), CONCURRENCY, false);
      await rawInsert(rawPool, rawBatches(0, WARMUP), CONCURRENCY, true);
    }
    const perRound = Math.ceil(RECORDS / ROUNDS);
    const http = { records: 0, seconds: 0, bytes: 0, cpuServer: 0, cpuClient: 0, cpuPostgres: 0 as number | null };
    const newRaw = () => ({ records: 0, seconds: 0, cpuClient: 0, cpuPostgres: 0 as number | null });
    const raw = newRaw(); // issue rows alone
    const rawEvents = newRaw(); // issue and event rows
    const addCpu = (acc: number | null, v: number | null) => (acc === null || v === null ? null : acc + v);
    // Per round: HTTP rate over the raw issue+event rate of the same round (its neighbour in time).
    const httpRoundRates: number[] = [];
    const rawEventsRoundRates: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const start = WARMUP + round * perRound;
      const count = Math.min(perRound, WARMUP + RECORDS - start);
      if (count <= 0) break;
      const runRaw = async (batches: RawBatch[], withEvents: boolean) => {
        const acc = withEvents ? rawEvents : raw;
        const before = await cpuSnapshot(pool, db.name);
        const seconds = await rawInsert(rawPool, batches, CONCURRENCY, withEvents);
        const cpu = cpuBetween(before, await cpuSnapshot(pool, db.name));
        acc.records += count;
        acc.seconds += seconds;
        if (withEvents) rawEventsRoundRates[round] = count / seconds;
        acc.cpuClient += cpu.self;
        acc.cpuPostgres = addCpu(acc.cpuPostgres, cpu.postgres);
        log(
          `  round ${round + 1} raw ${withEvents ? 'issues+events' : 'issues'}: ${fmt(count)} rows in ${seconds.toFixed(2)} s = ${fmt(count / seconds)} rows/s`,
        );
      };
      const runHttp = async () => {
        const before = await cpuSnapshot(pool, db.name);
        const r = await client.run(httpJob(start, count));
        const cpu = cpuBetween(before, await cpuSnapshot(pool, db.name));
        checkHttp(`round ${round + 1}`, r);
        httpRoundRates[round] = r.accepted / r.seconds;
        http.records += r.accepted;
        http.seconds += r.seconds;
        http.bytes += r.bodyBytes;
        http.cpuServer += cpu.self;
        http.cpuClient += r.cpuSeconds;
        http.cpuPostgres = addCpu(http.cpuPostgres, cpu.postgres);
        log(
          `  round ${round + 1} http: ${fmt(r.accepted)} records in ${r.seconds.toFixed(2)} s = ${fmt(r.accepted / r.seconds)} rec/s (request p50 ${fmt(r.latencyMs.p50)} ms, p95 ${fmt(r.latencyMs.p95)} ms)`,
        );
      };
      // The round's raw batches are built (untimed) right before the raw runs and are garbage by the HTTP
      // run: the server shares this process, and its collector would otherwise copy and mark tens of MB
      // of the baseline's rows while it serves (a helper's harness saw ~5 ms more server CPU per 1,000 records with them held).
      const runRaws = async (order: boolean[]) => {
        const batches = rawBatches(start, count);
        for (const withEvents of order) await runRaw(batches, withEvents);
      };
      if (round % 2 === 0) {
        await runRaws([true, false]);
        await runHttp();
      } else {
        await runHttp();
        await runRaws([false, true]);
      }
    }

    const counts = (
      await pool.query<{ issues: number; events: number; scratch: number; review: number; jobs: number }>(
        `select (select count(*) from issues where workspace_id = any($1)) as issues,
                (select count(*) from events where workspace_id = any($1)) as events,
                (select count(*) from ${SCRATCH_TABLE}) as scratch,
                (select count(*) from review_items where workspace_id = any($1)) as review,
                (select count(*) from job_runs where workspace_id = any($1)) as jobs`,
        [workspaceIds],
      )
    ).rows[0];
    const expected = WARMUP + RECORDS;
    if (counts.issues !== expected || counts.scratch !== expected) throw new Error(`row counts: ${JSON.stringify(counts)}, expected ${expected}`);

    const httpRate = http.records / http.seconds;
    const rawRate = raw.records / raw.seconds;
    const rawEventsRate = rawEvents.records / rawEvents.seconds;
    const roundRatios = httpRoundRates.map((rate, round) => rate / rawEventsRoundRates[round]);
    const ratio = median(roundRatios);
    log();
    log('| measure | value | target | verdict |');
    log('| --- | ---: | ---: | --- |');
    log(
      `| HTTP POST /v1/ingest/batch | ${fmt(httpRate)} rec/s | ≥ ${fmt(TARGET_RECORDS_PER_SECOND)} rec/s | ${verdict(httpRate >= TARGET_RECORDS_PER_SECOND)} |`,
    );
    log(`| raw issue and event rows (one statement per batch) | ${fmt(rawEventsRate)} rows/s | (baseline) | |`);
    log(
      `| ratio HTTP / raw issue and event rows, median of the rounds (${roundRatios.map((r) => r.toFixed(2)).join(', ')}) | ${ratio.toFixed(2)}× | ≥ ${TARGET_RATIO}× | ${verdict(ratio >= TARGET_RATIO)} |`,
    );
    log(`| ratio HTTP / raw issue and event rows, all rounds together | ${(httpRate / rawEventsRate).toFixed(2)}× | | |`);
    log(`| raw issue rows alone (unnest INSERT into ${SCRATCH_TABLE}) | ${fmt(rawRate)} rows/s | (baseline) | |`);
    log(`| ratio HTTP / raw issue rows alone | ${(httpRate / rawRate).toFixed(2)}× | | |`);
    log();
    log(
      `stored: ${fmt(counts.issues)} issues, ${fmt(counts.events)} events, ${fmt(counts.review)} review items, ${fmt(counts.jobs)} job runs; ${fmt(counts.scratch)} scratch rows`,
    );
    log(`request bodies: ${(http.bytes / http.records).toFixed(0)} bytes per record`);
    log();
    const perK = (seconds: number | null, records: number) => (seconds === null ? 'n/a' : `${((seconds * 1e6) / records).toFixed(0)} ms`);
    log('CPU per 1,000 records (user + system; Postgres = the backends of the bench database):');
    log('| path | server process | load client | Postgres | total |');
    log('| --- | ---: | ---: | ---: | ---: |');
    const httpTotal = http.cpuPostgres === null ? null : http.cpuServer + http.cpuClient + http.cpuPostgres;
    const rawTotal = raw.cpuPostgres === null ? null : raw.cpuClient + raw.cpuPostgres;
    log(
      `| HTTP | ${perK(http.cpuServer, http.records)} | ${perK(http.cpuClient, http.records)} | ${perK(http.cpuPostgres, http.records)} | ${perK(httpTotal, http.records)} |`,
    );
    log(`| raw issues | – | ${perK(raw.cpuClient, raw.records)} | ${perK(raw.cpuPostgres, raw.records)} | ${perK(rawTotal, raw.records)} |`);
    const rawEventsTotal = rawEvents.cpuPostgres === null ? null : rawEvents.cpuClient + rawEvents.cpuPostgres;
    log(
      `| raw issues+events | – | ${perK(rawEvents.cpuClient, rawEvents.records)} | ${perK(rawEvents.cpuPostgres, rawEvents.records)} | ${perK(rawEventsTotal, rawEvents.records)} |`,
    );

    if (!args['skip-hadoop']) {
      log();
      log(`## Hadoop bug reports (${args.hadoop})`);
      for (const pass of ['first ingest', 're-ingest (updates)']) {
        const r = await client.run({ kind: 'hadoop', baseUrl: server.url, tokens: [tokens[0]], concurrency: CONCURRENCY, batchSize: BATCH, file: args.hadoop });
        if (r.errors.length) throw new Error(`hadoop ${pass}: ${r.errors.join('\n')}`);
        const s = r.summary;
        log(
          `${pass}: ${fmt(r.records)} records in ${r.requests} requests, ${(r.seconds * 1000).toFixed(0)} ms wall (${fmt(r.records / r.seconds)} rec/s); ` +
            `accepted ${r.accepted}, rejected ${r.rejected}; engine_status_summary eligible ${s.eligible}, blocked_no_narrative ${s.blocked_no_narrative}, ineligible ${s.ineligible}`,
        );
      }
      const stored = (
        await pool.query<{ issues: number; open_reviews: number; events: number }>(
          `select (select count(*) from issues where workspace_id = $1 and source = $2) as issues,
                  (select count(*) from review_items r join issues i on i.id = r.issue_id where i.workspace_id = $1 and i.source = $2 and r.status = 'open') as open_reviews,
                  (select count(*) from events e join issues i on i.id = e.aggregate_id where e.workspace_id = $1 and i.source = $2) as events`,
          [demo.workspaceId, HADOOP_SOURCE],
        )
      ).rows[0];
      log(`stored: ${stored.issues} ${HADOOP_SOURCE} issues, ${stored.events} issue events, ${stored.open_reviews} open missing-narrative review items`);
    }
    log();
    log(`total bench time ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    client.close();
    await server.close(1000);
    await rawPool.end();
    await pool.end();
    if (args.keep) log(`kept database ${db.url}`);
    else await db.drop();
  }
}

await main();
