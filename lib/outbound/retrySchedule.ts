/**
 * The retry schedule of outbound deliveries, Svix's: after the first attempt fails, attempts follow
 * 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h later (8 attempts over about 28 hours), each delay with
 * ±20% jitter so that many endpoints failing at once do not come back in step. `scale` shortens the
 * whole schedule (WEBHOOK_RETRY_SCALE in tests).
 */
export const RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000] as const;

/** Attempts in all: the first one and one per delay. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/**
 * The delay before attempt `failedAttempts + 1`, or null when the schedule is exhausted.
 * `random` in [0, 1) picks the jitter (pass a fixed value to make it deterministic).
 */
export function retryDelayMs(failedAttempts: number, scale = 1, random: number = Math.random()): number | null {
  const base = RETRY_DELAYS_MS[failedAttempts - 1];
  if (base === undefined) return null;
  return Math.round(base * scale * (0.8 + 0.4 * random));
}
