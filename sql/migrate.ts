/**
 * Forward-only migrations: graphile-worker's own schema first, then every
 * `sql/migrations/NNNNNN_slug.sql` not yet recorded in `schema_migrations`, each in its own
 * transaction, then the pending tenant migrations of every tenant schema (sql/tenant/schema.ts). A
 * session advisory lock serialises processes that start at the same time.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Logger as WorkerLogger, runMigrations as runWorkerMigrations } from 'graphile-worker';
import type { Pool } from '../lib/db.ts';
import type { Logger } from '../lib/logger.ts';
import { migrateAllTenantSchemas } from './tenant/schema.ts';

const migrationsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
const MIGRATION_LOCK = 7_305_118_001; // arbitrary, constant across processes

export interface MigrationFile {
  id: number;
  name: string;
  sql: string;
}

let cached: MigrationFile[] | undefined;
export function migrationFiles(): MigrationFile[] {
  return (cached ??= readdirSync(migrationsDir)
    .filter((f) => /^\d{6}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ id: Number(f.slice(0, 6)), name: f.replace(/\.sql$/, ''), sql: readFileSync(path.join(migrationsDir, f), 'utf8') })));
}

export async function migrate(pool: Pool, logger: Logger): Promise<{ applied: string[] }> {
  // One connection holds the lock while graphile-worker migrates on another.
  if ((pool.options.max ?? 10) < 2) throw new Error('migrate() needs a pool of at least 2 connections');
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await runWorkerMigrations({ pgPool: pool, logger: quietWorkerLogger() });
    await client.query(`create table if not exists schema_migrations (
      id integer primary key, name text not null, applied_at timestamptz not null default now())`);
    const done = new Set((await client.query<{ id: number }>('select id from schema_migrations')).rows.map((r) => r.id));
    for (const file of migrationFiles()) {
      if (done.has(file.id)) continue;
      try {
        await client.query('begin');
        await client.query(file.sql);
        await client.query('insert into schema_migrations (id, name) values ($1, $2)', [file.id, file.name]);
        await client.query('commit');
      } catch (err) {
        await client.query('rollback').catch(() => {});
        throw new Error(`migration ${file.name} failed: ${(err as Error).message}`, { cause: err });
      }
      applied.push(file.name);
      logger.info('migration applied', { migration: file.name });
    }
    for (const tenant of await migrateAllTenantSchemas(pool)) {
      applied.push(...tenant.applied.map((name) => `${tenant.schema}/${name}`));
      logger.info('tenant migrations applied', { schema: tenant.schema, migrations: tenant.applied });
    }
  } finally {
    await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    client.release();
  }
  return { applied };
}

/** True when every migration this code knows is recorded (the readiness gate). */
export async function migrationsApplied(pool: Pool): Promise<boolean> {
  const ids = migrationFiles().map((f) => f.id);
  const { rows } = await pool
    .query<{ n: number }>('select count(*)::int as n from schema_migrations where id = any($1)', [ids])
    .catch(() => ({ rows: [{ n: -1 }] }));
  return rows[0].n === ids.length;
}

// graphile-worker logs its migration chatter at info; keep start-up output to our own lines.
const quietWorkerLogger = () => new WorkerLogger(() => () => {});
