/**
 * `svc serve` runs its job runner in a child process (scripts/workerChild.ts): engine stages,
 * report rendering and every other job's CPU stay off the event loop that serves HTTP. The child
 * is restarted if it dies (the jobs it held are released by the next one's heartbeat sweep), its
 * metrics are merged into this process's /metrics, and it is stopped after the HTTP servers.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { MetricObjectWithValues, MetricValue } from 'prom-client';
import type { Logger } from '../lib/logger.ts';
import { registerMetricsSource } from '../lib/metrics.ts';

type Metrics = MetricObjectWithValues<MetricValue<string>>[];
export type ParentMessage = { type: 'stop' } | { type: 'metrics'; id: string };
type ChildMessage = { type: 'ready'; poolId: string } | { type: 'metrics'; id: string; metrics: Metrics };

export interface WorkerProcess {
  pid(): number | undefined;
  stop(): Promise<void>;
}

const CHILD = fileURLToPath(new URL('./workerChild.ts', import.meta.url));
const RESTART_DELAY_MS = 1000;
const STOP_TIMEOUT_MS = 35_000;

export function startWorkerProcess(databaseUrl: string, logger: Logger): WorkerProcess {
  const log = logger.child({ component: 'worker-process' });
  let child: ChildProcess | undefined;
  let stopping = false;
  const pendingMetrics = new Map<string, (metrics: Metrics) => void>();

  // Not awaited: HTTP does not wait for the runner (a job waits in the queue until it is up).
  const spawnChild = () => {
    const proc = fork(CHILD, [], {
      execArgv: ['--import', import.meta.resolve('tsx')],
      // The database this process opened (the embedded one when DATABASE_URL is unset).
      env: { ...process.env, DATABASE_URL: databaseUrl },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child = proc;
    proc.on('message', (message: ChildMessage) => {
      if (message.type === 'ready') log.info('worker process started', { pid: proc.pid, pool_id: message.poolId });
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
      const timer = setTimeout(() => proc.kill('SIGKILL'), STOP_TIMEOUT_MS);
      if (proc.connected) proc.send({ type: 'stop' } satisfies ParentMessage);
      await exited;
      clearTimeout(timer);
      log.info('worker process stopped', { pid: proc.pid });
    },
  };
}
