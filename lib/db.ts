/** The Postgres pool and the one way to run several statements in a transaction. */
import pg from 'pg';
import type { Logger } from './logger.ts';

/** Anything that can run a query: the pool, or a client inside a transaction. */
export type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;
export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

// int8 (counts, sequences) as JS numbers: every value we store fits in 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number.parseInt(v, 10));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number.parseFloat(v));

/**
 * Every pool's bounds (DATABASE_*_TIMEOUT_MS): how long to wait for a connection (new or from the
 * pool), how long one statement may run, how long a session may sit idle inside a transaction.
 * A database that goes away then fails requests within seconds instead of hanging them.
 */
export interface PoolTimeouts {
  connectMs: number;
  statementMs: number;
  idleInTransactionMs: number;
}
const defaultTimeouts: PoolTimeouts = { connectMs: 5_000, statementMs: 120_000, idleInTransactionMs: 60_000 };

export const poolTimeouts = (config: {
  DATABASE_CONNECT_TIMEOUT_MS: number;
  DATABASE_STATEMENT_TIMEOUT_MS: number;
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: number;
}): PoolTimeouts => ({
  connectMs: config.DATABASE_CONNECT_TIMEOUT_MS,
  statementMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
  idleInTransactionMs: config.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
});

/**
 * `session`: each pool connection is a Postgres session of its own (a direct connection, or a pooler in
 * session mode). `transaction`: the URL is a pooler in transaction mode (PgBouncer `pool_mode =
 * transaction`): consecutive transactions may run on different server sessions, so nothing may rely on
 * session state. Such a pool sends no session settings at start-up (a pooler refuses or drops them:
 * set statement_timeout and idle_in_transaction_session_timeout on the database role instead,
 * docs/deployment.md) and the process uses no named prepared statements (usePreparedStatements).
 */
export type PoolMode = 'session' | 'transaction';

export function createPool(
  connectionString: string,
  options: { max?: number; applicationName?: string; timeouts?: PoolTimeouts; mode?: PoolMode } = {},
): pg.Pool {
  const timeouts = options.timeouts ?? defaultTimeouts;
  const sessionSettings =
    options.mode === 'transaction' ? {} : { statement_timeout: timeouts.statementMs, idle_in_transaction_session_timeout: timeouts.idleInTransactionMs };
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'svc',
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: timeouts.connectMs,
    ...sessionSettings,
    keepAlive: true,
  });
  // A client losing its connection must not crash the process: an idle one is replaced by the
  // pool, an active one surfaces the failure through its pending query.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

const preparedNames = new Set<string>();
let namedStatements = true;

/**
 * Named prepared statements live in one server session; behind a transaction-mode pooler older than
 * PgBouncer 1.21 the next use may land on a session that never prepared it. A process whose main pool
 * is such a pooler turns them off once at start-up: `prepared` statements are then sent unnamed
 * (parsed and planned each time, as any other statement).
 */
export function usePreparedStatements(enabled: boolean): void {
  namedStatements = enabled;
}

/**
 * A constant statement of a hot path, prepared once per connection: Postgres parses and plans it on its
 * first use there and then only binds and executes it (after five runs with a custom plan it keeps a
 * generic one when that costs no more). Planning alone took 0.1-0.3 ms per statement on every call, more
 * than a token check takes to run (0.05 ms; docs/benchmarks.md, issue 11 session 8). Rules: the text is constant (built once, at module load);
 * the result columns are named, never `*`, because a prepared statement whose result columns change
 * (a migration adds a column) fails with "cached plan must not change result type" until its
 * connection is replaced; `name` is unique in the process (checked here). Behind a transaction-mode
 * pooler they are sent unnamed (usePreparedStatements).
 */
export function prepared(name: string, text: string): (values: unknown[]) => pg.QueryConfig {
  if (preparedNames.has(name)) throw new Error(`prepared statement ${name} is defined twice`);
  preparedNames.add(name);
  return (values) => (namedStatements ? { name, text, values } : { text, values });
}

/**
 * Runs `fn` inside BEGIN/COMMIT on one client; rolls back and rethrows on any error. `begin` may carry
 * the transaction's modes (`begin isolation level repeatable read read only`).
 */
export async function withTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>, begin = 'begin'): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(begin);
    const result = await fn(client);
    await client.query('commit');
    return result;
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/**
 * The row `insert` (an `insert … on conflict do nothing returning …`) created, or else the row `read`
 * finds: a create-once value several processes may ask for at the same moment. Two statements on
 * purpose: when another transaction's insert of the same key is uncommitted, ours waits for it and then
 * inserts nothing, and a read in that same statement would use the snapshot taken before the other
 * committed and find no row either. A fresh statement sees the committed row. Loops only if the row
 * was deleted in between.
 */
export async function insertOrRead<T extends pg.QueryResultRow>(db: Queryable, insert: pg.QueryConfig, read: pg.QueryConfig): Promise<T> {
  for (;;) {
    const inserted = await db.query<T>(insert);
    if (inserted.rows[0]) return inserted.rows[0];
    const existing = await db.query<T>(read);
    if (existing.rows[0]) return existing.rows[0];
  }
}

/**
 * Postgres errors a fresh attempt of the same transaction can get past: a unique violation (two
 * transactions created the same new key; the retry finds the winner's row), a deadlock, a
 * serialization failure.
 */
const RETRYABLE_ERROR_CODES = ['23505', '40P01', '40001'];
const RETRY_ATTEMPTS = 5;

/**
 * `withTransaction`, attempted again (up to RETRY_ATTEMPTS times in all, after a short random pause)
 * when it fails with one of RETRYABLE_ERROR_CODES. `fn` must be safe to run again: everything it did
 * rolled back, and it must read what it depends on afresh (it runs in a new transaction with a new snapshot).
 */
export async function withTransactionRetry<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await withTransaction(pool, fn);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (attempt >= RETRY_ATTEMPTS || typeof code !== 'string' || !RETRYABLE_ERROR_CODES.includes(code)) throw err;
      // Jitter, so that two transactions that just collided do not collide again in step.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
    }
  }
}

/** True when the pool answers a trivial query within `timeoutMs`. */
export async function databaseAnswers(pool: pg.Pool, timeoutMs = 2000): Promise<boolean> {
  const timeout = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref());
  const probe = pool.query('select 1').then(
    () => true,
    () => false,
  );
  return Promise.race([probe, timeout]);
}

const CONNECTION_ERROR_CODES = ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', '53300'];

/**
 * True when `err` says the database cannot be reached right now (refused, reset, shutting down,
 * starting up, out of connection slots), not that a statement was wrong: worth trying again later.
 */
export function isConnectionError(err: unknown): boolean {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string') return code.startsWith('08') || code.startsWith('57P') || CONNECTION_ERROR_CODES.includes(code);
  return typeof message === 'string' && /Connection terminated|timeout exceeded when trying to connect/.test(message);
}

/**
 * Runs `fn` until it succeeds. A connection error (isConnectionError) is logged and `fn` tried again
 * after a pause that doubles from 0.5 s to 30 s; any other error is thrown, and so is the last
 * connection error once `stopped()` says the process is shutting down.
 */
export async function untilDatabaseAnswers<T>(what: string, fn: () => Promise<T>, logger: Logger, stopped: () => boolean = () => false): Promise<T> {
  for (let delay = 500; ; delay = Math.min(delay * 2, 30_000)) {
    try {
      return await fn();
    } catch (err) {
      if (!isConnectionError(err) || stopped()) throw err;
      logger.warn(`${what}: the database cannot be reached; trying again`, { err, retry_in_ms: delay });
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/**
 * Ends a pool, waiting at most `timeoutMs` for its checked-out clients: a job abandoned by an orderly
 * shutdown (jobs/worker.ts) may hold one for as long as its task runs. Those are left to the
 * database's own shutdown or the process's exit.
 */
export async function endPool(pool: pg.Pool, timeoutMs = 2000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([pool.end(), new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
  clearTimeout(timer);
}
