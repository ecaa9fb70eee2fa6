/**
 * Each tenant's data lives in its own Postgres schema, `tenant_<id without dashes>` (the generated
 * `tenants.schema_name`: derived from the id, never from input). `sql/tenant/migrations/NNNN_slug.sql`
 * are applied inside that schema in order, each in its own transaction with `search_path` set to the
 * schema alone, and recorded in the schema's `tenant_migrations` table: re-running applies only what
 * is missing, so a provisioning interrupted half-way resumes where it stopped. `sql/tenant/defaults/*.sql`
 * are idempotent seeds run after the migrations. Tenant queries go through `withTenant`, which sets
 * the search_path for one transaction.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Pool, PoolClient, Queryable } from '../../lib/db.ts';
import { withTransaction } from '../../lib/db.ts';

const tenantDir = path.dirname(fileURLToPath(import.meta.url));
const SCHEMA_NAME = /^tenant_[0-9a-f]{32}$/;

export interface TenantSqlFile {
  id: number;
  name: string;
  sql: string;
}

function sqlFiles(folder: string): TenantSqlFile[] {
  const dir = path.join(tenantDir, folder);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ id: Number(f.slice(0, 4)), name: f.replace(/\.sql$/, ''), sql: readFileSync(path.join(dir, f), 'utf8') }));
}

let migrations: TenantSqlFile[] | undefined;
let defaults: TenantSqlFile[] | undefined;
export const tenantMigrationFiles = (): TenantSqlFile[] => (migrations ??= sqlFiles('migrations'));
const tenantDefaultFiles = (): TenantSqlFile[] => (defaults ??= sqlFiles('defaults'));

/** The schema name as a quoted identifier; refuses anything that is not a tenant schema name. */
export function schemaIdent(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`not a tenant schema name: ${JSON.stringify(schema)}`);
  return `"${schema}"`;
}

/** Makes `schema` the only schema unqualified names resolve to, until the transaction ends. */
export async function useTenantSchema(client: Queryable, schema: string): Promise<void> {
  await client.query(`select set_config('search_path', $1, true)`, [schemaIdent(schema)]);
}

/** Runs `fn` in one transaction whose unqualified table names are the tenant's own. */
export function withTenant<T>(pool: Pool, schema: string, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  schemaIdent(schema);
  return withTransaction(pool, async (client) => {
    await useTenantSchema(client, schema);
    return fn(client);
  });
}

// Serialises concurrent migrations of one schema (a provisioning job and `svc migrate` at start-up).
const lockKey = (schema: string) => `svc:tenant-migrate:${schema}`;

export async function createTenantSchema(pool: Pool, schema: string): Promise<void> {
  await pool.query(`create schema if not exists ${schemaIdent(schema)}`);
}

/** Applies the tenant migrations this schema has not recorded; returns the names applied. */
export async function migrateTenantSchema(pool: Pool, schema: string): Promise<string[]> {
  const ident = schemaIdent(schema);
  const applied: string[] = [];
  for (const file of tenantMigrationFiles()) {
    await withTransaction(pool, async (client) => {
      await client.query('select pg_advisory_xact_lock(hashtext($1))', [lockKey(schema)]);
      await client.query(`create table if not exists ${ident}.tenant_migrations (
        id integer primary key, name text not null, applied_at timestamptz not null default now())`);
      const done = await client.query(`select 1 from ${ident}.tenant_migrations where id = $1`, [file.id]);
      if (done.rowCount) return;
      await useTenantSchema(client, schema);
      try {
        await client.query(file.sql);
      } catch (err) {
        throw new Error(`tenant migration ${file.name} failed in ${schema}: ${(err as Error).message}`, { cause: err });
      }
      await client.query(`insert into ${ident}.tenant_migrations (id, name) values ($1, $2)`, [file.id, file.name]);
      applied.push(file.name);
    });
  }
  return applied;
}

/**
 * Brings every tenant schema that provisioning has started (its `tenant_migrations` exists) up to
 * the tenant migrations of this code: run after the control migrations, so a deploy that adds
 * `sql/tenant/migrations/NNNN_*.sql` reaches existing tenants too. Returns the schemas changed.
 */
export async function migrateAllTenantSchemas(pool: Pool): Promise<Array<{ schema: string; applied: string[] }>> {
  const latest = tenantMigrationFiles().at(-1)?.id ?? 0;
  const { rows } = await pool.query<{ schema_name: string }>(
    `select t.schema_name from tenants t join pg_namespace n on n.nspname = t.schema_name
      where to_regclass(quote_ident(t.schema_name) || '.tenant_migrations') is not null order by t.created_at`,
  );
  const changed: Array<{ schema: string; applied: string[] }> = [];
  for (const { schema_name: schema } of rows) {
    const { rows: recorded } = await pool.query<{ max: number | null }>(`select max(id) as max from ${schemaIdent(schema)}.tenant_migrations`);
    if ((recorded[0].max ?? 0) >= latest) continue;
    const applied = await migrateTenantSchema(pool, schema);
    if (applied.length) changed.push({ schema, applied });
  }
  return changed;
}

/** Names of the tenant migrations recorded in `schema` (empty when the schema does not exist). */
export async function appliedTenantMigrations(db: Queryable, schema: string): Promise<string[]> {
  const ident = schemaIdent(schema);
  const { rows } = await db.query<{ exists: boolean }>('select to_regclass($1) is not null as exists', [`${ident}.tenant_migrations`]);
  if (!rows[0].exists) return [];
  const recorded = await db.query<{ name: string }>(`select name from ${ident}.tenant_migrations order by id`);
  return recorded.rows.map((r) => r.name);
}

/** Runs every idempotent default seed inside the schema (one transaction). */
export async function seedTenantDefaults(pool: Pool, schema: string): Promise<void> {
  await withTenant(pool, schema, async (client) => {
    for (const file of tenantDefaultFiles()) await client.query(file.sql);
  });
}
