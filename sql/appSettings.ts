/** Installation-wide values generated once and kept in the database (app_settings). */
import { randomToken } from '../lib/crypto.ts';
import type { Queryable } from '../lib/db.ts';

/**
 * Returns the secret stored under `key`, generating and storing it on first use (race-safe).
 *
 * The insert and the read are separate statements on purpose: when another process's insert of the
 * same key is uncommitted, ours waits for it and then does nothing, and a read in that same statement
 * would use the snapshot taken before the other commit and see no row. A fresh statement sees it.
 */
export async function ensureGeneratedSecret(db: Queryable, key: string): Promise<string> {
  for (;;) {
    const inserted = await db.query<{ value: string }>('insert into app_settings (key, value) values ($1, $2) on conflict (key) do nothing returning value', [
      key,
      randomToken(48),
    ]);
    if (inserted.rows[0]) return inserted.rows[0].value;
    const existing = await db.query<{ value: string }>('select value from app_settings where key = $1', [key]);
    if (existing.rows[0]) return existing.rows[0].value;
    // Deleted between the two statements (an operator resetting it): insert again.
  }
}
