/**
 * Start-up time and memory of each process role (issue 32), run from the TypeScript sources through the
 * tsx loader (`node --import tsx scripts/svc.ts`, how the server ran before the build) and from the
 * compiled build (`node dist/scripts/svc.js`, built first by `npm run build`), alternating in rounds.
 *
 *   node --import tsx bench/processFootprint.ts [--rounds 3 --batches 40]
 *
 * Per role and form: start-up (spawn to the role's ready line: `listening` for api and serve, `worker
 * started` for worker, exit for migrate), idle RSS (3 s after ready) and loaded RSS (after `--batches`
 * ingest batches of 500 records through the platform API, 4 in flight, and for the job runner once their
 * ingest__process jobs are done). RSS is the process tree's: the role's process, serve's job-runner
 * child, and tsx's esbuild service where tsx started one. Results: docs/benchmarks.md.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createTestDatabase, type TestDatabase } from '../fixtures/database.ts';
import { syntheticRecords } from '../fixtures/syntheticIssues.ts';
import { logLines, projectRoot, svcEnv } from '../fixtures/svcProcess.ts';
import { createPool } from '../lib/db.ts';
import { intFlag, median } from './measure.ts';
import { rssOf } from './processTreeMemory.ts';

const { values: args } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, batches: { type: 'string', default: '40' } } });
const ROUNDS = intFlag('rounds', args.rounds);
const BATCHES = intFlag('batches', args.batches);

const forms = {
  'tsx (sources)': ['--import', 'tsx', path.join(projectRoot, 'scripts/svc.ts')],
  'build (dist/)': [path.join(projectRoot, 'dist/scripts/svc.js')],
} as const;
type Form = keyof typeof forms;
const roles = ['migrate', 'api', 'worker', 'serve'] as const;
type Role = (typeof roles)[number];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);

/** Every descendant of `pid` (serve's runner, tsx's esbuild service, export children). */
function descendants(pid: number): number[] {
  const out: number[] = [];
  const children = (p: number) =>
    spawnSync('sh', ['-c', `cat /proc/${p}/task/*/children 2>/dev/null`], { encoding: 'utf8' })
      .stdout.split(/\s+/)
      .filter(Boolean)
      .map(Number);
  for (const child of children(pid)) out.push(child, ...descendants(child));
  return out;
}

async function treeRss(pid: number): Promise<number> {
  let total = 0;
  for (const p of [pid, ...descendants(pid)]) total += await rssOf(p).catch(() => 0);
  return total;
}

function start(form: Form, role: Role, env: Record<string, string>) {
  const child = spawn(process.execPath, [...forms[form], role], { cwd: projectRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '' };
  child.stdout!.on('data', (d) => (out.stdout += d));
  child.stderr!.on('data', (d) => (out.stderr += d));
  return { child, out, lines: () => logLines(out.stdout) };
}

async function until<T>(what: string, child: ChildProcess, out: { stderr: string }, probe: () => T | undefined, timeoutMs = 180_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (child.exitCode !== null) throw new Error(`${what}: exited ${child.exitCode}\n${out.stderr}`);
    if (Date.now() > deadline) throw new Error(`${what}: timed out`);
    await sleep(5);
  }
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function post(base: string, route: string, body: unknown, token?: string) {
  const res = await fetch(base + route, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID(), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${route}: ${res.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

async function ingestToken(base: string, workspaceId: string): Promise<string> {
  const owner = (await post(base, '/v1/auth/exchange', { subject_token: 'demo', workspace_id: workspaceId })).access_token as string;
  const account = await post(base, '/v1/service-accounts', { name: 'footprint', scopes: ['ingest:write'] }, owner);
  const expires = new Date(Date.now() + 3600_000).toISOString();
  return (await post(base, `/v1/service-accounts/${account.id as string}/tokens`, { name: 'footprint', expires_at: expires }, owner)).token as string;
}

/** `BATCHES` ingest batches through the platform API at `base`, 4 in flight. */
async function ingestLoad(base: string, workspaceId: string, round: number) {
  const token = await ingestToken(base, workspaceId);
  const options = { seed: 42 + round, tag: `footprint${round}`, now: new Date() };
  let next = 0;
  const sender = async () => {
    while (next < BATCHES) {
      const b = next++;
      await post(base, '/v1/ingest/batch', { records: syntheticRecords(options, b * 500, 500) }, token);
    }
  };
  await Promise.all(Array.from({ length: 4 }, sender));
}

async function jobsDone(db: TestDatabase) {
  const pool = createPool(db.url, { max: 1 });
  try {
    for (;;) {
      const { rows } = await pool.query<{ n: number }>(`select count(*)::int as n from job_runs where kind = 'ingest__process' and status <> 'succeeded'`);
      if (rows[0].n === 0) return;
      await sleep(200);
    }
  } finally {
    await pool.end();
  }
}

interface Sample {
  startupMs: number;
  idle: number;
  loaded: number;
}

async function measure(form: Form, role: Role, round: number): Promise<Sample> {
  const db = await createTestDatabase();
  const env = svcEnv({ DATABASE_URL: db.url, PLATFORM_PORT: '0', PRODUCT_PORT: '0', METRICS_PORT: '0', CONSOLE_PORT: '0', LOG_LEVEL: 'info' });
  const runs: Array<ReturnType<typeof start>> = [];
  try {
    const started = performance.now();
    const run = start(form, role, env);
    runs.push(run);
    if (role === 'migrate') {
      await new Promise((resolve) => run.child.once('exit', resolve));
      if (run.child.exitCode !== 0) throw new Error(`migrate: ${run.out.stderr}`);
      return { startupMs: performance.now() - started, idle: Number.NaN, loaded: Number.NaN };
    }
    const readyLine = role === 'worker' ? 'worker started' : 'listening';
    const ready = await until(role, run.child, run.out, () => run.lines().find((l) => l.msg === readyLine));
    const startupMs = performance.now() - started;
    if (role === 'serve') await until('runner', run.child, run.out, () => run.lines().find((l) => l.msg === 'worker process started'));
    await sleep(3000);
    const idle = await treeRss(run.child.pid!);
    const workspaceId = await demoWorkspace(db);
    if (role === 'worker') {
      // The load comes through an API process of the same form; the worker runs its jobs.
      const api = start(form, 'api', env);
      runs.push(api);
      const listening = await until('api', api.child, api.out, () => api.lines().find((l) => l.msg === 'listening'));
      await ingestLoad(listening.platform as string, workspaceId, round);
    } else {
      await ingestLoad(ready.platform as string, workspaceId, round);
    }
    if (role !== 'api') await jobsDone(db);
    const loaded = await treeRss(run.child.pid!);
    return { startupMs, idle, loaded };
  } finally {
    for (const run of runs.reverse()) await stop(run.child);
    await db.drop();
  }
}

async function demoWorkspace(db: TestDatabase): Promise<string> {
  const pool = createPool(db.url, { max: 1 });
  try {
    return (await pool.query<{ id: string }>(`select id from workspaces order by created_at limit 1`)).rows[0].id;
  } finally {
    await pool.end();
  }
}

const built = spawnSync(process.execPath, [path.join(projectRoot, 'scripts/build.mjs')], { encoding: 'utf8' });
if (built.status !== 0) throw new Error(`build failed: ${built.stderr}`);
const samples = new Map<string, Sample[]>();
for (let round = 0; round < ROUNDS; round++) {
  const order = (round % 2 === 0 ? Object.keys(forms) : Object.keys(forms).reverse()) as Form[];
  for (const role of roles) {
    for (const form of order) {
      const sample = await measure(form, role, round);
      console.log(`round ${round + 1} ${role} ${form}: start-up ${sample.startupMs.toFixed(0)} ms, idle ${mb(sample.idle)} MB, loaded ${mb(sample.loaded)} MB`);
      const key = `${role}\0${form}`;
      samples.set(key, [...(samples.get(key) ?? []), sample]);
    }
  }
}
const range = (values: number[], f: (n: number) => string) => `${f(median(values))} (${f(Math.min(...values))}-${f(Math.max(...values))})`;
console.log(
  `\n${ROUNDS} rounds, ${BATCHES} ingest batches of 500 for the loaded figures; medians (min-max); load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
);
console.log('| role | form | start-up ms | idle RSS MB | loaded RSS MB |');
console.log('| --- | --- | ---: | ---: | ---: |');
for (const role of roles) {
  for (const form of Object.keys(forms) as Form[]) {
    const s = samples.get(`${role}\0${form}`)!;
    const ms = (n: number) => n.toFixed(0);
    const rss = (values: number[]) => (values.some(Number.isNaN) ? '–' : range(values, mb));
    console.log(
      `| ${role} | ${form} | ${range(
        s.map((x) => x.startupMs),
        ms,
      )} | ${rss(s.map((x) => x.idle))} | ${rss(s.map((x) => x.loaded))} |`,
    );
  }
}
