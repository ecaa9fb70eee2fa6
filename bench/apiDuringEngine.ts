/**
 * The API never stalls (issue 11): `GET /v1/issues` latency while the engine runs over a large
 * workspace, next to the same requests with the engine idle, in the same run.
 *
 *   npm run bench:apiDuringEngine [-- --issues 100000 --idle-seconds 30 --interval-ms 120 --vacuum --cpu-probe]
 *
 * A fresh test database holding `--issues` generated issues in the demo workspace (bench/workspace.ts);
 * a real `svc serve` child process on it (HTTP in its process, the job runner in its worker process,
 * the engine's stages in a worker thread there). A client in this process sends `GET /v1/issues?limit=25`
 * one after another every `--interval-ms` (paced: the product's per-IP limit of 600 requests a minute
 * applies to a real process, and an API client polls rather than floods; with the run's status polled
 * every second that is 560 a minute): first for `--idle-seconds`
 * with nothing running, then from `POST /v1/engine/runs` until the run has succeeded, then idle again.
 * Target: p99 during the run at most 2x the idle p99 (both idle phases pooled). The fill is analyzed, not
 * vacuumed (the database right after a bulk ingest); `--vacuum` vacuums it first, as autovacuum would soon
 * after such an ingest in production (it is off on the CI's Postgres): the idle list then counts with an
 * index-only scan instead of a sequential one. Each request is also timed inside the server (its access-log
 * line), so a tail spent between the client and the server shows apart; `--cpu-probe` adds, by phase, each
 * group of threads' CPU time and run-queue wait and each CPU's busy share (/proc; off by default, as the
 * probe's own reads take CPU from the core the API shares with this client during a run).
 */
import { benchArgs } from './args.ts';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { spawnSvc, svcEnv } from '../fixtures/svcProcess.ts';
import { threadSchedstat, threadsOf } from './childServers.ts';
import { fmt, intFlag, percentile, table, verdict } from './measure.ts';
import { fillWorkspace } from './workspace.ts';

const { values: flags } = benchArgs(import.meta.url, {
  options: {
    issues: { type: 'string' },
    'idle-seconds': { type: 'string' },
    'interval-ms': { type: 'string' },
    vacuum: { type: 'boolean' },
    'cpu-probe': { type: 'boolean' },
  },
});
const ISSUES = intFlag('issues', flags.issues ?? '100000');
const IDLE_MS = intFlag('idle-seconds', flags['idle-seconds'] ?? '30') * 1000;
const INTERVAL_MS = intFlag('interval-ms', flags['interval-ms'] ?? '120');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const PROBE_MS = 20;

/**
 * A probe's own connection to the bench database, and `sample` run on it every `everyMs` until `stop`
 * (which waits for the sample under way, then closes the connection).
 */
async function startSampler(url: string, everyMs: number, sample: (client: pg.Client) => Promise<void>) {
  const client = new pg.Client({ connectionString: url, application_name: 'svc-bench-probe' });
  await client.connect();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await sample(client);
      await sleep(everyMs);
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    await client.end();
  };
}

/**
 * Samples, every PROBE_MS, the wait event of each active backend of the API's pool (application_name
 * `svc`; the runner's are `svc-worker`) by the run's phase: on CPU (no wait event), a lock, an LWLock
 * (WAL insertion, buffer mapping …), I/O or the client. The database side of a slow request, measured.
 */
async function startWaitProbe(url: string, phaseNow: () => string) {
  const counts = new Map<string, Map<string, number>>();
  const stop = await startSampler(url, PROBE_MS, async (client) => {
    const at = phaseNow();
    const { rows } = await client.query<{ wait: string }>(
      `select coalesce(wait_event_type || ':' || wait_event, 'CPU') as wait from pg_stat_activity
        where datname = current_database() and application_name = 'svc' and state = 'active' and pid <> pg_backend_pid()`,
    );
    const phaseCounts = counts.get(at) ?? new Map<string, number>();
    counts.set(at, phaseCounts);
    phaseCounts.set('(samples)', (phaseCounts.get('(samples)') ?? 0) + 1);
    for (const r of rows) phaseCounts.set(r.wait, (phaseCounts.get(r.wait) ?? 0) + 1);
  });
  return {
    stop,
    table() {
      const waits = [...new Set([...counts.values()].flatMap((m) => [...m.keys()]))].filter((w) => w !== '(samples)').sort();
      return table(
        ['phase', 'samples', ...waits],
        [...counts].map(([name, m]) => {
          const n = m.get('(samples)') ?? 1;
          return [name, String(n), ...waits.map((w) => `${fmt((100 * (m.get(w) ?? 0)) / n, 1)}%`)];
        }),
      );
    },
  };
}

/**
 * The machine side of a slow request: every 250 ms, each thread's on-CPU time and its time runnable but
 * waiting for a core (/proc/<pid>/task/<tid>/schedstat), summed by group and by the run's phase: the
 * server's main thread (every request's JavaScript), the API's Postgres backends, the job runner's node
 * process, the runner's backends and every other Postgres process (checkpointer, WAL writer, autovacuum,
 * other databases' backends). Linux only (it reads /proc).
 */
async function startSchedulerProbe(url: string, serverPid: number, phaseNow: () => string) {
  const groups = ['server main thread', 'API backends', 'runner process', 'runner backends', 'other postgres'] as const;
  type Group = (typeof groups)[number];
  const totals = new Map<string, { seconds: number; by: Map<Group, [number, number]>; busy: number[] }>();
  const last = new Map<string, [number, number]>();
  // Each CPU's busy time (all processes, this bench and everything else on the machine included), in ticks.
  const cpuBusy = (): number[] =>
    readFileSync('/proc/stat', 'utf8')
      .split('\n')
      .filter((l) => /^cpu\d+ /.test(l))
      .map((l) => {
        const [user, nice, system, , , irq, softirq, steal] = l.split(/\s+/).slice(1).map(Number);
        return user + nice + system + irq + softirq + steal;
      });
  const ticksPerSecond = 100;
  let busyBefore = cpuBusy();
  const runnerPid = () => Number(readFileSync(`/proc/${serverPid}/task/${serverPid}/children`, 'utf8').trim().split(/\s+/)[0]) || 0;
  let previous = performance.now();
  const stop = await startSampler(url, 250, async (client) => {
    const at = phaseNow();
    const { rows } = await client.query<{ pid: number; application_name: string }>(
      `select pid, application_name from pg_stat_activity where datname = current_database() and application_name in ('svc', 'svc-worker')`,
    );
    const backendGroup = new Map<number, Group>(rows.map((r) => [r.pid, r.application_name === 'svc' ? 'API backends' : 'runner backends']));
    const members: Array<[Group, number, string]> = [['server main thread', serverPid, String(serverPid)]];
    const runner = runnerPid();
    if (runner) for (const tid of threadsOf(runner)) members.push(['runner process', runner, tid]);
    for (const entry of readdirSync('/proc')) {
      const pid = Number(entry);
      if (!pid) continue;
      let comm = '';
      try {
        comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      } catch {
        continue;
      }
      if (comm === 'postgres') members.push([backendGroup.get(pid) ?? 'other postgres', pid, String(pid)]);
    }
    const now = performance.now();
    const phase = totals.get(at) ?? { seconds: 0, by: new Map(), busy: [] };
    totals.set(at, phase);
    phase.seconds += (now - previous) / 1000;
    previous = now;
    const busy = cpuBusy();
    busy.forEach((b, cpu) => {
      phase.busy[cpu] = (phase.busy[cpu] ?? 0) + b - busyBefore[cpu];
    });
    busyBefore = busy;
    for (const [group, pid, tid] of members) {
      const stat = threadSchedstat(pid, tid);
      if (!stat) continue;
      const key = `${pid}/${tid}`;
      const before = last.get(key);
      last.set(key, stat);
      if (!before) continue;
      const sum = phase.by.get(group) ?? [0, 0];
      phase.by.set(group, [sum[0] + stat[0] - before[0], sum[1] + stat[1] - before[1]]);
    }
  });
  return {
    stop,
    table() {
      const cpuCount = Math.max(0, ...[...totals.values()].map((t) => t.busy.length));
      return table(
        ['phase (ms per second: on CPU / waiting for a core)', ...groups, ...Array.from({ length: cpuCount }, (_, i) => `cpu${i} busy`)],
        [...totals].map(([name, { seconds, by, busy }]) => [
          name,
          ...groups.map((g) => {
            const [run, wait] = by.get(g) ?? [0, 0];
            return `${fmt(run / 1e6 / seconds, 0)} / ${fmt(wait / 1e6 / seconds, 0)}`;
          }),
          ...busy.map((ticks) => `${fmt((100 * ticks) / ticksPerSecond / seconds, 0)}%`),
        ]),
      );
    },
  };
}

console.log(
  `API during an engine run: ${ISSUES.toLocaleString('en-US')} issues; load average ${(await import('node:os'))
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
const workspace = await fillWorkspace(ISSUES, { vacuum: flags.vacuum });
console.log(`filled in ${(workspace.ingestMs / 1000).toFixed(1)} s${flags.vacuum ? ', then vacuumed' : ''}`);
// The fill's garbage (the generated issues) is collected now, not by a major GC of this client in the middle
// of the measurement: a pause of the client's event loop is counted as request latency (one of 26 ms seen).
setFlagsFromString('--expose-gc');
(runInNewContext('gc') as () => void)();

const child = spawnSvc(
  ['serve'],
  svcEnv({
    DATABASE_URL: workspace.url,
    NODE_ENV: 'development',
    AUTH_PROVIDER: 'none',
    LOG_LEVEL: 'info',
    PLATFORM_PORT: '0',
    PRODUCT_PORT: '0',
    METRICS_PORT: '0',
  }),
);
child.stderr!.pipe(process.stderr);
const platform = await new Promise<string>((resolve, reject) => {
  let buffered = '';
  child.stdout!.on('data', (chunk) => {
    buffered += chunk;
    for (const line of buffered.split('\n')) {
      if (line.includes('"listening"')) resolve(JSON.parse(line).platform as string);
    }
  });
  child.once('exit', (code) => reject(new Error(`svc serve exited with ${code}`)));
});
// What the server logs at warn and above is worth seeing; its access log gives each list request's time
// inside the server (request in to response handed to the socket), in the order the client sent them.
const serverMs: number[] = [];
let partial = '';
child.stdout!.on('data', (chunk: Buffer) => {
  const lines = (partial + String(chunk)).split('\n');
  partial = lines.pop()!;
  for (const line of lines) {
    if (/"level":"(warn|error)"/.test(line)) console.error(line.slice(0, 1000));
    else if (line.includes('"path":"/v1/issues"') && line.includes('"method":"GET"')) serverMs.push((JSON.parse(line) as { duration_ms: number }).duration_ms);
  }
});

try {
  const exchange = await fetch(`${platform}/v1/auth/exchange`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ subject_token: 'bench' }),
  });
  const token = ((await exchange.json()) as { access_token: string }).access_token;
  const headers = { authorization: `Bearer ${token}` };

  /** Paced GET /v1/issues until `done()`; latencies in ms. */
  // What the engine run is doing when a request starts (see `watcher`), for the table of phases.
  let phase = 'idle';
  const phaseOf: string[] = [];
  const poll = async (done: () => boolean): Promise<number[]> => {
    const latencies: number[] = [];
    while (!done()) {
      const at = phase;
      const started = performance.now();
      const res = await fetch(`${platform}/v1/issues?limit=25`, { headers });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`GET /v1/issues answered ${res.status}`);
      const took = performance.now() - started;
      latencies.push(took);
      phaseOf.push(at);
      await sleep(Math.max(0, INTERVAL_MS - took));
    }
    return latencies;
  };
  const idleFor = async (ms: number) => {
    const until = Date.now() + ms;
    return poll(() => Date.now() >= until);
  };

  await idleFor(3000); // warm-up: connections, plans, JIT
  const idleFrom = phaseOf.length;
  const probe = await startWaitProbe(workspace.url, () => phase);
  const scheduler = flags['cpu-probe'] ? await startSchedulerProbe(workspace.url, child.pid!, () => phase) : null;
  const idleBefore = await idleFor(IDLE_MS);

  const posted = await fetch(`${platform}/v1/engine/runs`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: '{}',
  });
  const runId = ((await posted.json()) as { run_id: string }).run_id;
  const runStarted = Date.now();
  const duringFrom = phaseOf.length;
  let finished: string | undefined;
  const watcher = (async () => {
    while (!finished) {
      await sleep(1000);
      const run = (await (await fetch(`${platform}/v1/engine/runs/${runId}`, { headers })).json()) as {
        status: string;
        manifest: { stages: Array<{ stage: string }> };
      };
      if (run.status === 'succeeded' || run.status === 'failed') finished = run.status;
      // The stage being computed follows the last one stored; once the last is stored, the results are applied.
      const stored = run.manifest.stages;
      phase =
        run.status !== 'running' ? run.status : stored.length === 0 ? 'until snapshot stored' : stored.length >= 10 ? 'apply' : `after ${stored.at(-1)!.stage}`;
    }
  })();
  // A failed request ends the watcher too, so the error reported is the request's.
  const during = await poll(() => finished !== undefined).finally(() => {
    finished ??= 'abandoned';
  });
  await watcher;
  const runSeconds = (Date.now() - runStarted) / 1000;
  if (finished !== 'succeeded') throw new Error(`the engine run ${finished}`);
  const idleAfter = await idleFor(IDLE_MS);

  const idle = [...idleBefore, ...idleAfter];
  const summary = (name: string, ms: number[]) => {
    const sorted = Float64Array.from(ms).sort();
    return { name, n: ms.length, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted[sorted.length - 1] };
  };
  const rows = [summary('idle (before and after)', idle), summary('during the engine run', during)];
  const ratio = rows[1].p99 / rows[0].p99;
  console.log(`\nengine run over ${ISSUES.toLocaleString('en-US')} issues: ${runSeconds.toFixed(1)} s (in svc serve's worker process)\n`);
  console.log(
    table(
      ['GET /v1/issues?limit=25', 'requests', 'p50 ms', 'p99 ms', 'max ms'],
      [
        ...rows.map((r) => [r.name, String(r.n), fmt(r.p50), fmt(r.p99), fmt(r.max)]),
        ['ratio during / idle', '', fmt(rows[1].p50 / rows[0].p50), fmt(ratio), ''],
        // The two idle phases apart: the run leaves the table changed (new row versions, dead old ones).
        ...[summary('  idle before', idleBefore), summary('  idle after', idleAfter)].map((r) => [r.name, String(r.n), fmt(r.p50), fmt(r.p99), fmt(r.max)]),
      ],
    ),
  );
  // The same requests timed inside the server: what is left of the tail is the server's; the rest was spent
  // between the client and the server (the client's own event loop, the loopback, waiting for a core).
  await sleep(200); // the last access-log lines
  if (serverMs.length === phaseOf.length) {
    const inServer = (from: number, to: number) => serverMs.slice(from, to);
    const serverRows = [
      summary('idle (before and after)', [...inServer(idleFrom, duringFrom), ...inServer(duringFrom + during.length, serverMs.length)]),
      summary('during the engine run', inServer(duringFrom, duringFrom + during.length)),
    ];
    console.log(
      '\n' +
        table(
          ['the same, inside the server', 'requests', 'p50 ms', 'p99 ms', 'max ms'],
          [
            ...serverRows.map((r) => [r.name, String(r.n), fmt(r.p50), fmt(r.p99), fmt(r.max)]),
            ['ratio during / idle', '', fmt(serverRows[1].p50 / serverRows[0].p50), fmt(serverRows[1].p99 / serverRows[0].p99), ''],
          ],
        ),
    );
  } else console.log(`\n(server-side times not shown: ${serverMs.length} access-log lines for ${phaseOf.length} requests)`);
  // Where the slow requests of the run fall (phase as the watcher last saw it, polled every second).
  const byPhase = new Map<string, number[]>();
  const serverByPhase = new Map<string, number[]>();
  during.forEach((ms, i) => {
    const name = phaseOf[duringFrom + i];
    byPhase.set(name, [...(byPhase.get(name) ?? []), ms]);
    if (serverMs.length === phaseOf.length) serverByPhase.set(name, [...(serverByPhase.get(name) ?? []), serverMs[duringFrom + i]]);
  });
  console.log(
    '\n' +
      table(
        ['phase of the run', 'requests', 'p50 ms', 'max ms', `over idle p99 (${fmt(rows[0].p99)} ms)`, 'max ms inside the server'],
        [...byPhase].map(([name, ms]) => {
          const r = summary(name, ms);
          const inServer = serverByPhase.get(name);
          return [name, String(r.n), fmt(r.p50), fmt(r.max), String(ms.filter((x) => x > rows[0].p99).length), inServer ? fmt(Math.max(...inServer)) : '-'];
        }),
      ),
  );
  await probe.stop();
  console.log(`\nWhat the API's active backends were doing, sampled every ${PROBE_MS} ms (pg_stat_activity; share of samples):\n${probe.table()}`);
  if (scheduler) {
    await scheduler.stop();
    console.log(`\nWhere the machine's time went, by the run's phase (/proc schedstat every 250 ms):\n${scheduler.table()}`);
  }
  console.log(`\nTarget p99 during the run <= 2x idle: ${fmt(ratio)}x -> ${verdict(ratio <= 2)}`);
  console.log(
    `Load average at end: ${(await import('node:os'))
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
} finally {
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  await workspace.drop();
}
