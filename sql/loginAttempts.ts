/**
 * Login attempt budgets in fixed windows, shared by every process through Postgres. A key's window
 * opens with its first attempt and lasts `windowMs`; within it at most `limit` attempts pass. All
 * budgets of one attempt are checked and taken together (rows locked in key order): a refused attempt
 * consumes nothing, and Retry-After is the time until the window of the oldest counted attempt ends.
 */
import type { Pool } from '../lib/db.ts';
import { withTransaction } from '../lib/db.ts';

export interface Budget {
  key: string;
  limit: number;
  windowMs: number;
}

export type TakeOutcome = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export async function takeLoginAttempt(pool: Pool, budgets: Budget[], now: Date): Promise<TakeOutcome> {
  const sorted = [...budgets].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const keys = sorted.map((b) => b.key);
  return withTransaction(pool, async (client) => {
    await client.query(
      `insert into login_attempts (key, window_started_at, attempts) select k, $2, 0 from unnest($1::text[]) as k order by k
       on conflict (key) do nothing`,
      [keys, now],
    );
    const { rows } = await client.query<{ key: string; window_started_at: Date; attempts: number }>(
      'select key, window_started_at, attempts from login_attempts where key = any($1) order by key for update',
      [keys],
    );
    const state = new Map(rows.map((r) => [r.key, r]));
    let waitMs = 0;
    const next = sorted.map((budget) => {
      const row = state.get(budget.key)!;
      const open = now.getTime() < row.window_started_at.getTime() + budget.windowMs;
      const startedAt = open ? row.window_started_at : now;
      const attempts = open ? row.attempts : 0;
      if (attempts >= budget.limit) waitMs = Math.max(waitMs, startedAt.getTime() + budget.windowMs - now.getTime());
      return { key: budget.key, startedAt, attempts: attempts + 1 };
    });
    if (waitMs > 0) return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
    await client.query(
      `update login_attempts a set window_started_at = n.started_at, attempts = n.attempts, updated_at = now()
         from unnest($1::text[], $2::timestamptz[], $3::int[]) as n (key, started_at, attempts) where a.key = n.key`,
      [next.map((n) => n.key), next.map((n) => n.startedAt), next.map((n) => n.attempts)],
    );
    return { allowed: true };
  });
}
