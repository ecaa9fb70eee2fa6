/**
 * Starts the real HTTP surfaces (and optionally a worker) on ephemeral ports over a fresh test
 * database. Every test file uses this; nothing is mocked.
 */
import { loadConfig, type Config } from '../../lib/config.ts';
import type { AppContext, Clock } from '../../lib/context.ts';
import { createPool } from '../../lib/db.ts';
import { createLogger, type LogLevel } from '../../lib/logger.ts';
import { seedDevelopmentData } from '../../sql/seed.ts';
import { listen, type RunningServer } from '../../api/http/server.ts';
import { buildHttpApps, createAppContext } from '../../scripts/processes.ts';
import { startWorker, type WorkerHandle } from '../../jobs/worker.ts';
import { tasks as productionTasks } from '../../jobs/tasks/index.ts';
import type { TaskDefinition } from '../../jobs/runtime.ts';
import type { PlatformRoute } from '../../api/platform/route.ts';
import type { ProductRoute } from '../../api/product/route.ts';
import type { AllowedOperation } from '../../api/product/allowlist.ts';
import { createTestDatabase, type TestDatabase } from '../../fixtures/database.ts';
import { client, type Client } from './http.ts';

export interface TestAppOptions {
  env?: Record<string, string>;
  clock?: Clock;
  /** Start a worker with the production tasks plus these. */
  worker?: boolean | { extraTasks?: TaskDefinition[]; concurrency?: number };
  /** Skip the HTTP servers (job-runtime tests). */
  http?: boolean;
  /** Extra routes mounted next to the real ones (probes of the shared plumbing). */
  extraPlatformRoutes?: PlatformRoute[];
  extraProductRoutes?: ProductRoute[];
  /** Operations added to the product allowlist for this app only. */
  extraAllowlist?: AllowedOperation[];
}

export interface TestApp {
  app: AppContext;
  config: Config;
  db: TestDatabase;
  platform: Client;
  product: Client;
  platformServer?: RunningServer;
  productServer?: RunningServer;
  worker?: WorkerHandle;
  /** The seeded demo owner's workspace (AUTH_PROVIDER=none). */
  demo: { workspaceId: string; userId: string };
  close(): Promise<void>;
}

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const db = await createTestDatabase();
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    LOG_LEVEL: (process.env.TEST_LOG_LEVEL as LogLevel | undefined) ?? 'silent',
    // Production hashes passwords at OWASP's N=2^17 (128 MB each); the suite's many logins use 2^14.
    PASSWORD_SCRYPT_LOG_N: '14',
    ...options.env,
  });
  const logger = createLogger(config.LOG_LEVEL, { test: true });
  const pool = createPool(db.url, { max: 10 });
  const demo = await seedDevelopmentData(pool, logger);
  const app = await createAppContext(config, pool, logger, options.clock);
  const closers: Array<() => Promise<void>> = [() => db.drop(), () => pool.end()];

  let platformServer: RunningServer | undefined;
  let productServer: RunningServer | undefined;
  if (options.http !== false) {
    const apps = buildHttpApps(app, {
      validateResponses: true,
      extraPlatformRoutes: options.extraPlatformRoutes,
      extraProductRoutes: options.extraProductRoutes,
      extraAllowlist: options.extraAllowlist,
    });
    platformServer = await listen(apps.platform, 0, '127.0.0.1');
    productServer = await listen(apps.product, 0, '127.0.0.1');
    closers.push(
      () => platformServer!.close(1000),
      () => productServer!.close(1000),
    );
  }
  let worker: WorkerHandle | undefined;
  if (options.worker) {
    const extra = typeof options.worker === 'object' ? options.worker : {};
    const workerPool = createPool(db.url, { max: (extra.concurrency ?? 2) + 2 });
    closers.push(() => workerPool.end());
    worker = await startWorker(app, {
      tasks: [...productionTasks, ...(extra.extraTasks ?? [])],
      concurrency: extra.concurrency ?? 2,
      pool: workerPool,
      pollInterval: 100,
    });
    closers.push(() => worker!.stop());
  }
  return {
    app,
    config,
    db,
    platform: client(platformServer?.url ?? 'http://127.0.0.1:1'),
    product: client(productServer?.url ?? 'http://127.0.0.1:1'),
    platformServer,
    productServer,
    worker,
    demo,
    close: async () => {
      for (const close of closers.reverse()) await close().catch(() => {});
    },
  };
}

/** Polls until `check` returns a value (not undefined), or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A demo-owner token pair through the real exchange endpoint (AUTH_PROVIDER=none). */
export async function demoToken(t: TestApp): Promise<string> {
  const res = await t.platform.post('/v1/auth/exchange', { subject_token: 'demo' });
  if (res.status !== 200) throw new Error(`exchange failed: ${res.status} ${res.text}`);
  return res.body.access_token as string;
}
