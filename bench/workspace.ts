/**
 * Large workspaces for the report and export benchmarks: a fresh test database (cloned from the
 * migrated template) holding `n` generated issues (fixtures/synthetic.ts, ~240 characters each),
 * ingested set-based through sql/issues.ts like bench/engine.ts's speed section; and a child-process
 * runner, so that each measurement reports its own peak memory.
 */
import { fork } from 'node:child_process';
import type { AppContext } from '../lib/context.ts';
import type { Pool } from '../lib/db.ts';
import { generateIssues, syntheticRecord } from '../fixtures/synthetic.ts';

const INGEST_CHUNK = 5000;
const DATA_SEED = 11;

export async function openDatabase(url: string): Promise<{ pool: Pool; app: AppContext }> {
  const { loadConfig } = await import('../lib/config.ts');
  const { createPool } = await import('../lib/db.ts');
  const { createLogger } = await import('../lib/logger.ts');
  const { createAppContext } = await import('../scripts/processes.ts');
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: url, LOG_LEVEL: 'warn', AUTH_PROVIDER: 'none' });
  const logger = createLogger(config.LOG_LEVEL, { bench: true });
  const pool = createPool(url, { max: 4, applicationName: 'svc-bench' });
  return { pool, app: await createAppContext(config, pool, logger) };
}

export interface Workspace {
  url: string;
  workspaceId: string;
  ingestMs: number;
  drop(): Promise<void>;
}

/** `vacuum`: vacuum the filled tables as well as analyze them (what autovacuum does soon after a bulk ingest). */
export async function fillWorkspace(n: number, options: { vacuum?: boolean } = {}): Promise<Workspace> {
  const { createTestDatabase } = await import('../fixtures/database.ts');
  const { seedDevelopmentData } = await import('../sql/seed.ts');
  const { ingestIssues } = await import('../usecases/ingestRecords.ts');
  const { withEventBatch } = await import('../sql/events.ts');
  const db = await createTestDatabase();
  const { pool, app } = await openDatabase(db.url);
  try {
    const { workspaceId } = await seedDevelopmentData(pool, app.logger);
    const issues = generateIssues(n, DATA_SEED);
    const started = performance.now();
    for (let start = 0; start < n; start += INGEST_CHUNK) {
      const chunk = issues.slice(start, start + INGEST_CHUNK).map((g) => ({ ...syntheticRecord(g), occurred_at: new Date(g.occurred_at) }));
      await withEventBatch(pool, workspaceId, (client, events) => ingestIssues(client, events, { type: 'system', id: null }, chunk, 'ingest'));
    }
    const ingestMs = performance.now() - started;
    await pool.query(options.vacuum ? 'vacuum analyze' : 'analyze');
    return { url: db.url, workspaceId, ingestMs, drop: db.drop };
  } finally {
    await pool.end();
  }
}

/** Peak memory of this process: the kernel's maximum RSS and the largest RSS sampled every 20 ms. */
export function memorySampler(): { stop(): { maxRss: number; sampledPeak: number } } {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  return {
    stop() {
      clearInterval(timer);
      return { maxRss: process.resourceUsage().maxRSS * 1024, sampledPeak: Math.max(peak, process.memoryUsage().rss) };
    },
  };
}

/** Runs `script` again in a child with `args` (and Node options `nodeArgs`); the child answers with `answerParent`. */
export function runChild<T>(script: string, args: string[], nodeArgs: string[] = []): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = fork(script, args, { execArgv: [...nodeArgs, '--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let answer: { ok: true; result: T } | { ok: false; error: string } | undefined;
    child.on('message', (m) => (answer = m as typeof answer));
    child.on('exit', (code) => {
      if (answer?.ok) resolve(answer.result);
      else reject(new Error(`child ${args.join(' ')} failed (exit ${code}): ${answer && !answer.ok ? answer.error : 'no answer'}`));
    });
  });
}

export async function answerParent(work: () => Promise<unknown>): Promise<void> {
  try {
    process.send!({ ok: true, result: await work() });
  } catch (err) {
    process.send!({ ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    process.exitCode = 1;
  }
}

export const mb = (bytes: number) => `${Math.round(bytes / 1024 ** 2)} MB`;
