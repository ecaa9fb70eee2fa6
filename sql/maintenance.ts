/** Housekeeping of expiring rows: idempotency cache entries and idle rate-limit counters. */
import type { Queryable } from '../lib/db.ts';

export async function purgeExpired(db: Queryable): Promise<{ idempotency_keys: number; rate_limit_counters: number }> {
  const keys = await db.query(`delete from idempotency_keys where expires_at < now()`);
  // A counter untouched for two windows (2 minutes) holds no information any more.
  const counters = await db.query(`delete from rate_limit_counters where updated_at < now() - interval '10 minutes'`);
  return { idempotency_keys: keys.rowCount ?? 0, rate_limit_counters: counters.rowCount ?? 0 };
}
