/**
 * Issue 11's soak: ingest and engine runs under continuous load against real `svc api` and `svc
 * worker` processes on one database, with a worker SIGKILLed every `--kill-every` seconds for
 * `--minutes` and a new one started in its place (the next kill waits until it is ready). The victim is
 * the next worker in turn (`--victim turn`), or the worker holding an engine run when one runs, else
 * the one holding the most jobs (`--victim busiest`: every kill lands mid-job, and an engine run
 * longer than the kill interval is interrupted on every attempt until its attempts run out).
 *
 *   npm run bench:faults [-- --minutes 10 --kill-every 60 --victim turn|busiest --apis 2 --workers 2 --clients 2
 *                            --rate 4 --batch 10 --heartbeat-ms 1000 --dead-after-ms 5000 --drain-seconds 180 --keep]
 *
 * Load: `--clients` ingest clients, each alternating `POST /v1/ingest/batch` (`--batch` new records)
 * and `POST /v1/ingest/events` at `--rate` requests a second, spread over the API processes; one
 * engine client posting `POST /v1/engine/runs` again as soon as its previous run finished. Each client
 * has its own X-Forwarded-For address (TRUST_PROXY=1, RATE_LIMIT_STORE=postgres) and stays inside the
 * per-client limit. After the last kill the load stops and the jobs drain (every ingest__process and
 * engine__run job_runs row terminal, at most `--drain-seconds`); then, from the database:
 *
 * - completed: job_runs rows of ingest__process / engine__run with status succeeded.
 * - retried: those rows with attempts > 1; interrupted: those whose `interruptions` is not empty (the
 *   attempt a dead worker held, recorded when its lock was released).
 * - duplicated (must be 0), the sum of: outbound events beyond one per job run; issues beyond one per
 *   acknowledged (source, external_id); engine runs whose completion committed more than once (the
 *   notification__route job their completion enqueues, beyond one per run); and executions of one
 *   job attempt by two workers at once, which a BEFORE INSERT trigger on outbound_events in this
 *   scratch database observes (it fires even when the unique index then skips the row: a row per
 *   attempted effect, with graphile-worker's attempt number and `locked_by`).
 * - lost (must be 0), the sum of: acknowledged (202) records not in `issues`; acknowledged ingest jobs
 *   without their outbound event; acknowledged engine runs without `finished_at`.
 *
 * Also: per kill, whether it interrupted a job, and the time from the kill to the release of the
 * interrupted attempt (job_runs.interruptions[].released_at) and to the job's completion.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { createTestDatabase, startDatabaseServer } from '../fixtures/database.ts';
import { generateIssues } from '../fixtures/synthetic.ts';
import { startSvcRole, svcEnv, type SvcRole } from '../fixtures/svcProcess.ts';
import { seedDevelopmentData } from '../sql/seed.ts';
import { fmt, intFlag, table, verdict } from './measure.ts';
import { openDatabase } from './workspace.ts';

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    'kill-every': { type: 'string', default: '60' },
    apis: { type: 'string', default: '2' },
    workers: { type: 'string', default: '2' },
    clients: { type: 'string', default: '2' },
    rate: { type: 'string', default: '4' },
    batch: { type: 'string', default: '10' },
    'heartbeat-ms': { type: 'string', default: '1000' },
    'dead-after-ms': { type: 'string', default: '5000' },
    'drain-seconds': { type: 'string', default: '180' },
    victim: { type: 'string', default: 'turn' },
    keep: { type: 'boolean', default: false },
  },
});
const MINUTES = intFlag('minutes', args.minutes);
const KILL_EVERY_S = intFlag('kill-every', args['kill-every']);
const APIS = intFlag('apis', args.apis);
const WORKERS = intFlag('workers', args.workers, 2);
const CLIENTS = intFlag('clients', args.clients);
const RATE = intFlag('rate', args.rate);
const BATCH = intFlag('batch', args.batch);
const HEARTBEAT_MS = intFlag('heartbeat-ms', args['heartbeat-ms'], 100);
const DEAD_AFTER_MS = intFlag('dead-after-ms', args['dead-after-ms'], 2 * HEARTBEAT_MS);
const DRAIN_S = intFlag('drain-seconds', args['drain-seconds']);
if (args.victim !== 'turn' && args.victim !== 'busiest') throw new Error(`--victim must be turn or busiest, got '${args.victim}'`);
const VICTIM = args.victim;

const log = (line = '') => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

type Svc = SvcRole;

/** Starts `svc <role>` on the database with the soak's settings. */
const startSvc = (role: 'api' | 'worker', databaseUrl: string): Promise<Svc> =>
  startSvcRole(
    role,
    svcEnv({
      NODE_ENV: 'test',
      DATABASE_URL: databaseUrl,
      PLATFORM_PORT: '0',
      PRODUCT_PORT: '0',
      METRICS_PORT: '0',
      LOG_LEVEL: 'info',
      RATE_LIMIT_STORE: 'postgres',
      TRUST_PROXY: '1',
      WORKER_HEARTBEAT_INTERVAL_MS: String(HEARTBEAT_MS),
      WORKER_DEAD_AFTER_MS: String(DEAD_AFTER_MS),
    }),
  );

async function post(base: string, route: string, body: unknown, headers: Record<string, string>) {
  const res = await fetch(base + route, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID(), ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text };
}

/** Every svc process started, killed ones included. */
const all: Svc[] = [];
const track = (svc: Svc) => {
  all.push(svc);
  return svc;
};
async function stopAll() {
  for (const svc of all) if (svc.child.exitCode === null && svc.child.signalCode === null) svc.child.kill('SIGTERM');
  await Promise.all(all.map((s) => s.exited));
}

async function main() {
  const server = await startDatabaseServer();
  const db = await createTestDatabase();
  const { pool, app } = await openDatabase(db.url);
  const { workspaceId } = await seedDevelopmentData(pool, app.logger);
  // Instrumentation of this scratch database: every attempted outbound event of a job, with its attempt and worker.
  await pool.query(`
    create table bench_effect_attempts (job_run_id uuid, attempt integer, locked_by text, at timestamptz not null default clock_timestamp());
    create function bench_record_effect_attempt() returns trigger language plpgsql as $$
    begin
      if new.job_run_id is not null then
        insert into bench_effect_attempts (job_run_id, attempt, locked_by)
        select new.job_run_id, j.attempts, j.locked_by
          from (select new.job_run_id as id) e
          left join job_runs r on r.id = e.id
          left join graphile_worker._private_jobs j on j.id = r.worker_job_id;
      end if;
      return new;
    end $$;
    create trigger bench_record_effect_attempt before insert on outbound_events for each row execute function bench_record_effect_attempt();`);

  const apis = await Promise.all(Array.from({ length: APIS }, () => startSvc('api', db.url).then(track)));
  const workers = await Promise.all(Array.from({ length: WORKERS }, () => startSvc('worker', db.url).then(track)));
  const bases = apis.map((a) => a.platform!);
  const exchange = await post(bases[0], '/v1/auth/exchange', { subject_token: 'soak' }, {});
  if (exchange.status !== 200) throw new Error(`exchange failed: ${exchange.status} ${JSON.stringify(exchange.body)}`);
  const auth = { authorization: `Bearer ${exchange.body.access_token}` };
  log(
    `Soak: ${MINUTES} min, a worker (${VICTIM === 'turn' ? 'in turn' : 'the busiest'}) SIGKILLed every ${KILL_EVERY_S} s; ${APIS} svc api + ${WORKERS} svc worker on one database;`,
  );
  log(`${CLIENTS} ingest clients at ${RATE} requests/s (batches of ${BATCH} and single events) and back-to-back engine runs;`);
  log(`heartbeat ${HEARTBEAT_MS} ms, dead after ${DEAD_AFTER_MS} ms.`);

  // The load.
  const pool5k = generateIssues(5000, 11, 6);
  const ackRecords: string[] = [];
  const ackIngestJobs: string[] = [];
  const ackEngineRuns: Array<{ run_id: string; job_id: string }> = [];
  const failures = new Map<string, number>();
  let requests = 0;
  let running = true;
  const fail = (what: string) => failures.set(what, (failures.get(what) ?? 0) + 1);
  const record = (c: number, i: number) => {
    const g = pool5k[(c * 7919 + i) % pool5k.length];
    return { external_id: `soak-${c}-${i}`, title: g.title, narrative: g.narrative, source: 'soak', severity: g.severity, occurred_at: g.occurred_at };
  };
  const ingestClient = async (c: number) => {
    const headers = { ...auth, 'x-forwarded-for': `198.18.${c}.1` };
    let next = 0;
    for (let n = 0; running; n++) {
      const started = Date.now();
      const base = bases[(n + c) % bases.length];
      const records = n % 2 ? [record(c, next++)] : Array.from({ length: BATCH }, () => record(c, next++));
      try {
        const res = n % 2 ? await post(base, '/v1/ingest/events', records[0], headers) : await post(base, '/v1/ingest/batch', { records }, headers);
        requests++;
        if (res.status === 202) {
          for (const r of records) ackRecords.push(r.external_id);
          ackIngestJobs.push(res.body.job_id);
        } else fail(`ingest ${res.status} ${typeof res.body === 'string' ? res.body : (res.body?.error?.code ?? '')}`);
      } catch (err) {
        fail(`ingest ${(err as Error).message}`);
      }
      await sleep(Math.max(0, 1000 / RATE - (Date.now() - started)));
    }
  };
  const engineClient = async () => {
    const headers = { ...auth, 'x-forwarded-for': '198.18.255.1' };
    while (running && ackRecords.length < 200) await sleep(200);
    for (let n = 0; running; n++) {
      const res = await post(bases[n % bases.length], '/v1/engine/runs', {}, headers).catch((err) => ({ status: 0, body: String(err) }));
      requests++;
      if (res.status !== 202) {
        fail(`engine ${res.status}`);
        await sleep(1000);
        continue;
      }
      ackEngineRuns.push({ run_id: res.body.run_id, job_id: res.body.job_id });
      while (running) {
        const { rows } = await pool.query<{ status: string }>('select status from job_runs where id = $1', [res.body.job_id]);
        if (['succeeded', 'failed', 'cancelled'].includes(rows[0]?.status ?? '')) break;
        await sleep(500);
      }
    }
  };

  // The killer.
  const kills: Array<{ at: number; pools: string[]; held: number; engine: boolean }> = [];
  const killer = async (end: number) => {
    let turn = 0;
    for (let next = Date.now() + KILL_EVERY_S * 1000; next <= end; next += KILL_EVERY_S * 1000) {
      await sleep(next - Date.now());
      // Waiting for replacements can run past the end: no kill after it.
      if (Date.now() > end) break;
      const { rows } = await pool.query<{ locked_by: string; n: number; engine: number }>(
        `select locked_by, count(*)::int as n, count(*) filter (where task_identifier = 'engine__run')::int as engine
           from graphile_worker.jobs where locked_by is not null group by 1`,
      );
      const load = (w: Svc) => {
        const held = rows.filter((r) => w.poolIds.includes(r.locked_by));
        return { n: held.reduce((s, r) => s + r.n, 0), engine: held.some((r) => r.engine > 0) };
      };
      const inTurn = (i: number) => (i - turn + WORKERS) % WORKERS;
      const ranked = workers
        .map((w, i) => ({ w, i, ...load(w) }))
        .sort((a, b) => (VICTIM === 'busiest' ? Number(b.engine) - Number(a.engine) || b.n - a.n : 0) || inTurn(a.i) - inTurn(b.i));
      const victim = ranked[0];
      turn = (victim.i + 1) % WORKERS;
      victim.w.child.kill('SIGKILL');
      kills.push({ at: Date.now(), pools: [...victim.w.poolIds], held: victim.n, engine: victim.engine });
      await victim.w.exited;
      workers[victim.i] = track(await startSvc('worker', db.url));
      log(
        `  ${new Date().toISOString().slice(11, 19)} kill ${kills.length}: worker ${victim.i + 1} (${victim.n} jobs held${victim.engine ? ', an engine run' : ''}); replaced`,
      );
    }
  };

  // Connections to the database by application_name (svc: the processes' main pools and LISTEN
  // clients; svc-worker: the job runners' pools), the peak of samples every two seconds.
  const peakConnections = new Map<string, number>();
  const sampler = setInterval(() => {
    pool
      .query<{ app: string; n: number }>(
        `select application_name as app, count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() group by 1`,
      )
      .then(({ rows }) => {
        for (const r of rows) peakConnections.set(r.app || '(none)', Math.max(peakConnections.get(r.app || '(none)') ?? 0, r.n));
      })
      .catch(() => {});
  }, 2000);

  const startedAt = Date.now();
  const end = startedAt + MINUTES * 60_000;
  const load = [...Array.from({ length: CLIENTS }, (_, c) => ingestClient(c)), engineClient()];
  await killer(end);
  await sleep(Math.max(0, end - Date.now()));
  running = false;
  await Promise.all(load);
  const loadMs = Date.now() - startedAt;
  clearInterval(sampler);

  // Drain: every job of the load terminal.
  const drainStarted = Date.now();
  let pending = -1;
  while (Date.now() - drainStarted < DRAIN_S * 1000) {
    const { rows } = await pool.query<{ n: number }>(
      `select count(*)::int as n from job_runs where kind in ('ingest__process', 'engine__run') and status in ('queued', 'running')`,
    );
    pending = rows[0].n;
    if (pending === 0) break;
    await sleep(500);
  }
  const drainMs = Date.now() - drainStarted;

  // The figures.
  const jobIds = ackIngestJobs;
  const runIds = ackEngineRuns.map((r) => r.run_id);
  const q = async (sql: string, params: unknown[] = []) => (await pool.query(sql, params)).rows;
  const kinds = await q(
    `select kind, count(*)::int as total, count(*) filter (where status = 'succeeded')::int as succeeded,
            count(*) filter (where status = 'failed')::int as failed, count(*) filter (where status in ('queued', 'running'))::int as unfinished,
            count(*) filter (where attempts > 1)::int as retried, count(*) filter (where jsonb_array_length(interruptions) > 0)::int as interrupted,
            coalesce(sum(jsonb_array_length(interruptions)), 0)::int as interruptions
       from job_runs where kind in ('ingest__process', 'engine__run') group by kind order by kind`,
  );
  const [dupEvents] = await q(
    `select coalesce(sum(n - 1), 0)::int as n from (select count(*) as n from outbound_events where job_run_id is not null group by job_run_id) x`,
  );
  const [dupIssues] = await q(`select (count(*) - count(distinct external_id))::int as n from issues where workspace_id = $1 and source = 'soak'`, [
    workspaceId,
  ]);
  const [dupCompletions] = await q(
    `select coalesce(sum(n - 1), 0)::int as n from (select count(*) as n from job_runs
      where kind = 'notification__route' and payload->>'source' = 'engine_run' and payload->>'run_id' = any($1) group by payload->>'run_id') x`,
    [runIds],
  );
  const [dupExecutions] = await q(`select (count(*) - count(distinct (job_run_id, attempt)))::int as n from bench_effect_attempts`);
  const [reExecuted] = await q(`select count(*)::int as n from (select job_run_id from bench_effect_attempts group by 1 having count(*) > 1) x`);
  const [lostRecords] = await q(
    `select count(*)::int as n from unnest($1::text[]) e(id)
      where not exists (select 1 from issues i where i.workspace_id = $2 and i.source = 'soak' and i.external_id = e.id)`,
    [ackRecords, workspaceId],
  );
  const [lostEvents] = await q(
    `select count(*)::int as n from unnest($1::uuid[]) j(id) where not exists (select 1 from outbound_events o where o.job_run_id = j.id)`,
    [jobIds],
  );
  const [lostRuns] = await q(`select count(*)::int as n from engine_runs where id = any($1) and finished_at is null`, [runIds]);
  const [missingRuns] = await q(`select ($2::int - count(*))::int as n from engine_runs where id = any($1)`, [runIds, runIds.length]);
  const interruptions = await q(
    `select r.kind, i->>'worker' as worker, (i->>'released_at')::timestamptz as released_at, r.finished_at
       from job_runs r cross join jsonb_array_elements(r.interruptions) i where r.kind in ('ingest__process', 'engine__run')`,
  );
  const recovery = interruptions.map((i) => {
    const kill = kills.find((k) => k.pools.includes(i.worker));
    return {
      kind: i.kind,
      releasedMs: kill ? i.released_at.getTime() - kill.at : NaN,
      completedMs: kill && i.finished_at ? i.finished_at.getTime() - kill.at : NaN,
    };
  });

  const duplicated = dupEvents.n + dupIssues.n + dupCompletions.n + dupExecutions.n;
  const lost = lostRecords.n + lostEvents.n + lostRuns.n + missingRuns.n;
  log();
  log(`Load ${secs(loadMs)}, drain ${secs(drainMs)}${pending ? ` (${pending} jobs still pending: the drain timed out)` : ''}.`);
  log(
    `HTTP: ${fmt(requests, 0)} requests; acknowledged ${fmt(ackRecords.length, 0)} records in ${fmt(jobIds.length, 0)} ingest requests and ${runIds.length} engine runs.`,
  );
  if (failures.size) log(`Requests not acknowledged: ${[...failures].map(([what, n]) => `${what} ×${n}`).join(', ')}`);
  log(`Peak connections to the database by application: ${[...peakConnections].map(([a, n]) => `${a} ${n}`).join(', ')}.`);
  log(
    `Kills: ${kills.length}, ${kills.filter((k) => k.held > 0).length} of them while the victim held a job (${kills.filter((k) => k.engine).length} mid engine run).`,
  );
  log();
  log(
    table(
      ['task', 'jobs', 'completed', 'failed', 'unfinished', 'retried', 'interrupted', 'interruptions'],
      kinds.map((k) => [k.kind, k.total, k.succeeded, k.failed, k.unfinished, k.retried, k.interrupted, k.interruptions].map(String)),
    ),
  );
  log();
  const worst = (key: 'releasedMs' | 'completedMs', kind: string) => {
    const values = recovery.filter((r) => r.kind === kind && Number.isFinite(r[key])).map((r) => r[key]);
    return values.length ? secs(Math.max(...values)) : '-';
  };
  for (const kind of ['engine__run', 'ingest__process'])
    if (recovery.some((r) => r.kind === kind))
      log(
        `${kind}: interrupted attempts released at most ${worst('releasedMs', kind)} after the kill; the job completed at most ${worst('completedMs', kind)} after it.`,
      );
  log(`Ingest jobs whose effect was attempted more than once (a retry after an interruption; the event stayed one): ${reExecuted.n}`);
  log();
  log(
    table(
      ['figure', 'count', 'parts'],
      [
        [
          'duplicated',
          String(duplicated),
          `events beyond one per job ${dupEvents.n}, issues beyond one per record ${dupIssues.n}, engine completions beyond one ${dupCompletions.n}, one attempt run twice ${dupExecutions.n}`,
        ],
        [
          'lost',
          String(lost),
          `records not stored ${lostRecords.n}, ingest jobs without their event ${lostEvents.n}, engine runs unfinished ${lostRuns.n}, engine runs missing ${missingRuns.n}`,
        ],
      ],
    ),
  );
  log();
  log(`duplicated = 0: ${verdict(duplicated === 0)}; lost = 0: ${verdict(lost === 0)}`);

  await stopAll();
  await pool.end();
  if (args.keep) log(`Database kept: ${db.url}`);
  else await db.drop();
  await server.stop();
  if (duplicated || lost) process.exitCode = 1;
}

try {
  await main();
} catch (err) {
  await stopAll();
  throw err;
}
