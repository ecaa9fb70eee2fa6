/**
 * Webhook delivery (issue 12), two figures:
 *
 * 1. Throughput: `--events` outbound events fanned out to `--webhooks` webhooks of one workspace (the
 *    fan-out statement of sql/outboundEvents.ts, before the clock starts), then a worker with the
 *    production task (jobs/tasks/webhook__deliver.ts: lease, signed POSTs through the SSRF guard,
 *    attempts recorded) at WORKER_CONCURRENCY; timed from the worker's start until every delivery
 *    has arrived and is recorded `succeeded`. Baseline in the same run: a bare loop that POSTs the
 *    same bodies, signed the same way (postSigned), to the same receiver with the same number of
 *    requests in flight (webhooks × DELIVERY_CONCURRENCY), no queue and no database. Rounds alternate.
 * 2. Latency: with the worker idle, `--latency-samples` single ingests through the real
 *    `POST /v1/ingest/events` one after the other; from the 202 (the ingest has committed) to the
 *    receiver's arrival of its `issue.ingested` delivery (ingest job → fan-out → delivery job → POST).
 *
 * The receiver is an in-process node:http server answering 200; everything shares two cores.
 *   node --import tsx bench/webhooks.ts [--events 5000] [--webhooks 4] [--rounds 3] [--latency-samples 200]
 */
import { benchArgs } from './args.ts';
import http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../lib/config.ts';
import { createPool, withTransaction } from '../lib/db.ts';
import { createLogger } from '../lib/logger.ts';
import { postSigned } from '../lib/outbound/index.ts';
import { openSecret, sealSecret } from '../lib/secretBox.ts';
import { seedDevelopmentData } from '../sql/seed.ts';
import { recordOutboundEvent } from '../sql/outboundEvents.ts';
import { deliveryBody, type DueDelivery } from '../sql/webhookDeliveries.ts';
import { listen } from '../api/http/server.ts';
import { createPlatformApp } from '../api/platform/app.ts';
import { createPlatformAuthenticator } from '../api/platform/auth/authenticator.ts';
import { platformRoutes } from '../api/platform/routes.ts';
import { createAppContext } from '../scripts/processes.ts';
import { startWorker } from '../jobs/worker.ts';
import { tasks } from '../jobs/tasks/index.ts';
import { DELIVERY_CONCURRENCY } from '../usecases/deliverWebhook.ts';
import { policyOf } from '../lib/outbound/appPolicy.ts';
import { createTestDatabase, startDatabaseServer } from '../fixtures/database.ts';
import { allowAllRateLimits } from './allowAllRateLimits.ts';
import { fmt, intFlag, median, percentile, table, verdict } from './measure.ts';

const { values: flags } = benchArgs(import.meta.url, {
  options: {
    events: { type: 'string', default: '5000' },
    webhooks: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '3' },
    'latency-samples': { type: 'string', default: '200' },
  },
});
const EVENTS = intFlag('events', flags.events);
const WEBHOOKS = intFlag('webhooks', flags.webhooks);
const ROUNDS = intFlag('rounds', flags.rounds);
const LATENCY_SAMPLES = intFlag('latency-samples', flags['latency-samples']);

const loadavg = () =>
  os
    .loadavg()
    .map((n) => n.toFixed(1))
    .join(' ');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const server = await startDatabaseServer();
  const db = await createTestDatabase();
  const config = loadConfig({ NODE_ENV: 'development', DATABASE_URL: db.url, LOG_LEVEL: 'warn' });
  const logger = createLogger(config.LOG_LEVEL, { service: 'svc-bench' });
  const pool = createPool(db.url, { max: 10, applicationName: 'svc-bench' });
  const workerPool = createPool(db.url, { max: config.WORKER_CONCURRENCY + 2, applicationName: 'svc-bench-worker' });
  let arrivals = 0;
  const arrivedAt = new Map<string, number>(); // issue id -> arrival (latency round)
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      arrivals++;
      if (req.url === '/latency') {
        const body = JSON.parse(Buffer.concat(chunks).toString());
        if (body.type === 'issue.ingested') arrivedAt.set(body.data.issue_id, performance.now());
      }
      res.writeHead(200).end();
    });
  });
  receiver.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const closers: Array<() => Promise<unknown>> = [
    () => server.stop(),
    () => db.drop(),
    () => pool.end(),
    () => workerPool.end(),
    () => new Promise((r) => receiver.close(r)),
  ];
  try {
    const demo = await seedDevelopmentData(pool, logger);
    const app = await createAppContext(config, pool, logger);
    const workspaceId = demo!.workspaceId;

    // Webhooks for the throughput rounds, created as the API does (sealed secret), all events.
    const secret = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
    const hookIds: string[] = [];
    for (let i = 0; i < WEBHOOKS; i++) {
      const { rows } = await pool.query<{ id: string }>('insert into webhooks (workspace_id, url, secret_ciphertext) values ($1, $2, $3) returning id', [
        workspaceId,
        `${receiverUrl}/hook-${i}`,
        sealSecret(app.secrets.webhookKey, secret),
      ]);
      hookIds.push(rows[0].id);
    }
    const inFlight = WEBHOOKS * DELIVERY_CONCURRENCY;
    const total = EVENTS * WEBHOOKS;

    async function queuedRound(): Promise<number> {
      await pool.query('delete from webhook_deliveries');
      await pool.query("update webhooks set enabled = true where url not like '%/latency'");
      for (let from = 0; from < EVENTS; from += 500) {
        await withTransaction(pool, async (client) => {
          for (let i = from; i < Math.min(EVENTS, from + 500); i++)
            await recordOutboundEvent(client, workspaceId, 'issue.ingested', { issue_id: `bench-${i}`, created: true });
        });
      }
      await pool.query('vacuum (analyze) webhook_deliveries, graphile_worker._private_jobs');
      arrivals = 0;
      const worker = await startWorker(app, { tasks, concurrency: config.WORKER_CONCURRENCY, pool: workerPool });
      const started = performance.now();
      for (;;) {
        if (arrivals >= total) {
          const { rows } = await pool.query<{ n: number }>("select count(*)::int as n from webhook_deliveries where status = 'succeeded'");
          if (rows[0].n >= total) break;
        }
        await sleep(arrivals >= total ? 2 : 20);
      }
      const seconds = (performance.now() - started) / 1000;
      await worker.stop();
      if (arrivals !== total) throw new Error(`expected ${total} arrivals, got ${arrivals}`);
      return total / seconds;
    }

    async function bareRound(): Promise<number> {
      const { rows } = await pool.query<DueDelivery & { url: string; secret_ciphertext: string }>(
        `select d.id, d.workspace_id, d.event_id, d.event_type, e.created_at as event_created_at, e.payload as event_payload, w.url, w.secret_ciphertext
           from webhook_deliveries d join outbound_events e on e.id = d.event_id join webhooks w on w.id = d.webhook_id order by d.created_at limit $1`,
        [total],
      );
      const policy = policyOf(app);
      arrivals = 0;
      let next = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: inFlight }, async () => {
          while (next < rows.length) {
            const d = rows[next++];
            const res = await postSigned(policy, {
              url: d.url,
              body: deliveryBody(d),
              secret: openSecret(app.secrets.webhookKey, d.secret_ciphertext),
              messageId: d.event_id,
            });
            if (!res.ok) throw new Error(`bare post failed: ${res.error}`);
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      if (arrivals !== rows.length) throw new Error(`bare loop: ${arrivals} arrivals of ${rows.length}`);
      return rows.length / seconds;
    }

    console.log(
      `webhooks bench: ${EVENTS} events x ${WEBHOOKS} webhooks = ${total} deliveries per round, worker concurrency ${config.WORKER_CONCURRENCY}, ` +
        `${DELIVERY_CONCURRENCY} posts in flight per job (bare loop: ${inFlight} in flight), ${ROUNDS} alternating rounds; load ${loadavg()}`,
    );
    const queued: number[] = [];
    const bare: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      queued.push(await queuedRound());
      bare.push(await bareRound());
      console.log(`  round ${r + 1}: queue ${fmt(queued[r], 0)} deliveries/s, bare loop ${fmt(bare[r], 0)} posts/s, ratio ${fmt(queued[r] / bare[r])}`);
    }

    // Latency: the production path from a committed ingest, the worker idle in between.
    await pool.query('update webhooks set enabled = false');
    await pool.query('insert into webhooks (workspace_id, url, event_types, secret_ciphertext) values ($1, $2, $3, $4)', [
      workspaceId,
      `${receiverUrl}/latency`,
      ['issue.ingested'],
      sealSecret(app.secrets.webhookKey, secret),
    ]);
    const platform = createPlatformApp(app, { routes: platformRoutes, authenticator: createPlatformAuthenticator(app), rateLimitStore: allowAllRateLimits });
    const api = await listen(platform, 0, '127.0.0.1');
    closers.push(() => api.close(1000));
    const token = (
      (await (
        await fetch(`${api.url}/v1/auth/exchange`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"subject_token":"bench"}' })
      ).json()) as { access_token: string }
    ).access_token;
    const worker = await startWorker(app, { tasks, concurrency: config.WORKER_CONCURRENCY, pool: workerPool });
    const latencies: number[] = [];
    for (let i = 0; i < LATENCY_SAMPLES; i++) {
      const res = await fetch(`${api.url}/v1/ingest/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'idempotency-key': `lat-${i}` },
        body: JSON.stringify({ external_id: `lat-${i}`, title: 'Latency probe', source: 'bench', narrative: 'probe' }),
      });
      const committed = performance.now();
      const { issue_id } = (await res.json()) as { issue_id: string };
      const deadline = committed + 10_000;
      while (!arrivedAt.has(issue_id)) {
        if (performance.now() > deadline) throw new Error(`no delivery for ${issue_id} within 10 s`);
        await sleep(0.2);
      }
      latencies.push(arrivedAt.get(issue_id)! - committed);
      await sleep(20); // idle between samples
    }
    await worker.stop();
    latencies.sort((a, b) => a - b);

    const q = median(queued);
    const b = median(bare);
    const p50 = percentile(latencies, 0.5);
    const p99 = percentile(latencies, 0.99);
    console.log('');
    console.log(
      table(
        ['measure', 'value', 'target', 'verdict'],
        [
          ['deliveries/s through the queue (median)', fmt(q, 0), '>= 2,000', verdict(q >= 2000)],
          ['bare signed-POST loop, same in-flight (median)', fmt(b, 0), '(baseline)', ''],
          ['ratio queue / bare', fmt(q / b), '>= 0.50', verdict(q / b >= 0.5)],
          [`ingest commit -> arrival p50 (${latencies.length} samples)`, `${fmt(p50, 1)} ms`, '< 50 ms', verdict(p50 < 50)],
          ['ingest commit -> arrival p99', `${fmt(p99, 1)} ms`, '', ''],
        ],
      ),
    );
  } finally {
    for (const step of closers.reverse()) await step().catch(() => {});
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
