/**
 * `svc serve` runs its job runner in a child process (scripts/workerChild.ts): engine stages,
 * report rendering and every other job's CPU stay off the event loop that serves HTTP. The child
 * is restarted if it dies (the jobs it held are released by the next one's heartbeat sweep), its
 * metrics are merged into this process's /metrics, and it is stopped after the HTTP servers.
 *
 * On Linux the child runs on every CPU this process may use but the first (`taskset`, before the
 * child's runtime starts, so each of its threads inherits it): an engine run cannot take the core
 * HTTP needs, and the HTTP process itself stays free to use all of them (docs/decisions.md).
 */
import { execFile, fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { accessSync, constants, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MetricObjectWithValues, MetricValue } from 'prom-client';
import type { Pool } from '../lib/db.ts';
import type { Logger } from '../lib/logger.ts';
import { registerMetricsSource } from '../lib/metrics.ts';
import { loaderArgs, moduleUrl } from '../lib/modulePath.ts';

type Metrics = MetricObjectWithValues<MetricValue<string>>[];
export type ParentMessage = { type: 'stop' } | { type: 'metrics'; id: string };
type ChildMessage = { type: 'ready'; poolId: string } | { type: 'metrics'; id: string; metrics: Metrics };

export interface WorkerProcess {
  pid(): number | undefined;
  stop(): Promise<void>;
}

const CHILD = fileURLToPath(moduleUrl('./workerChild', import.meta.url));
const RESTART_DELAY_MS = 1000;
/** Beyond SHUTDOWN_GRACE_MS: the worker's own bound on a stuck job (3 s) and its closing steps. */
const STOP_SLACK_MS = 10_000;

/** CPU numbers of a `Cpus_allowed_list` value ("0-3,6"), in order. */
export function parseCpuList(list: string): number[] {
  const cpus: number[] = [];
  for (const part of list.trim().split(',')) {
    const [from, to = from] = part.split('-').map(Number);
    if (!Number.isInteger(from) || !Number.isInteger(to)) return [];
    for (let cpu = from; cpu <= to; cpu++) cpus.push(cpu);
  }
  return cpus;
}

/** The CPUs a thread may run on, from its status file (Linux); empty where it cannot be read. */
export function allowedCpus(statusFile = '/proc/self/status'): number[] {
  try {
    return parseCpuList(/^Cpus_allowed_list:\s*(\S+)$/m.exec(readFileSync(statusFile, 'utf8'))?.[1] ?? '');
  } catch {
    return [];
  }
}

/** The taskset program on PATH, or null. */
function findTaskset(): string | null {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(path.delimiter)) {
    const taskset = path.join(dir, 'taskset');
    try {
      accessSync(taskset, constants.X_OK);
      return taskset;
    } catch {
      // not in this directory
    }
  }
  return null;
}

/**
 * The CPUs for the worker process (a `taskset -c` list) and the taskset to apply them: every CPU this
 * process may use but the first, or null where that is not possible (one CPU, not Linux, no taskset).
 */
function workerCpus(): { taskset: string; cpus: string } | null {
  if (process.platform !== 'linux') return null;
  const allowed = allowedCpus();
  const taskset = allowed.length >= 2 ? findTaskset() : null;
  return taskset ? { taskset, cpus: allowed.slice(1).join(',') } : null;
}

/**
 * In the confined runner: each new connection's Postgres backend, when it runs on this machine, is
 * confined to the runner's CPUs as well. An engine run's writes are done by its backend (75-90% of a
 * core through the apply, docs/benchmarks.md), which would otherwise take the core kept for HTTP; the
 * API's own backends were measured waiting on nothing in the database during a run (no lock, LWLock or
 * I/O waits above idle), only for a core. A backend elsewhere (another host, another PID namespace:
 * its pid is not a `postgres` process here) or one this user may not change is left as it is.
 */
export function confineDatabaseBackends(pool: Pool, logger: Logger): void {
  if (process.platform !== 'linux') return;
  const own = allowedCpus();
  const taskset = findTaskset();
  if (!taskset || own.length === 0 || own.length >= cpus().length) return; // not confined: nothing to follow
  const list = own.join(',');
  pool.on('connect', (client) => {
    // The backend's pid, from the connection's start-up (BackendKeyData): no query on the new client.
    const pid = (client as unknown as { processID: number | null }).processID;
    let comm = '';
    try {
      comm = pid ? readFileSync(`/proc/${pid}/comm`, 'utf8').trim() : '';
    } catch {
      return; // no such process here: the database is elsewhere
    }
    if (comm !== 'postgres') return;
    execFile(taskset, ['-p', '-c', list, String(pid)], (err) => {
      if (err) logger.debug('could not confine a database backend', { pid, err: err.message });
    });
  });
}

export function startWorkerProcess(databaseUrl: string, logger: Logger, shutdownGraceMs: number): WorkerProcess {
  const log = logger.child({ component: 'worker-process' });
  let child: ChildProcess | undefined;
  let stopping = false;
  const pendingMetrics = new Map<string, (metrics: Metrics) => void>();
  const confined = workerCpus();
  const nodeArgs = loaderArgs(import.meta.url);

  // Not awaited: HTTP does not wait for the runner (a job waits in the queue until it is up).
  const spawnChild = () => {
    // taskset execs node in its own process: the pid, the IPC channel and signals are node's.
    const proc = fork(CHILD, [], {
      ...(confined ? { execPath: confined.taskset, execArgv: ['-c', confined.cpus, process.execPath, ...nodeArgs] } : { execArgv: nodeArgs }),
      // The database this process opened (the embedded one when DATABASE_URL is unset).
      env: { ...process.env, DATABASE_URL: databaseUrl },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child = proc;
    proc.on('message', (message: ChildMessage) => {
      if (message.type === 'ready') log.info('worker process started', { pid: proc.pid, pool_id: message.poolId, cpus: confined?.cpus ?? 'all' });
      if (message.type === 'metrics') pendingMetrics.get(message.id)?.(message.metrics);
    });
    proc.once('exit', (code, signal) => {
      if (stopping) return;
      log.error('worker process died; restarting it', { pid: proc.pid, code, signal });
      setTimeout(() => !stopping && spawnChild(), RESTART_DELAY_MS).unref();
    });
  };

  spawnChild();
  const unregister = registerMetricsSource(async () => {
    if (!child?.connected) return [];
    const id = randomUUID();
    return new Promise<Metrics>((resolve) => {
      const timer = setTimeout(() => done([]), 2000);
      const done = (metrics: Metrics) => {
        clearTimeout(timer);
        pendingMetrics.delete(id);
        resolve(metrics);
      };
      pendingMetrics.set(id, done);
      child!.send({ type: 'metrics', id } satisfies ParentMessage);
    });
  });

  return {
    pid: () => child?.pid,
    async stop() {
      stopping = true;
      unregister();
      const proc = child;
      if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
      const timer = setTimeout(() => proc.kill('SIGKILL'), shutdownGraceMs + STOP_SLACK_MS);
      if (proc.connected) proc.send({ type: 'stop' } satisfies ParentMessage);
      await exited;
      clearTimeout(timer);
      log.info('worker process stopped', { pid: proc.pid });
    },
  };
}
