/**
 * Ctrl-C in the terminal of `npm start`: one SIGINT to the whole process group (npm, svc, its worker
 * process; the embedded Postgres runs in a group of its own). The shutdown is orderly: no error
 * line, the running job released for retry (not left locked for the dead-worker sweep), nothing left
 * running; and after a restart the job runs again at once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { eventually } from '../helpers/app.ts';
import { request } from '../helpers/http.ts';
import { projectRoot, svcEnv } from '../../fixtures/svcProcess.ts';

/** An SMTP server that accepts connections and never greets: a mail job hangs on it. */
async function silentSmtp() {
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `smtp://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    connections: () => connections,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface Started {
  child: ChildProcess;
  output: () => string;
  lines: () => Array<Record<string, unknown>>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts a command in a process group of its own, as a terminal runs a foreground job. */
function startInGroup(command: string, args: string[], env: Record<string, string>): Started {
  const child = spawn(command, args, { cwd: projectRoot, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const lines = () =>
    out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { child, output: () => out, lines, exited };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('one SIGINT to the process group of npm start stops everything in order and releases the running job', async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-shutdown-'));
  const smtp = await silentSmtp();
  const env = svcEnv({
    DATA_DIR: dataDir,
    PLATFORM_PORT: '0',
    PRODUCT_PORT: '0',
    METRICS_PORT: '0',
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    SMTP_URL: smtp.url,
    SHUTDOWN_GRACE_MS: '1000',
    // A job left locked would wait this long for the dead-worker sweep: far longer than this test.
    WORKER_DEAD_AFTER_MS: '600000',
  });
  let started: Started | undefined;
  let pgClient: pg.Client | undefined;
  try {
    started = startInGroup('npm', ['start', '--silent'], env);
    const first = started;
    const listening = await eventually(
      async () => {
        if (first.child.exitCode !== null) throw new Error(`npm start exited:\n${first.output()}`);
        return first.lines().find((l) => l.msg === 'listening');
      },
      120_000,
      "the 'listening' line",
    );
    await eventually(async () => first.lines().find((l) => l.msg === 'worker process started'), 60_000, 'the worker process');
    const postgres = first.lines().find((l) => l.msg === 'embedded postgres started')!;
    const databaseUrl = `postgres://postgres:svc-embedded@127.0.0.1:${postgres.port}/postgres`;

    const exchange = await request(listening.platform as string, 'POST', '/v1/auth/exchange', { body: { subject_token: 'dev' } });
    assert.is(exchange.status, 200, exchange.text);
    const token = (exchange.body as { access_token: string }).access_token;
    const invite = await request(listening.platform as string, 'POST', '/v1/invitations', {
      body: { email: 'new.member@example.com', role: 'member' },
      token,
    });
    assert.is(invite.status, 201, invite.text);
    await eventually(async () => (smtp.connections() > 0 ? true : undefined), 30_000, 'the mail job to reach the SMTP server');

    pgClient = new pg.Client({ connectionString: databaseUrl });
    await pgClient.connect();
    const job = await eventually(
      async () => (await pgClient!.query(`select id, worker_job_id, status from job_runs where kind = 'mail__send' and status = 'running'`)).rows[0],
      5_000,
      'the mail job to be running',
    );
    await pgClient.end();
    pgClient = undefined;

    process.kill(-first.child.pid!, 'SIGINT');
    // npm ends by the signal it forwarded once its child has exited; svc itself ends its log with 'stopped'.
    const { code, signal } = await first.exited;
    assert.ok(code === 0 || signal === 'SIGINT', `npm start ended with ${code ?? signal}:\n${first.output()}`);
    const lines = first.lines();
    assert.is(lines[lines.length - 1].msg, 'stopped');
    assert.equal(
      lines.filter((l) => l.level === 'error'),
      [],
      'no error-level line',
    );
    assert.not.match(first.output(), /\n\s+at |stack/, 'no stack trace');
    assert.is(lines.filter((l) => l.msg === 'shutting down').length, 1);
    const order = ['shutting down', 'worker process stopped', 'embedded postgres stopped', 'stopped'].map((m) => lines.findIndex((l) => l.msg === m));
    assert.ok(
      order.every((i, k) => i >= 0 && (k === 0 || i > order[k - 1])),
      `shutdown order: ${order}`,
    );
    assert.ok(lines.some((l) => l.msg === 'released the jobs that did not stop within the shutdown grace period'));
    // Nothing left running: not the process group, not the worker process, not the detached Postgres.
    await eventually(async () => (alive(-first.child.pid!) ? undefined : true), 5_000, 'the process group to be gone');
    assert.not.ok(alive(postgres.pid as number), 'embedded postgres stopped');

    // A restart runs the released job again at once: no dead-worker timeout to wait for.
    const connectionsBefore = smtp.connections();
    started = startInGroup(process.execPath, ['scripts/svc.js', 'serve'], env);
    const second = started;
    await eventually(
      async () => {
        if (second.child.exitCode !== null) throw new Error(`svc serve exited:\n${second.output()}`);
        return second.lines().find((l) => l.msg === 'listening');
      },
      60_000,
      "the 'listening' line after the restart",
    );
    const restartedPostgres = second.lines().find((l) => l.msg === 'embedded postgres started')!;
    await eventually(async () => (smtp.connections() > connectionsBefore ? true : undefined), 20_000, 'the released job to run again');
    pgClient = new pg.Client({ connectionString: `postgres://postgres:svc-embedded@127.0.0.1:${restartedPostgres.port}/postgres` });
    await pgClient.connect();
    const { rows } = await pgClient.query(
      `select r.status, r.interruptions, j.attempts from job_runs r join graphile_worker._private_jobs j on j.id = r.worker_job_id where r.id = $1`,
      [job.id],
    );
    assert.is(rows[0].interruptions.length, 1);
    assert.is(rows[0].interruptions[0].reason, 'shut down');
    assert.is(rows[0].attempts, 1, 'the interrupted attempt was given back');
    await pgClient.end();
    pgClient = undefined;
    process.kill(-second.child.pid!, 'SIGTERM');
    assert.is((await second.exited).code, 0, second.output());
    assert.equal(
      second.lines().filter((l) => l.level === 'error'),
      [],
    );
  } finally {
    await pgClient?.end().catch(() => {});
    if (started && started.child.exitCode === null) {
      try {
        process.kill(-started.child.pid!, 'SIGKILL');
      } catch {}
    }
    await smtp.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
