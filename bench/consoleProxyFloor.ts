/**
 * Issue 29's floor: how much any forwarder in Node adds to the product API call it forwards, next to
 * what the console's proxy adds, in the layout production runs. A child process runs what `svc serve`
 * runs from the build (dist/, built first when stale; product API, console and proxy in one process
 * and thread) and, in the same process and thread, three minimal forwarders to the same product API
 * (bench/consoleProxyFloorServe.ts): `undici, bare` (node's HTTP server and one undici `Pool.dispatch`,
 * raw header lines passed both ways unchanged, no rule applied), `node http, bare` (the same with
 * node's `http.request` on a keep-alive Agent) and `net pipe` (a socket piped to a
 * socket, bytes unchanged, no HTTP parsing: the absolute floor of one more loopback hop through a Node
 * process). The client is this process, one keep-alive connection per target, sequential calls.
 *
 * Per round, `--requests` cycles; each cycle calls the product API directly and through each
 * forwarder once, in an order that rotates cycle by cycle, so drift reaches all of them alike. The
 * figure is the median over rounds of (p50 through the forwarder / direct p50), and beside it the
 * median over cycles of (forwarder - direct in the same cycle), as a ratio to the direct p50. With
 * --cpu also the child's CPU time per call (/proc schedstat of every thread; the worker child is
 * not counted) for `--requests` calls of each target in a row, order rotating round by round; it
 * swings by hundreds of µs a call from round to round (a major GC falls in one series and not in
 * another), so latency is the figure to read.
 *
 * --baseline-tree DIR adds a second child from DIR/dist/ (an earlier commit extracted and built there,
 * as for `bench:consoleProxy`), measured in the same rounds (the children take turns): before against
 * after in one run. Two children of the same code differed by 0.03 in our proxy's ratio in the same
 * run (session 14), so a change needs more than that, in repeated runs. --one-thread runs this tree's
 * `svc serve` and forwarders in this process instead of a child (client, forwarders and product API
 * in one thread: a hop then wakes no other process, it costs only CPU; the CPU figure then includes
 * the client's). --tsx runs this tree's from the TypeScript sources; --node-options "…" gives node
 * flags to this tree's child only (`--node-options=--max-semi-space-size=64`; the baseline child
 * runs without). --forwarders proxy,undici,http,pipe measures only those (with the direct call; for a
 * CPU profile of one of them, `--node-options=--cpu-prof`). The load average (1, 5, 15 min) is printed
 * at the start and the end.
 *
 * Run: `npm run bench:consoleProxyFloor` (flags: --rounds, --requests, --paths a,b, --cpu,
 * --baseline-tree DIR, --one-thread, --tsx, --node-options, --forwarders). Results: docs/benchmarks.md (issue 29, session 14).
 */
import { execFileSync, spawn } from 'node:child_process';
import http from 'node:http';
import { createTestDatabase, startDatabaseServer } from '../fixtures/database.ts';
import { createPool } from '../lib/db.ts';
import { hashPassword, setPasswordHashCost } from '../lib/passwords.ts';
import { upsertEmployee } from '../sql/employees.ts';
import { benchArgs } from './args.ts';
import { childGroup, freePort, processCpuNs, until200 } from './childServers.ts';
import { intFlag, loadAverage, median } from './measure.ts';

const { values } = benchArgs(import.meta.url, {
  options: {
    rounds: { type: 'string', default: '7' },
    requests: { type: 'string', default: '300' },
    paths: { type: 'string', default: '/admin/me' },
    cpu: { type: 'boolean', default: false },
    'baseline-tree': { type: 'string' },
    tsx: { type: 'boolean', default: false },
    'node-options': { type: 'string', default: '' },
    'one-thread': { type: 'boolean', default: false },
    forwarders: { type: 'string', default: 'proxy,undici,http,pipe' },
  },
});
const rounds = intFlag('rounds', values.rounds);
const forwarders = values.forwarders.split(',');
for (const key of forwarders) {
  if (!['proxy', 'undici', 'http', 'pipe'].includes(key)) throw new Error(`--forwarders: '${key}' is none of proxy, undici, http, pipe`);
}
const requests = intFlag('requests', values.requests);
const loadAtStart = loadAverage();
const startedAt = new Date().toISOString().slice(11, 16);

const server = await startDatabaseServer();
process.env.SVC_TEST_DATABASE_URL ??= server.url;
const db = await createTestDatabase();
const secret = 'bench-console-proxy-secret-0123456789abcdef';
const email = 'bench@example.com';
const password = 'bench password 1';
{
  const pool = createPool(db.url, { max: 2 });
  setPasswordHashCost(14);
  await pool.query(`insert into tenants (slug, company, industry) select 'bench-' || i, 'Bench Company ' || i, 'retail' from generate_series(1, 1000) as i`);
  await upsertEmployee(pool, { email, passwordHash: await hashPassword(password), role: 'onboarding_admin', fullName: 'Bench' });
  await pool.end();
}

const children = childGroup();
interface Target {
  name: string;
  url: string;
  agent: http.Agent;
}
interface Deployment {
  label: string;
  pid: number;
  /** The direct call first, then the forwarders. */
  targets: Target[];
}

/** `svc serve` and the floor forwarders in one child: from `tree`/dist/, or 'tsx' for this tree's sources. */
async function startDeployment(label: string, tree: string, nodeOptions: string[] = [], oneThread = false): Promise<Deployment> {
  const [platform, product, consolePort, metrics, undici, nodeHttp, pipe] = await Promise.all(Array.from({ length: 7 }, freePort));
  const env = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PASSWORD_SCRYPT_LOG_N: '14',
    CONSOLE_PROXY_SECRET: secret,
    DATABASE_URL: db.url,
    PLATFORM_PORT: String(platform),
    PRODUCT_PORT: String(product),
    CONSOLE_PORT: String(consolePort),
    METRICS_PORT: String(metrics),
    PRODUCT_URL: `http://127.0.0.1:${product}`,
    FLOOR_TREE: tree,
    FLOOR_UNDICI_PORT: String(undici),
    FLOOR_HTTP_PORT: String(nodeHttp),
    FLOOR_PIPE_PORT: String(pipe),
  };
  const base = (port: number, prefix = '') => `http://127.0.0.1:${port}${prefix}`;
  const targets = [
    { key: 'direct', name: 'direct', url: base(product) },
    { key: 'proxy', name: 'our proxy (console /api/backend)', url: base(consolePort, '/api/backend') },
    { key: 'undici', name: 'undici, bare', url: base(undici) },
    { key: 'http', name: 'node http, bare', url: base(nodeHttp) },
    { key: 'pipe', name: 'net pipe', url: base(pipe) },
  ].filter((t) => t.key === 'direct' || forwarders.includes(t.key));
  const ready = async (pid: number) => {
    for (const t of targets) await until200(`${t.url}/health/live`);
    return { label, pid, targets: targets.map(({ name, url }) => ({ name, url, agent: new http.Agent({ keepAlive: true, maxSockets: 1 }) })) };
  };
  if (oneThread) {
    Object.assign(process.env, env);
    stopInProcess = ((await import('./consoleProxyFloorServe.ts')) as { stopFloor(): Promise<void> }).stopFloor;
    return ready(process.pid);
  }
  const child = spawn(process.execPath, [...nodeOptions, '--import', 'tsx', 'bench/consoleProxyFloorServe.ts'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.add(child, label);
  return ready(child.pid!);
}
let stopInProcess: (() => Promise<void>) | undefined;

function call(target: Target, method: string, path: string, headers: Record<string, string>, body?: string) {
  const started = process.hrtime.bigint();
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; us: number }>((resolve, reject) => {
    const req = http.request(`${target.url}${path}`, { method, headers, agent: target.agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, us: Number(process.hrtime.bigint() - started) / 1e3 }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

if (!values.tsx) execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { stdio: 'inherit' });
const nodeOptions = values['node-options'].split(' ').filter(Boolean);
const deployments = [
  await startDeployment(
    values['one-thread']
      ? `one thread (client, \`svc serve\` ${values.tsx ? 'from tsx sources' : 'from dist/'} and forwarders)`
      : `\`svc serve\` ${values.tsx ? '(tsx sources)' : 'from dist/'}${nodeOptions.length ? ` with ${nodeOptions.join(' ')}` : ''}`,
    values.tsx ? 'tsx' : '.',
    nodeOptions,
    values['one-thread'],
  ),
];
if (values['baseline-tree']) deployments.push(await startDeployment(`\`svc serve\` from ${values['baseline-tree']}/dist/ (baseline)`, values['baseline-tree']));

// Sessions live in the database: one login serves every product API over it.
const login = await call(deployments[0].targets[0], 'POST', '/admin/login', { 'content-type': 'application/json' }, JSON.stringify({ email, password }));
if (login.status !== 200) throw new Error(`login: ${login.status}`);
const headers = { cookie: (login.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; '), accept: 'application/json' };

const rows: string[] = [];
const cpuRows: string[] = [];
for (const path of values.paths.split(',')) {
  // Warm-up: the JIT and every keep-alive connection.
  for (const d of deployments) for (let i = 0; i < 300; i++) for (const t of d.targets) await call(t, 'GET', path, headers);
  const times = new Map<Target, number[][]>();
  const added = new Map<Target, number[]>();
  for (const d of deployments) {
    for (const t of d.targets) {
      times.set(t, []);
      added.set(t, []);
    }
  }
  for (let round = 0; round < rounds; round++) {
    // The deployments take turns going first, round by round.
    for (let k = 0; k < deployments.length; k++) {
      const d = deployments[(k + round) % deployments.length];
      const n = d.targets.length;
      const roundTimes = d.targets.map(() => [] as number[]);
      for (let i = 0; i < requests; i++) {
        const cycle: number[] = [];
        for (let j = 0; j < n; j++) {
          const which = (i + round + j) % n;
          const r = await call(d.targets[which], 'GET', path, headers);
          if (r.status !== 200) throw new Error(`${d.targets[which].name} ${path}: ${r.status}`);
          cycle[which] = r.us;
        }
        cycle.forEach((us, j) => {
          roundTimes[j].push(us);
          added.get(d.targets[j])!.push(us - cycle[0]);
        });
      }
      d.targets.forEach((t, j) => times.get(t)!.push(roundTimes[j]));
    }
  }
  for (const d of deployments) {
    const directP50s = times.get(d.targets[0])!.map(median);
    for (const t of d.targets.slice(1)) {
      const p50s = times.get(t)!.map(median);
      const ratios = p50s.map((p, r) => p / directP50s[r]);
      const pairedUs = median(added.get(t)!);
      rows.push(
        `| ${d.label} | ${t.name} | GET ${path} | ${median(directP50s).toFixed(0)} µs | ${median(p50s).toFixed(0)} µs | ${median(ratios).toFixed(2)}x (rounds ${ratios.map((r) => r.toFixed(2)).join(', ')}) | +${pairedUs.toFixed(0)} µs = ${(1 + pairedUs / median(directP50s)).toFixed(2)}x |`,
      );
    }
  }
  if (values.cpu) {
    const cpu = new Map<Target, number[]>();
    for (const d of deployments) for (const t of d.targets) cpu.set(t, []);
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < deployments.length; k++) {
        const d = deployments[(k + round) % deployments.length];
        for (let j = 0; j < d.targets.length; j++) {
          const t = d.targets[(j + round) % d.targets.length];
          const before = processCpuNs([d.pid]);
          for (let i = 0; i < requests; i++) await call(t, 'GET', path, headers);
          cpu.get(t)!.push((processCpuNs([d.pid]) - before) / requests / 1000);
        }
      }
    }
    for (const d of deployments) {
      const direct = cpu.get(d.targets[0])!;
      for (const t of d.targets.slice(1)) {
        const extra = cpu.get(t)!.map((c, r) => c - direct[r]);
        cpuRows.push(
          `| ${d.label} | ${t.name} | GET ${path} | ${median(direct).toFixed(0)} µs | ${median(cpu.get(t)!).toFixed(0)} µs | +${median(extra).toFixed(0)} µs (rounds ${extra.map((x) => x.toFixed(0)).join(', ')}) |`,
        );
      }
    }
  }
}

process.stdout.write(`started ${startedAt} UTC; load average at start: ${loadAtStart}\n`);
process.stdout.write(
  `${rounds} rounds x ${requests} cycles per path, sequential, one keep-alive connection per target; baseline: the direct call in the same cycles\n`,
);
process.stdout.write(
  '| child | forwarder | call | direct p50 | forwarded p50 | forwarded/direct (median of rounds) | added (median of cycles) |\n|---|---|---|---|---|---|---|\n',
);
process.stdout.write(`${rows.join('\n')}\n`);
if (values.cpu) {
  process.stdout.write(`\nCPU time of the child per call (every thread but the worker child's), ${rounds} rounds x ${requests} calls\n`);
  process.stdout.write('| child | forwarder | call | direct | forwarded | added by the hop (median of rounds) |\n|---|---|---|---|---|---|\n');
  process.stdout.write(`${cpuRows.join('\n')}\n`);
}
process.stdout.write(`load average at end: ${loadAverage()}\n`);

for (const d of deployments) for (const t of d.targets) t.agent.destroy();
await stopInProcess?.();
await children.stopAll();
await db.drop();
await server.stop();
