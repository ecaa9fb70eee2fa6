/**
 * Test databases: one template database migrated once (named after a hash of the migrations, so a
 * changed migration builds a new one), and a fresh clone of it for every test file.
 * The server is SVC_TEST_DATABASE_URL (set by test/run.ts), else DATABASE_URL, else the local
 * PostgreSQL on 127.0.0.1:5432.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../lib/embeddedPostgres.ts';
import { createLogger } from '../../lib/logger.ts';
import { createPool } from '../../lib/db.ts';
import { migrate, migrationFiles } from '../../sql/migrate.ts';

export const serverUrl = (): string =>
  process.env.SVC_TEST_DATABASE_URL || process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

export function databaseUrl(base: string, database: string): string {
  const url = new URL(base);
  url.pathname = `/${database}`;
  return url.toString();
}

export function templateName(): string {
  const hash = createHash('sha256');
  for (const file of migrationFiles()) hash.update(file.name).update(file.sql);
  return `svc_tpl_${hash.digest('hex').slice(0, 16)}`;
}

/**
 * The server of serverUrl() when it answers; when nothing answers there and no URL was configured,
 * an embedded PostgreSQL in a temporary directory, which becomes serverUrl() of this process and of
 * the children it starts. `stop` stops and removes an embedded server.
 */
export async function startDatabaseServer(): Promise<{ url: string; stop(): Promise<void> }> {
  const url = serverUrl();
  if (await serverAnswers(url)) return { url, stop: async () => {} };
  if (process.env.SVC_TEST_DATABASE_URL || process.env.DATABASE_URL) throw new Error(`the configured PostgreSQL does not answer: ${url}`);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-test-pg-'));
  process.stdout.write(`No PostgreSQL at ${url}; starting an embedded one in ${dir}\n`);
  const embedded = await startEmbeddedPostgres(dir, createLogger('warn'));
  process.env.SVC_TEST_DATABASE_URL = embedded.url;
  return {
    url: embedded.url,
    stop: async () => {
      await embedded.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Whether a PostgreSQL server answers at `url` (within two seconds). */
async function serverAnswers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

async function withAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Creates and migrates the template database unless it exists (safe across parallel processes). */
export async function ensureTemplate(): Promise<string> {
  const name = templateName();
  await withAdmin(async (admin) => {
    await admin.query('select pg_advisory_lock(7305118003)');
    try {
      const exists = await admin.query('select 1 from pg_database where datname = $1', [name]);
      if (exists.rowCount) return;
      const building = `${name}_building`;
      await admin.query(`drop database if exists ${building} with (force)`);
      await admin.query(`create database ${building}`);
      const pool = createPool(databaseUrl(serverUrl(), building), { max: 2 });
      try {
        await migrate(pool, createLogger('silent'));
      } finally {
        await pool.end();
      }
      await admin.query(`alter database ${building} rename to ${name}`);
    } finally {
      await admin.query('select pg_advisory_unlock(7305118003)');
    }
  });
  return name;
}

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** A fresh database cloned from the migrated template. */
export async function createTestDatabase(): Promise<TestDatabase> {
  return newDatabase(await ensureTemplate());
}

/** An empty database (not migrated), for tests of the migrations themselves. */
export function createEmptyDatabase(): Promise<TestDatabase> {
  return newDatabase();
}

async function newDatabase(template?: string): Promise<TestDatabase> {
  const name = `svc_t_${randomBytes(6).toString('hex')}`;
  await withAdmin((admin) => admin.query(`create database ${name}${template ? ` template ${template}` : ''}`));
  return {
    name,
    url: databaseUrl(serverUrl(), name),
    drop: () => withAdmin((admin) => admin.query(`drop database if exists ${name} with (force)`)).then(() => {}),
  };
}
