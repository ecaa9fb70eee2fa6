import http from 'node:http';
import net from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { listen } from '../../api/http/server.ts';
import { defineTask, enqueueJob } from '../../jobs/runtime.ts';
import { startWorker } from '../../jobs/worker.ts';
import { createPool } from '../../lib/db.ts';
import type { JobRun } from '../../sql/jobRuns.ts';
import { eventually, startTestApp } from '../helpers/app.ts';
import { deferred } from '../helpers/async.ts';
import { createTestDatabase } from '../../fixtures/database.ts';
import { request } from '../helpers/http.ts';
import { logLines, spawnSvc, svcEnv } from '../../fixtures/svcProcess.ts';
import { allowedCpus, parseCpuList } from '../../scripts/workerProcess.ts';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';

/** A GET on a fresh connection (no keep-alive pool), resolving with status and body. */
function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      })
      .on('error', reject);
  });
}

/** Resolves with the error code of a TCP connection attempt, or 'connected'. */
function connectOutcome(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

test('closing a server lets the in-flight request finish and refuses new connections', async () => {
  const entered = deferred();
  const server = await listen(
    (_req, res) => {
      entered.resolve();
      setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('finished'), 500);
    },
    0,
    '127.0.0.1',
  );
  const inFlight = get(server.url + '/slow');
  await entered.promise;

  const closed = server.close();
  assert.is(await connectOutcome(server.port), 'ECONNREFUSED', 'no new connections once closing');
  const res = await inFlight;
  assert.is(res.status, 200);
  assert.is(res.body, 'finished');
  await closed;
  assert.is(server.server.listening, false);
});

test('stopping a worker lets the running job finish', async () => {
  const started = deferred<string>();
  const slowTask = defineTask({
    name: 'test__slow',
    payload: z.object({}),
    async run(_payload, job) {
      started.resolve(job.runId);
      await new Promise((r) => setTimeout(r, 1000));
      return { finished: true, aborted: job.signal.aborted };
    },
  });
  const t = await startTestApp({ http: false });
  const workerPool = createPool(t.db.url, { max: 3 });
  try {
    const handle = await startWorker(t.app, { tasks: [slowTask], concurrency: 1, pool: workerPool, pollInterval: 100 });
    const { job } = await enqueueJob(t.app.pool, slowTask, {});
    assert.is(await started.promise, job.id);
    // A busy job is marked running shortly after it starts (jobs/runtime.ts, CLAIM_AFTER_MS).
    await eventually(
      async () => {
        const { rows } = await t.app.pool.query<JobRun>('select status from job_runs where id = $1', [job.id]);
        return rows[0].status === 'running' ? true : undefined;
      },
      900,
      'the job to be marked running',
    );

    await handle.stop();
    // Read right after stop() resolved: the job was drained, not abandoned or aborted.
    const { rows } = await t.app.pool.query<JobRun>('select * from job_runs where id = $1', [job.id]);
    assert.is(rows[0].status, 'succeeded');
    assert.equal(rows[0].result, { finished: true, aborted: false });
    const left = await t.app.pool.query('select 1 from graphile_worker.jobs where id = $1', [job.worker_job_id]);
    assert.is(left.rowCount, 0, 'graphile-worker job completed, not left locked');
  } finally {
    await workerPool.end();
    await t.close();
  }
});

/** Starts a worker with one task, enqueues it, and stops the worker while the task is running. */
async function stopWhileRunning(run: (signal: AbortSignal) => Promise<unknown>) {
  const started = deferred();
  const task = defineTask({
    name: 'test__long',
    payload: z.object({}),
    maxAttempts: 1,
    async run(_payload, job) {
      started.resolve();
      return run(job.signal);
    },
  });
  const t = await startTestApp({ http: false });
  const workerPool = createPool(t.db.url, { max: 3 });
  try {
    const handle = await startWorker(t.app, { tasks: [task], concurrency: 1, pool: workerPool, pollInterval: 100, shutdownGraceMs: 300 });
    const { job } = await enqueueJob(t.app.pool, task, {});
    await started.promise;
    await handle.stop();
    const run = (await t.app.pool.query('select status, attempts, interruptions, error_detail from job_runs where id = $1', [job.id])).rows[0];
    const queued = (await t.app.pool.query('select locked_by, attempts from graphile_worker._private_jobs where id = $1', [job.worker_job_id])).rows[0];
    return { run, queued };
  } finally {
    await workerPool.end();
    await t.close();
  }
}

test('stopping a worker releases a job that stops on its abort signal: queued, unlocked, its attempt given back', async () => {
  const { run, queued } = await stopWhileRunning(
    (signal) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true })),
  );
  // maxAttempts 1: had the attempt counted, the run would have failed for good.
  assert.is(run.status, 'queued');
  assert.is(run.interruptions.length, 1);
  assert.is(run.interruptions[0].reason, 'shut down');
  assert.match(run.error_detail, 'interrupted');
  assert.is(queued.locked_by, null);
  assert.is(queued.attempts, 0);
});

test('stopping a worker releases a job that ignores its abort signal once the grace period is over', async () => {
  const { run, queued } = await stopWhileRunning(() => new Promise(() => {}));
  assert.is(run.status, 'queued');
  assert.is(run.interruptions[0].reason, 'shut down');
  assert.is(queued.locked_by, null);
  assert.is(queued.attempts, 0);
});

test('svc serve logs JSON with trace ids and stops cleanly on SIGTERM', async () => {
  const db = await createTestDatabase();
  const child = spawnSvc(
    ['serve'],
    svcEnv({ DATABASE_URL: db.url, PLATFORM_PORT: '0', PRODUCT_PORT: '0', METRICS_PORT: '0', LOG_LEVEL: 'info', NODE_ENV: 'test' }),
  );
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  let exitedEarly = false;
  void exited.then(() => (exitedEarly = true));
  const lines = () => logLines(stdout);
  try {
    const listening = await eventually(
      async () => {
        if (exitedEarly) throw new Error(`svc serve exited before listening:\n${stderr}\n${stdout}`);
        return stdout.includes('"listening"') ? lines().find((l) => l.msg === 'listening') : undefined;
      },
      40_000,
      "the 'listening' log line",
    );
    assert.type(listening.product, 'string');
    assert.type(listening.platform, 'string');
    assert.type(listening.metrics, 'string');

    const ready = await request(listening.product as string, 'GET', '/health/ready');
    assert.is(ready.status, 200, ready.text);
    const requestId = ready.headers.get('x-request-id');
    assert.ok(requestId);
    const scrape = await request(listening.metrics as string, 'GET', '/metrics');
    assert.is(scrape.status, 200);
    assert.match(scrape.text, 'svc_http_request_duration_seconds');

    // The worker process runs on every CPU but the first (Linux with taskset), each of its threads. The
    // expectation is worked out here, not by asking workerCpus(), so a runner left unconfined fails.
    const started = await eventually(async () => lines().find((l) => l.msg === 'worker process started'), 30_000, 'the worker process');
    const ours = allowedCpus();
    const hasTaskset = spawnSync('sh', ['-c', 'command -v taskset']).status === 0;
    const expected = process.platform === 'linux' && ours.length >= 2 && hasTaskset ? ours.slice(1) : null;
    assert.is(started.cpus, expected ? expected.join(',') : 'all');
    if (expected) {
      for (const tid of readdirSync(`/proc/${started.pid}/task`)) {
        const status = `/proc/${started.pid}/task/${tid}/status`;
        const cpus = allowedCpus(status);
        if (!cpus.length && !existsSync(status)) continue; // a thread that ended since the listing
        assert.equal(cpus, expected, `thread ${tid}`);
      }
      // And so do the runner's Postgres backends, when the database runs on this machine: an engine
      // run's writes are its backend's CPU. The API's backends keep every CPU.
      const backends = async (app: string) => {
        const admin = new pg.Client({ connectionString: db.url });
        await admin.connect();
        try {
          const { rows } = await admin.query<{ pid: number }>('select pid from pg_stat_activity where datname = current_database() and application_name = $1', [
            app,
          ]);
          return rows.map((r) => r.pid).filter((pid) => existsSync(`/proc/${pid}/comm`) && readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres');
        } finally {
          await admin.end();
        }
      };
      await eventually(
        async () => {
          const pids = await backends('svc-worker');
          return pids.length > 0 && pids.every((pid) => allowedCpus(`/proc/${pid}/status`).join(',') === expected.join(',')) ? true : undefined;
        },
        10_000,
        "the runner's backends confined to its CPUs",
      );
      for (const pid of await backends('svc')) assert.equal(allowedCpus(`/proc/${pid}/status`), ours, `API backend ${pid}`);
    }

    const requestLine = await eventually(async () => lines().find((l) => l.msg === 'request' && l.path === '/health/ready'), 5_000, 'the access log line');
    assert.is(requestLine.trace_id, requestId);
    assert.is(requestLine.status, 200);
    assert.is(requestLine.surface, 'product');

    child.kill('SIGTERM');
    const { code, signal } = await exited;
    assert.is(signal, null);
    assert.is(code, 0, stderr);
    assert.is(stderr, '', 'nothing on stderr');

    const all = lines(); // every line must parse as JSON
    assert.ok(all.length > 3);
    for (const line of all) {
      assert.type(line.msg, 'string');
      assert.ok(['debug', 'info', 'warn', 'error'].includes(line.level as string), JSON.stringify(line));
      assert.ok(!Number.isNaN(Date.parse(line.time as string)), JSON.stringify(line));
    }
    const shuttingDown = all.find((l) => l.msg === 'shutting down');
    assert.is(shuttingDown?.signal, 'SIGTERM');
    assert.is(all[all.length - 1].msg, 'stopped');
    assert.not.ok(
      all.some((l) => l.level === 'error'),
      'no errors logged',
    );
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await db.drop();
  }
});

test('a CPU list is read as the kernel writes it', () => {
  assert.equal(parseCpuList('0-3,6'), [0, 1, 2, 3, 6]);
  assert.equal(parseCpuList('1'), [1]);
  assert.equal(parseCpuList('2,4-5\n'), [2, 4, 5]);
  assert.equal(parseCpuList('x'), []);
});

test.run();
