/** The shared rate-limit windows (RATE_LIMIT_STORE=postgres): one atomic take per request. */
import type { Queryable } from '../lib/db.ts';

export async function takeRateLimit(
  db: Queryable,
  key: string,
  limit: number,
  windowMs: number,
  nowMs: number,
): Promise<{ allowed: boolean; remaining: number; retryAfterMs: number }> {
  const { rows } = await db.query<{ allowed: boolean; remaining: number; retry_after_ms: number }>('select * from rate_limit_take($1, $2, $3, $4)', [
    key,
    limit,
    windowMs,
    nowMs,
  ]);
  return { allowed: rows[0].allowed, remaining: rows[0].remaining, retryAfterMs: rows[0].retry_after_ms };
}
