/**
 * Composition of a running svc process: database (embedded when DATABASE_URL is unset), migrations,
 * the two HTTP surfaces, the metrics listener and the worker, in the combinations the CLI commands
 * ask for, and their orderly shutdown in reverse.
 */
import { randomBytes } from 'node:crypto';
import type { Config } from '../lib/config.ts';
import { setPasswordHashCost } from '../lib/passwords.ts';
import { systemClock, type AppContext, type Clock } from '../lib/context.ts';
import { loadSecrets } from '../usecases/loadSecrets.ts';
import { createPool, endPool, poolTimeouts, usePreparedStatements, type Pool } from '../lib/db.ts';
import { ReadReplica } from '../lib/readReplica.ts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../lib/embeddedPostgres.ts';
import { createLogger, type Logger } from '../lib/logger.ts';
import { registerQueueDepthReader } from '../lib/metrics.ts';
import { migrate } from '../sql/migrate.ts';
import { activeJobCounts } from '../sql/jobRuns.ts';
import { seedDevelopmentData } from '../sql/seed.ts';
import { listen, type RunningServer } from '../api/http/server.ts';
import { startMetricsServer } from '../api/http/metricsServer.ts';
import { MemoryRateLimitStore, PostgresRateLimitStore } from '../api/http/rateLimit.ts';
import { createPlatformApp } from '../api/platform/app.ts';
import { createPlatformAuthenticator } from '../api/platform/auth/authenticator.ts';
import { platformRoutes } from '../api/platform/routes.ts';
import type { PlatformRoute } from '../api/platform/route.ts';
import type { ProductRoute } from '../api/product/route.ts';
import { allowlist, type AllowedOperation } from '../api/product/allowlist.ts';
import { createProductApp } from '../api/product/app.ts';
import { productRoutes } from '../api/product/routes.ts';
import { startRealtime } from '../api/platform/realtime/server.ts';
import { startWorker, type WorkerHandle } from '../jobs/worker.ts';
import { crontab, tasks } from '../jobs/tasks/index.ts';
import { startWorkerProcess, type WorkerProcess } from './workerProcess.ts';
import { startConsole, type RunningConsole } from '../console/server/start.ts';

export interface Roles {
  api: boolean;
  worker: boolean;
  /** The consoles and their proxy (`svc serve`); `svc console` alone needs no database: startConsoleProcess. */
  console?: boolean;
}

export interface RunningProcess {
  app: AppContext;
  platform?: RunningServer;
  product?: RunningServer;
  console?: RunningConsole;
  metrics?: RunningServer;
  worker?: WorkerHandle;
  /** `svc serve`: the job runner runs in this child process, off the HTTP event loop. */
  workerProcess?: WorkerProcess;
  stop(): Promise<void>;
}

/** Opens the database this process uses: DATABASE_URL, or the embedded server under DATA_DIR. */
export async function openDatabase(config: Config, logger: Logger): Promise<{ url: string; embedded?: EmbeddedDatabase }> {
  if (config.DATABASE_URL) return { url: config.DATABASE_URL };
  const embedded = await startEmbeddedPostgres(config.DATA_DIR, logger);
  return { url: embedded.url, embedded };
}

export async function createAppContext(config: Config, pool: Pool, logger: Logger, clock: Clock = systemClock): Promise<AppContext> {
  setPasswordHashCost(config.PASSWORD_SCRYPT_LOG_N);
  return { config, pool, logger, clock, secrets: await loadSecrets(config, pool) };
}

/** Builds both HTTP apps for a context (also used by the test harness and the benchmark). */
export interface HttpAppOptions {
  validateResponses?: boolean;
  /** Additional routes (the test suite adds probes of the shared plumbing). */
  extraPlatformRoutes?: PlatformRoute[];
  extraProductRoutes?: ProductRoute[];
  extraAllowlist?: AllowedOperation[];
}

export function buildHttpApps(app: AppContext, options: HttpAppOptions = {}) {
  const rateLimitStore = app.config.RATE_LIMIT_STORE === 'postgres' ? new PostgresRateLimitStore(app.pool) : new MemoryRateLimitStore();
  const platform = createPlatformApp(app, {
    routes: [...platformRoutes, ...(options.extraPlatformRoutes ?? [])],
    authenticator: createPlatformAuthenticator(app),
    rateLimitStore,
    validateResponses: options.validateResponses,
  });
  const product = createProductApp(app, {
    routes: [...productRoutes, ...(options.extraProductRoutes ?? [])],
    allowlist: [...allowlist, ...(options.extraAllowlist ?? [])],
    validateResponses: options.validateResponses,
  });
  return { platform, product };
}

export async function startProcess(config: Config, roles: Roles): Promise<RunningProcess> {
  // The console and the product API of one process share a secret made for this start, so the
  // product API believes the client address the proxy forwards (and no one else's).
  if (roles.console && roles.api && !config.CONSOLE_PROXY_SECRET) config = { ...config, CONSOLE_PROXY_SECRET: randomBytes(32).toString('base64url') };
  const logger = createLogger(config.LOG_LEVEL, { service: 'svc', role: roles.api && roles.worker ? 'serve' : roles.api ? 'api' : 'worker' });
  const database = await openDatabase(config, logger);
  // DATABASE_URL may be a transaction-mode pooler (DATABASE_POOL_MODE); what needs a session of its own
  // (migrations' advisory lock, LISTEN, the job runner, export children) uses DATABASE_DIRECT_URL.
  const directUrl = config.DATABASE_DIRECT_URL ?? database.url;
  if (config.DATABASE_POOL_MODE === 'transaction') usePreparedStatements(false);
  const pool = createPool(database.url, { max: 10, applicationName: 'svc', timeouts: poolTimeouts(config), mode: config.DATABASE_POOL_MODE });
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch((err) => logger.error('shutdown step failed', { err }));
  };
  stops.push(async () => database.embedded?.stop());
  stops.push(() => endPool(pool));
  try {
    await withDirectPool(directUrl, pool, (direct) => migrate(direct, logger));
    if (config.AUTH_PROVIDER === 'none' && config.NODE_ENV !== 'production') await seedDevelopmentData(pool, logger);
    const app = await createAppContext(config, pool, logger);
    app.directDatabaseUrl = directUrl;
    if (roles.api && config.DATABASE_REPLICA_URL) {
      const replicaPool = createPool(config.DATABASE_REPLICA_URL, { max: 10, applicationName: 'svc-replica', timeouts: poolTimeouts(config) });
      app.replica = new ReadReplica(replicaPool, pool, logger);
      app.replica.start();
      stops.push(() => app.replica!.stop());
    }
    const running: RunningProcess = { app, stop: stopAll };

    const unregisterDepth = registerQueueDepthReader(() => activeJobCounts(pool));
    stops.push(async () => void unregisterDepth());
    running.metrics = await listenOrExplain(() => startMetricsServer(config.METRICS_PORT, config.METRICS_HOST), 'METRICS_PORT', config.METRICS_PORT);
    stops.push(() => running.metrics!.close());

    if (roles.worker && roles.api) {
      running.workerProcess = startWorkerProcess(directUrl, logger, config.SHUTDOWN_GRACE_MS);
      stops.push(() => running.workerProcess!.stop());
    } else if (roles.worker) {
      const workerPool = createPool(directUrl, { max: config.WORKER_CONCURRENCY + 2, applicationName: 'svc-worker', timeouts: poolTimeouts(config) });
      stops.push(() => endPool(workerPool));
      running.worker = await startWorker(app, { tasks, crontab, concurrency: config.WORKER_CONCURRENCY, pool: workerPool });
      stops.push(() => running.worker!.stop());
    }
    if (roles.api) {
      const apps = buildHttpApps(app);
      running.platform = await listenOrExplain(() => listen(apps.platform, config.PLATFORM_PORT, config.HOST), 'PLATFORM_PORT', config.PLATFORM_PORT);
      stops.push(() => running.platform!.close());
      const realtime = await startRealtime(app, running.platform.server);
      stops.push(() => realtime.close());
      running.product = await listenOrExplain(() => listen(apps.product, config.PRODUCT_PORT, config.HOST), 'PRODUCT_PORT', config.PRODUCT_PORT);
      stops.push(() => running.product!.close());
      logger.info('listening', { platform: running.platform.url, product: running.product.url, metrics: running.metrics.url });
    }
    if (roles.console) {
      running.console = await listenOrExplain(() => startConsole(config, logger), 'CONSOLE_PORT', config.CONSOLE_PORT);
      stops.push(() => running.console!.close());
      logger.info('console listening', { console: running.console.url, product: config.PRODUCT_URL });
    }
    return running;
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/** `svc console`: the consoles and their proxy only; no database (the product API is reached over HTTP). */
export async function startConsoleProcess(config: Config): Promise<{ logger: Logger; console: RunningConsole; stop(): Promise<void> }> {
  const logger = createLogger(config.LOG_LEVEL, { service: 'svc', role: 'console' });
  const running = await listenOrExplain(() => startConsole(config, logger), 'CONSOLE_PORT', config.CONSOLE_PORT);
  logger.info('console listening', { console: running.url, product: config.PRODUCT_URL });
  return { logger, console: running, stop: () => running.close() };
}

/** Runs `fn` on a short-lived pool of `directUrl`, or on `pool` itself when that is already direct. */
async function withDirectPool<T>(directUrl: string, pool: Pool, fn: (direct: Pool) => Promise<T>): Promise<T> {
  if (directUrl === pool.options.connectionString) return fn(pool);
  const direct = createPool(directUrl, { max: 2, applicationName: 'svc-migrate' });
  try {
    return await fn(direct);
  } finally {
    await direct.end();
  }
}

async function listenOrExplain<T>(start: () => Promise<T>, variable: string, port: number): Promise<T> {
  try {
    return await start();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new Error(`${variable}=${port} is already in use; set ${variable} to a free port`, { cause: err });
    }
    throw err;
  }
}
