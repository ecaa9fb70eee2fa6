/**
 * The ceiling of one Postgres: the same mixed load against one `svc api` + one `svc worker`, then
 * against two of each on a fresh database of the same server, in one run. For each operation its
 * throughput and p99, the ratio of two processes of each to one, and the database's own rate
 * (committed transactions per second, from pg_stat_database) and CPU share, so docs/deployment.md can
 * say what a second machine buys and where Postgres saturates.
 *
 *   npm run bench:ceiling [-- --seconds 40 --ingest-clients 4 --list-clients 4 --batch 50 --prefill 3000]
 *
 * Load (closed loops, requests spread over the API processes, each request with its own
 * X-Forwarded-For so the per-IP limit never trips): `--ingest-clients` posting `POST /v1/ingest/batch`
 * of `--batch` new records; `--list-clients` reading `GET /v1/issues?limit=50`; one engine client
 * posting `POST /v1/engine/runs` again as soon as the last run finished; a webhook subscribed to
 * `issue.batch_ingested` (one event per ingest request), delivered to a local receiver. The workspace starts with `--prefill` issues.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { createTestDatabase, startDatabaseServer } from '../fixtures/database.ts';
import { generateIssues } from '../fixtures/synthetic.ts';
import { startSvcRole, svcEnv, type SvcRole } from '../fixtures/svcProcess.ts';
import { benchArgs } from './args.ts';
import { fmt, intFlag, percentile, table } from './measure.ts';
import { openDatabase } from './workspace.ts';

const { values: args } = benchArgs(import.meta.url, {
  options: {
    seconds: { type: 'string', default: '40' },
    'ingest-clients': { type: 'string', default: '4' },
    'list-clients': { type: 'string', default: '4' },
    batch: { type: 'string', default: '50' },
    prefill: { type: 'string', default: '3000' },
  },
});
const SECONDS = intFlag('seconds', args.seconds);
const INGEST_CLIENTS = intFlag('ingest-clients', args['ingest-clients'], 0);
const LIST_CLIENTS = intFlag('list-clients', args['list-clients'], 0);
const BATCH = intFlag('batch', args.batch);
const PREFILL = intFlag('prefill', args.prefill, 0);

const log = (line = '') => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let ip = 0;
const nextIp = () => `198.18.${(++ip >> 8) & 255}.${ip & 255}`;

const pool = generateIssues(5000, 17, 8);
let recordSerial = 0;
const newRecord = () => {
  const g = pool[recordSerial % pool.length];
  return { external_id: `ceil-${recordSerial++}`, title: g.title, narrative: g.narrative, source: 'ceiling', severity: g.severity, occurred_at: g.occurred_at };
};

interface OpStats {
  latenciesMs: number[];
  units: number;
  errors: number;
}
const newOp = (): OpStats => ({ latenciesMs: [], units: 0, errors: 0 });

async function call(base: string, method: string, route: string, token: string, body?: unknown) {
  const started = performance.now();
  const res = await fetch(base + route, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      'x-forwarded-for': nextIp(),
      ...(body === undefined ? {} : { 'content-type': 'application/json', 'idempotency-key': randomUUID() }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, ms: performance.now() - started };
}

interface Outcome {
  ops: Record<'ingest' | 'list' | 'engine' | 'webhook', OpStats>;
  seconds: number;
  dbCommitsPerSecond: number;
  dbBusyShare: number;
}

async function scenario(apis: number, workers: number): Promise<Outcome> {
  const db = await createTestDatabase();
  const env = svcEnv({
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    PLATFORM_PORT: '0',
    PRODUCT_PORT: '0',
    METRICS_PORT: '0',
    LOG_LEVEL: 'info',
    TRUST_PROXY: '1',
  });
  const processes: SvcRole[] = [];
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      outcome.ops.webhook.units++;
      outcome.ops.webhook.latenciesMs.push(0);
      res.writeHead(204).end();
    });
  });
  const outcome: Outcome = {
    ops: { ingest: newOp(), list: newOp(), engine: newOp(), webhook: newOp() },
    seconds: SECONDS,
    dbCommitsPerSecond: 0,
    dbBusyShare: 0,
  };
  const { pool: dbPool } = await openDatabase(db.url);
  try {
    // The first API migrates and seeds; the others start against the migrated database.
    processes.push(await startSvcRole('api', env));
    processes.push(...(await Promise.all(Array.from({ length: apis - 1 }, () => startSvcRole('api', env)))));
    processes.push(...(await Promise.all(Array.from({ length: workers }, () => startSvcRole('worker', env)))));
    const bases = processes.filter((p) => p.role === 'api').map((p) => p.platform!);
    const exchanged = await fetch(`${bases[0]}/v1/auth/exchange`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"subject_token":"demo"}',
    });
    const token = ((await exchanged.json()) as { access_token: string }).access_token;
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const hook = await call(bases[0], 'POST', '/v1/webhooks', token, {
      url: `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`,
      event_types: ['issue.batch_ingested'],
    });
    if (hook.status !== 201) throw new Error(`webhook registration failed: ${hook.status} ${JSON.stringify(hook.body)}`);
    for (let done = 0; done < PREFILL; done += 500) {
      const res = await call(bases[0], 'POST', '/v1/ingest/batch', token, { records: Array.from({ length: Math.min(500, PREFILL - done) }, newRecord) });
      if (res.status !== 202) throw new Error(`prefill failed: ${res.status} ${JSON.stringify(res.body)}`);
    }
    // Let the prefill's jobs and deliveries drain before measuring.
    for (let i = 0; i < 120; i++) {
      const { rows } = await dbPool.query<{ n: number }>(
        'select count(*)::int as n from graphile_worker.jobs where run_at <= now() and attempts < max_attempts',
      );
      if (rows[0].n === 0) break;
      await sleep(1000);
    }
    outcome.ops.webhook = newOp();

    const stats = async () =>
      (
        await dbPool.query<{ commits: number; busy: number }>(
          `select (select xact_commit from pg_stat_database where datname = current_database())::float8 as commits,
                  (select count(*) from pg_stat_activity where state = 'active' and backend_type = 'client backend')::float8 as busy`,
        )
      ).rows[0];
    let running = true;
    let busySamples = 0;
    let busyTotal = 0;
    const sampler = (async () => {
      while (running) {
        busyTotal += (await stats()).busy - 1; // the sampler's own query
        busySamples++;
        await sleep(250);
      }
    })();
    const before = await stats();
    const started = performance.now();
    const loop = async (op: OpStats, n: number, work: (base: string) => Promise<{ ok: boolean; ms: number; units: number }>) => {
      for (let i = 0; running; i++) {
        try {
          const r = await work(bases[(i + n) % bases.length]);
          if (!running) break;
          if (r.ok) {
            op.latenciesMs.push(r.ms);
            op.units += r.units;
          } else op.errors++;
        } catch {
          op.errors++;
        }
      }
    };
    const clients = [
      ...Array.from({ length: INGEST_CLIENTS }, (_, n) =>
        loop(outcome.ops.ingest, n, async (base) => {
          const r = await call(base, 'POST', '/v1/ingest/batch', token, { records: Array.from({ length: BATCH }, newRecord) });
          return { ok: r.status === 202, ms: r.ms, units: BATCH };
        }),
      ),
      ...Array.from({ length: LIST_CLIENTS }, (_, n) =>
        loop(outcome.ops.list, n, async (base) => {
          const r = await call(base, 'GET', '/v1/issues?limit=50', token);
          return { ok: r.status === 200, ms: r.ms, units: 1 };
        }),
      ),
      loop(outcome.ops.engine, 0, async (base) => {
        const t0 = performance.now();
        const r = await call(base, 'POST', '/v1/engine/runs', token, {});
        if (r.status !== 202) return { ok: false, ms: 0, units: 0 };
        for (;;) {
          if (!running) return { ok: false, ms: 0, units: 0 };
          const run = await call(base, 'GET', `/v1/engine/runs/${r.body.run_id}`, token);
          if (['succeeded', 'failed', 'cancelled'].includes(run.body?.status))
            return { ok: run.body.status === 'succeeded', ms: performance.now() - t0, units: 1 };
          await sleep(250);
        }
      }),
    ];
    await sleep(SECONDS * 1000);
    running = false;
    const after = await stats();
    outcome.seconds = (performance.now() - started) / 1000;
    outcome.dbCommitsPerSecond = (after.commits - before.commits) / outcome.seconds;
    await Promise.all(clients);
    await sampler;
    outcome.dbBusyShare = busySamples ? busyTotal / busySamples : 0;
    return outcome;
  } finally {
    await Promise.all(
      processes.map(
        (p) =>
          new Promise<void>((resolve) => {
            p.child.once('exit', () => resolve());
            p.child.kill('SIGTERM');
            setTimeout(() => p.child.kill('SIGKILL'), 15_000).unref();
          }),
      ),
    );
    receiver.close();
    await dbPool.end();
    await db.drop();
  }
}

const server = await startDatabaseServer();
try {
  log(
    `ceiling bench: ${SECONDS} s of mixed load per configuration; ${INGEST_CLIENTS} ingest clients (batches of ${BATCH}), ${LIST_CLIENTS} list clients, one engine client, one webhook`,
  );
  const one = await scenario(1, 1);
  const two = await scenario(2, 2);
  // Engine runs are counted per minute: a run takes tens of seconds.
  const rate = (o: Outcome, op: keyof Outcome['ops']) => (o.ops[op].units / o.seconds) * (op === 'engine' ? 60 : 1);
  const p99 = (o: Outcome, op: keyof Outcome['ops']) => percentile(Float64Array.from(o.ops[op].latenciesMs).sort(), 0.99);
  const unit = { ingest: 'records/s', list: 'requests/s', engine: 'runs/min', webhook: 'deliveries/s' } as const;
  const rows = (['ingest', 'list', 'engine', 'webhook'] as const).map((op) => [
    op,
    `${fmt(rate(one, op), 1)} ${unit[op]}`,
    `${fmt(rate(two, op), 1)} ${unit[op]}`,
    `${fmt(rate(two, op) / Math.max(rate(one, op), 1e-9))}x`,
    op === 'webhook' ? '-' : `${fmt(p99(one, op), 0)} ms`,
    op === 'webhook' ? '-' : `${fmt(p99(two, op), 0)} ms`,
    `${one.ops[op].errors}/${two.ops[op].errors}`,
  ]);
  rows.push([
    'postgres',
    `${fmt(one.dbCommitsPerSecond, 0)} commits/s, ${fmt(one.dbBusyShare, 1)} active`,
    `${fmt(two.dbCommitsPerSecond, 0)} commits/s, ${fmt(two.dbBusyShare, 1)} active`,
    `${fmt(two.dbCommitsPerSecond / Math.max(one.dbCommitsPerSecond, 1e-9))}x`,
    '-',
    '-',
    '-',
  ]);
  log(table(['operation', '1 api + 1 worker', '2 api + 2 worker', 'ratio', 'p99 (1+1)', 'p99 (2+2)', 'errors'], rows));
} finally {
  await server.stop();
}
