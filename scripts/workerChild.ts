/**
 * The job runner of `svc serve`, in its own process (scripts/workerProcess.ts forks it): no job's
 * CPU (an engine run, a report) can hold the event loop that serves HTTP. Settings come from the
 * environment like any svc process; the parent says when to stop and asks for metrics over IPC.
 */
import { loadConfig } from '../lib/config.ts';
import { createPool, endPool, poolTimeouts, untilDatabaseAnswers } from '../lib/db.ts';
import { createLogger } from '../lib/logger.ts';
import { registry } from '../lib/metrics.ts';
import { startWorker } from '../jobs/worker.ts';
import { crontab, tasks } from '../jobs/tasks/index.ts';
import { createAppContext } from './processes.ts';
import { confineDatabaseBackends, type ParentMessage } from './workerProcess.ts';

// Listening from the start: a stop can arrive while the runner is still starting.
let stopRequested = false;
let stopping: Promise<void> | undefined;
let stop = async (): Promise<void> => {
  stopRequested = true;
};
// A terminal's Ctrl-C reaches the whole process group: the parent decides when this process stops
// (after its HTTP servers drained), and a parent that died disconnects the channel.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => {});
process.on('disconnect', () => void stop());
process.on('message', (message: ParentMessage) => {
  if (message.type === 'stop') void stop();
  if (message.type === 'metrics') {
    registry.getMetricsAsJSON().then((metrics) => process.send?.({ type: 'metrics', id: message.id, metrics }));
  }
});

const config = loadConfig();
const logger = createLogger(config.LOG_LEVEL, { service: 'svc', role: 'worker' });
const timeouts = poolTimeouts(config);
const databaseUrl = config.DATABASE_DIRECT_URL ?? config.DATABASE_URL!;
const pool = createPool(databaseUrl, { max: 4, applicationName: 'svc-worker', timeouts });
const workerPool = createPool(databaseUrl, { max: config.WORKER_CONCURRENCY + 2, applicationName: 'svc-worker', timeouts });
// The runner's backends keep off the CPU this process was kept off (scripts/workerProcess.ts).
for (const p of [pool, workerPool]) confineDatabaseBackends(p, logger);
// The database may be down or still starting: wait for it (a stop meanwhile ends the wait).
const app = await untilDatabaseAnswers(
  'worker process start',
  () => createAppContext(config, pool, logger),
  logger,
  () => stopRequested,
);
const worker = await startWorker(app, { tasks, crontab, concurrency: config.WORKER_CONCURRENCY, pool: workerPool });

stop = () =>
  (stopping ??= (async () => {
    await worker.stop();
    await endPool(workerPool);
    await endPool(pool);
    // A task abandoned after the grace period (jobs/worker.ts) may still hold a socket open.
    process.exit(0);
  })());
if (stopRequested || !process.connected) await stop();
else process.send!({ type: 'ready', poolId: worker.poolId });
