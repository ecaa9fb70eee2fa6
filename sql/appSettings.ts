/** Installation-wide values generated once and kept in the database (app_settings). */
import { randomToken } from '../lib/crypto.ts';
import { insertOrRead, type Queryable } from '../lib/db.ts';

/** Returns the secret stored under `key`, generating and storing it on first use (race-safe). */
export async function ensureGeneratedSecret(db: Queryable, key: string): Promise<string> {
  const row = await insertOrRead<{ value: string }>(
    db,
    {
      text: 'insert into app_settings (key, value) values ($1, $2) on conflict (key) do nothing returning value',
      values: [key, randomToken(48)],
    },
    { text: 'select value from app_settings where key = $1', values: [key] },
  );
  return row.value;
}
