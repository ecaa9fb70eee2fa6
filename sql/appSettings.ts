/** Installation-wide values generated once and kept in the database (app_settings). */
import { randomToken } from '../lib/crypto.ts';
import type { Queryable } from '../lib/db.ts';

/** Returns the secret stored under `key`, generating and storing it on first use (race-safe). */
export async function ensureGeneratedSecret(db: Queryable, key: string): Promise<string> {
  const { rows } = await db.query<{ value: string }>(
    `with ins as (
       insert into app_settings (key, value) values ($1, $2) on conflict (key) do nothing returning value)
     select value from ins union all select value from app_settings where key = $1 limit 1`,
    [key, randomToken(48)],
  );
  return rows[0].value;
}
