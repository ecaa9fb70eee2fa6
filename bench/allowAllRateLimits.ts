import type { RateLimitStore } from '../api/http/rateLimit.ts';

/** The benchmarks measure the stack, not the product's per-IP limit tripping: this store allows every request. */
export const allowAllRateLimits: RateLimitStore = { take: async (_key, limit) => ({ allowed: true, remaining: limit - 1, retryAfterMs: 0 }) };
