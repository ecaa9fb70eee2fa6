/** Instants in the engine: it reads no clock, every time comes in as an ISO string. */
export const DAY_MS = 86_400_000;

/** Epoch milliseconds of an ISO time; a RangeError naming the function and the argument otherwise. */
export function parseIsoTime(value: string, where: string, what: string): number {
  const t = Date.parse(value);
  if (typeof value !== 'string' || !Number.isFinite(t)) throw new RangeError(`${where}: ${what} must be an ISO time, got ${String(value)}`);
  return t;
}
