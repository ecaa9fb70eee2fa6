/**
 * Issue 13's benchmark, each figure next to a baseline measured in the same run:
 *
 * 1. Realtime fan-out: 1,000 WebSocket clients of one workspace on GET /v1/realtime (the real
 *    platform app and hub: Postgres NOTIFY at commit, the hub reads the event, one send per client).
 *    Latency = arrival at a client minus the instant the issue update's transaction had committed
 *    (COMMIT returned to the writer). Baseline: a bare `ws` server in the same process broadcasting a
 *    message of the same shape and size, encoded once, to 1,000 other connections of the same client
 *    process (latency from just before its send loop). Rounds alternate svc / bare. The clients run in a child
 *    process (bench/realtimeClients.ts) and time arrivals on the machine's wall clock.
 *    Target: svc p99 < 250 ms and svc p99 <= 2x bare p99.
 * 2. GET /v1/me/notifications/unread-count under 200 concurrent closed-loop pollers, next to
 *    GET /v1/jobs?limit=25 (1,000 job runs) under the same load (bench/httpLoadClient.ts), rounds
 *    alternating. Target: unread-count p99 <= GET /v1/jobs p99.
 *
 * Run: `npm run bench:realtime` (flags: --clients, --rounds, --warmup, --pollers, --seconds,
 * --poll-rounds). Results: docs/benchmarks.md.
 */
import { benchArgs } from './args.ts';
import http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { loadConfig } from '../lib/config.ts';
import { createPool } from '../lib/db.ts';
import { createLogger } from '../lib/logger.ts';
import { seedDevelopmentData } from '../sql/seed.ts';
import { withEventBatch } from '../sql/events.ts';
import { ingestIssues } from '../usecases/ingestRecords.ts';
import { updateIssue } from '../usecases/updateIssue.ts';
import { insertNotifications } from '../sql/notifications.ts';
import { listen } from '../api/http/server.ts';
import { createPlatformApp } from '../api/platform/app.ts';
import { createPlatformAuthenticator } from '../api/platform/auth/authenticator.ts';
import { issueTokenPair } from '../usecases/tokenPairs.ts';
import { platformRoutes } from '../api/platform/routes.ts';
import { startRealtime } from '../api/platform/realtime/server.ts';
import { createAppContext } from '../scripts/processes.ts';
import { createTestDatabase, startDatabaseServer } from '../fixtures/database.ts';
import { allowAllRateLimits } from './allowAllRateLimits.ts';
import type { LoadResult, LoadRound } from './httpLoadClient.ts';
import { forkLoadChild } from './loadChild.ts';
import { fmt, intFlag, percentile, table, verdict } from './measure.ts';
import type { ClientJob, ClientResult } from './realtimeClients.ts';

const P99_LIMIT_MS = 250;
const BARE_RATIO_LIMIT = 2;

const { values: flags } = benchArgs(import.meta.url, {
  options: {
    clients: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '100' },
    warmup: { type: 'string', default: '3' },
    pollers: { type: 'string', default: '200' },
    seconds: { type: 'string', default: '5' },
    'poll-rounds': { type: 'string', default: '3' },
  },
});
const settings = {
  clients: intFlag('clients', flags.clients),
  rounds: intFlag('rounds', flags.rounds),
  warmup: intFlag('warmup', flags.warmup, 0),
  pollers: intFlag('pollers', flags.pollers),
  seconds: intFlag('seconds', flags.seconds),
  pollRounds: intFlag('poll-rounds', flags['poll-rounds']),
};

const now = () => performance.timeOrigin + performance.now();
const sorted = (xs: number[]) => Float64Array.from(xs).sort();
const stats = (xs: number[]) => {
  const s = sorted(xs);
  return { p50: percentile(s, 0.5), p99: percentile(s, 0.99), max: s.length ? s[s.length - 1] : 0 };
};

async function main() {
  const server = await startDatabaseServer();
  const db = await createTestDatabase();
  const config = loadConfig({ NODE_ENV: 'development', DATABASE_URL: db.url, LOG_LEVEL: 'warn' });
  const logger = createLogger(config.LOG_LEVEL, { service: 'svc-bench' });
  const pool = createPool(db.url, { max: 10, applicationName: 'svc-bench' });
  const closers: Array<() => Promise<unknown>> = [() => server.stop(), () => db.drop(), () => pool.end()];
  const close = async () => {
    for (const step of closers.reverse()) await step().catch(() => {});
  };
  try {
    const demo = await seedDevelopmentData(pool, logger);
    const app = await createAppContext(config, pool, logger);
    const say = (text = '') => console.log(text);
    const cpus = os.cpus();
    say(
      `Machine: ${cpus.length} cores (${cpus[0]?.model.trim() ?? 'unknown cpu'}), Node ${process.version}; server, clients and PostgreSQL share these cores.`,
    );
    say(
      `Load average at start: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );

    const platform = createPlatformApp(app, { routes: platformRoutes, authenticator: createPlatformAuthenticator(app), rateLimitStore: allowAllRateLimits });
    const running = await listen(platform, 0, '127.0.0.1');
    closers.push(() => running.close(1000));
    const realtime = await startRealtime(app, running.server);
    closers.push(() => realtime.close());
    const token = (await issueTokenPair(app, pool, demo.userId, demo.workspaceId, 'owner', '127.0.0.1')).access_token;

    const bareHttp = http.createServer();
    const bare = new WebSocketServer({ server: bareHttp, perMessageDeflate: false });
    await new Promise<void>((r) => bareHttp.listen(0, '127.0.0.1', r));
    closers.push(
      () =>
        new Promise<void>((r) => {
          for (const c of bare.clients) c.terminate();
          bare.close();
          bareHttp.close(() => r());
        }),
    );

    // ---- 1. realtime fan-out -------------------------------------------------------------------
    const clients = forkLoadChild<ClientJob, ClientResult>(new URL('./realtimeClients.ts', import.meta.url));
    closers.push(async () => clients.close());
    const wsBase = running.url.replace(/^http/, 'ws');
    await clients.run({ op: 'connect', group: 'svc', url: `${wsBase}/v1/realtime`, headers: { authorization: `Bearer ${token}` }, count: settings.clients });
    await clients.run({
      op: 'connect',
      group: 'bare',
      url: `ws://127.0.0.1:${(bareHttp.address() as AddressInfo).port}/`,
      headers: {},
      count: settings.clients,
    });
    // A connection is open for the client before the server has authenticated and subscribed it.
    for (const deadline = Date.now() + 120_000; realtime.hub.connections < settings.clients; ) {
      if (Date.now() > deadline) throw new Error(`only ${realtime.hub.connections} of ${settings.clients} connections subscribed within 120 s`);
      await new Promise((r) => setTimeout(r, 50));
    }
    say(`Connected ${realtime.hub.connections} clients to /v1/realtime and ${bare.clients.size} to the bare ws server.`);

    const actor = { type: 'user' as const, id: demo.userId };
    const issueId = await withEventBatch(
      pool,
      demo.workspaceId,
      async (client, events) =>
        (
          await ingestIssues(
            client,
            events,
            actor,
            [{ source: 'bench', external_id: 'rt', title: 'Bench issue', narrative: 'n', severity: 'low', occurred_at: null }],
            'api',
          )
        ).results[0].issue_id,
    );
    const latencies = { svc: [] as number[], bare: [] as number[] };
    const everyone = { svc: [] as number[], bare: [] as number[] };
    let sequence = 1;
    for (let round = 0; round < settings.warmup + settings.rounds; round++) {
      const record = round >= settings.warmup;
      const order = round % 2 ? (['bare', 'svc'] as const) : (['svc', 'bare'] as const);
      for (const target of order) {
        const marker = `@@bench:${target}-${round}@@`;
        const arrived = clients.run({ op: 'await', group: target, marker, timeoutMs: 60_000 });
        let start: number;
        if (target === 'svc') {
          await withEventBatch(pool, demo.workspaceId, (client, events) => updateIssue(client, events, actor, issueId, { title: `Bench ${marker}` }));
          start = now(); // the update has committed
        } else {
          // The same shape and size as the realtime message of an issue update.
          const message = Buffer.from(
            JSON.stringify({
              type: 'issue.updated',
              workspace_id: demo.workspaceId,
              sequence: ++sequence,
              data: { id: issueId, event_type: 'issue.updated', recorded_at: new Date().toISOString(), changes: { title: `Bench ${marker}` } },
            }),
          );
          start = now();
          for (const ws of bare.clients) ws.send(message, { binary: false });
        }
        const { arrivals } = (await arrived) as { arrivals: number[] };
        if (!record) continue;
        const each = arrivals.map((a) => a - start);
        latencies[target].push(...each);
        everyone[target].push(Math.max(...each));
      }
    }
    clients.close();
    const svc = stats(latencies.svc);
    const baseline = stats(latencies.bare);
    const svcAll = stats(everyone.svc);
    const bareAll = stats(everyone.bare);
    say();
    say(
      `Realtime: ${settings.clients} clients, ${settings.rounds} updates each way (after ${settings.warmup} warm-up rounds); ms from commit (svc) or send (bare) to arrival.`,
    );
    say(
      table(
        ['target', 'p50 ms', 'p99 ms', 'max ms', 'all delivered p50', 'all delivered p99'],
        [
          ['svc /v1/realtime', fmt(svc.p50), fmt(svc.p99), fmt(svc.max), fmt(svcAll.p50), fmt(svcAll.p99)],
          ['bare ws broadcast', fmt(baseline.p50), fmt(baseline.p99), fmt(baseline.max), fmt(bareAll.p50), fmt(bareAll.p99)],
          ['ratio svc / bare', fmt(svc.p50 / baseline.p50), fmt(svc.p99 / baseline.p99), '', '', ''],
        ],
      ),
    );
    const realtimePass = svc.p99 < P99_LIMIT_MS && svc.p99 <= BARE_RATIO_LIMIT * baseline.p99;
    say(`Target p99 < ${P99_LIMIT_MS} ms and <= ${BARE_RATIO_LIMIT}x bare p99: ${verdict(realtimePass)} (${fmt(svc.p99)} ms, ${fmt(svc.p99 / baseline.p99)}x)`);

    // ---- 2. unread-count under concurrent pollers -----------------------------------------------
    await pool.query(
      `insert into job_runs (kind, workspace_id, status, progress, payload, attempts, created_at, updated_at, finished_at)
       select 'mail__send', $1, 'succeeded', 100, jsonb_build_object('n', i), 1, now() - i * interval '1 minute', now(), now() from generate_series(1, 1000) i`,
      [demo.workspaceId],
    );
    await insertNotifications(
      pool,
      demo.workspaceId,
      new Date(),
      Array.from({ length: 200 }, (_, i) => ({
        user_id: demo.userId,
        kind: 'new_issue_ingested',
        subject_type: 'issue',
        subject_id: `bench-${i}`,
        title: `t${i}`,
        body: 'b',
        link: null,
        in_app: true,
      })),
    );
    await pool.query('analyze job_runs; analyze notifications');
    const pollers = forkLoadChild<LoadRound, LoadResult>(new URL('./httpLoadClient.ts', import.meta.url));
    closers.push(async () => pollers.close());
    const paths = { 'unread-count': '/v1/me/notifications/unread-count', 'GET /v1/jobs': '/v1/jobs?limit=25' } as const;
    const polled: Record<keyof typeof paths, { latenciesUs: number[]; requests: number; elapsedMs: number }> = {
      'unread-count': { latenciesUs: [], requests: 0, elapsedMs: 0 },
      'GET /v1/jobs': { latenciesUs: [], requests: 0, elapsedMs: 0 },
    };
    const headers = { Authorization: `Bearer ${token}` };
    for (const name of Object.keys(paths) as Array<keyof typeof paths>) {
      await pollers.run({ url: running.url, path: paths[name], headers, concurrency: settings.pollers, durationMs: 1000 }); // warm-up
    }
    for (let round = 0; round < settings.pollRounds; round++) {
      const names = Object.keys(paths) as Array<keyof typeof paths>;
      for (const name of round % 2 ? names.reverse() : names) {
        const result = await pollers.run({ url: running.url, path: paths[name], headers, concurrency: settings.pollers, durationMs: settings.seconds * 1000 });
        if (result.non2xx) throw new Error(`${name}: ${result.non2xx} non-2xx answers (first ${result.firstBadStatus})`);
        polled[name].latenciesUs.push(...result.latenciesUs);
        polled[name].requests += result.requests;
        polled[name].elapsedMs += result.elapsedMs;
      }
    }
    pollers.close();
    const rows = (Object.keys(paths) as Array<keyof typeof paths>).map((name) => {
      const s = stats(polled[name].latenciesUs.map((us) => us / 1000));
      return { name, ...s, rps: polled[name].requests / (polled[name].elapsedMs / 1000) };
    });
    say();
    say(`Polling: ${settings.pollers} concurrent closed-loop pollers, ${settings.pollRounds} rounds of ${settings.seconds} s per endpoint, alternating.`);
    say(
      table(
        ['endpoint', 'req/s', 'p50 ms', 'p99 ms'],
        rows.map((r) => [r.name, fmt(r.rps, 0), fmt(r.p50), fmt(r.p99)]),
      ),
    );
    const [unread, jobs] = rows;
    say(
      `unread-count / GET /v1/jobs: p50 ${fmt(unread.p50 / jobs.p50)}x, p99 ${fmt(unread.p99 / jobs.p99)}x; target unread-count p99 <= GET /v1/jobs p99: ${verdict(unread.p99 <= jobs.p99)}`,
    );
  } finally {
    await close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
