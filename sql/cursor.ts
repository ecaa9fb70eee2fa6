/**
 * Reads a query's rows in batches through a server-side cursor, so that an unbounded result never
 * sits in memory at once. Needs one client inside a transaction (the cursor lives until it ends: a
 * commit or rollback closes it, also when the reader stops early).
 */
import type { PoolClient } from '../lib/db.ts';

const CURSOR_NAME = /^[a-z_][a-z0-9_]*$/;

export async function* cursorBatches<T extends object>(client: PoolClient, name: string, sql: string, batchSize: number): AsyncGenerator<T[]> {
  if (!CURSOR_NAME.test(name)) throw new Error(`not a cursor name: ${JSON.stringify(name)}`);
  await client.query(`declare ${name} no scroll cursor for ${sql}`);
  for (;;) {
    const { rows } = await client.query<T>(`fetch forward ${Math.trunc(batchSize)} from ${name}`);
    if (rows.length) yield rows;
    if (rows.length < batchSize) return;
  }
}
