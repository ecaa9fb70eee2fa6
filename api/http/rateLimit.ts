/**
 * Per-client request rate limit over a sliding window. Both stores implement the same algorithm, the
 * weighted two-window sliding counter: the estimate at time t is
 *   previous_window_hits * (1 - elapsed_in_current_window / window) + current_window_hits
 * which needs O(1) state per client and one atomic row update in Postgres. Denied requests do not
 * consume budget. `memory` counts per process; `postgres` (rate_limit_take() in SQL) is shared by
 * every process on the database.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { Pool } from '../../lib/db.ts';
import { takeRateLimit } from '../../sql/rateLimits.ts';
import type { Logger } from '../../lib/logger.ts';

export interface TakeResult {
  allowed: boolean;
  remaining: number;
  retryAfterMs: number;
}

export interface RateLimitStore {
  take(key: string, limit: number, windowMs: number, nowMs: number): Promise<TakeResult>;
}

export interface WindowState {
  windowStart: number;
  current: number;
  previous: number;
}

/** The algorithm of both stores (SQL twin: rate_limit_take in 000001_foundation.sql). */
export function slidingWindowTake(state: WindowState | undefined, limit: number, windowMs: number, nowMs: number): { state: WindowState; result: TakeResult } {
  let windowStart = nowMs - (nowMs % windowMs);
  let elapsed = nowMs - windowStart;
  // A request behind the counter's window (another process's clock read later got there first)
  // counts at the start of that window rather than rewinding it (000187_rate_limit_clock_order.sql).
  if (state && state.windowStart > windowStart) {
    windowStart = state.windowStart;
    elapsed = 0;
  }
  let current = 0;
  let previous = 0;
  if (state?.windowStart === windowStart) ({ current, previous } = state);
  else if (state?.windowStart === windowStart - windowMs) previous = state.current;
  const estimate = previous * ((windowMs - elapsed) / windowMs) + current;
  if (estimate + 1 <= limit) {
    return {
      state: { windowStart, current: current + 1, previous },
      result: { allowed: true, remaining: Math.max(0, Math.floor(limit - estimate - 1)), retryAfterMs: 0 },
    };
  }
  const wait =
    current <= limit - 1 && previous > 0
      ? windowMs * (1 - (limit - 1 - current) / previous) - elapsed
      : windowMs - elapsed + windowMs * (1 - (limit - 1) / Math.max(current, 1));
  return { state: { windowStart, current, previous }, result: { allowed: false, remaining: 0, retryAfterMs: Math.max(1, Math.ceil(wait)) } };
}

/** Clients the memory store tracks at most (about 100 bytes each). */
export const MEMORY_STORE_MAX_CLIENTS = 100_000;

/**
 * Per-process counters, bounded: a flood of rotating client addresses cannot grow the map beyond
 * `maxClients`. When full, the least recently seen client is forgotten (it starts a fresh window):
 * under such a flood the limit fails open for the quietest clients rather than taking the process
 * down. The `postgres` store has no such bound and is the choice behind a proxy farm.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, WindowState>();
  private lastSweep = 0;

  constructor(private readonly maxClients = MEMORY_STORE_MAX_CLIENTS) {}

  get size(): number {
    return this.windows.size;
  }

  async take(key: string, limit: number, windowMs: number, nowMs: number): Promise<TakeResult> {
    this.sweep(windowMs, nowMs);
    const previous = this.windows.get(key);
    const { state, result } = slidingWindowTake(previous, limit, windowMs, nowMs);
    // Re-inserted so that the map's order is least recently seen first.
    if (previous) this.windows.delete(key);
    else if (this.windows.size >= this.maxClients) this.windows.delete(this.windows.keys().next().value!);
    this.windows.set(key, state);
    return result;
  }

  /** Drops clients idle for two windows, at most once per window, so memory tracks active clients. */
  private sweep(windowMs: number, nowMs: number) {
    if (nowMs - this.lastSweep < windowMs) return;
    this.lastSweep = nowMs;
    for (const [key, state] of this.windows) if (state.windowStart < nowMs - 2 * windowMs) this.windows.delete(key);
  }
}

export class PostgresRateLimitStore implements RateLimitStore {
  constructor(private readonly pool: Pool) {}

  take(key: string, limit: number, windowMs: number, nowMs: number): Promise<TakeResult> {
    return takeRateLimit(this.pool, key, limit, windowMs, nowMs);
  }
}

export interface RateLimitOptions {
  store: RateLimitStore;
  limit: number;
  windowMs: number;
  now: () => number;
  logger: Logger;
  /** Writes the surface's own 429 body (the request says which API it was for); headers are already set. */
  onLimited(res: Response, req: Request): void;
}

/** Sets X-RateLimit-Limit/-Remaining on every response; 429 with Retry-After when over budget. */
export function rateLimit(options: RateLimitOptions): RequestHandler {
  return async (req, res, next) => {
    let result: TakeResult;
    try {
      result = await options.store.take(`ip:${req.clientIp}`, options.limit, options.windowMs, options.now());
    } catch (err) {
      // The limiter protects the service; it must not take it down when its store is unavailable.
      options.logger.warn('rate limit store unavailable; request allowed', { err });
      result = { allowed: true, remaining: options.limit - 1, retryAfterMs: 0 };
    }
    res.setHeader('X-RateLimit-Limit', String(options.limit));
    res.setHeader('X-RateLimit-Remaining', String(result.remaining));
    if (result.allowed) return next();
    res.setHeader('Retry-After', String(Math.max(1, Math.ceil(result.retryAfterMs / 1000))));
    options.onLimited(res, req);
  };
}
