/**
 * The product API's errors are `{detail}`: a string, a 422 array of `{loc, msg, type, input}`, or
 * (go-live) `{message, missing}`. These helpers turn any of them into words for a person.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: unknown,
    /** Seconds from the response's Retry-After (a 429 says when to try again), or null. */
    readonly retryAfter: number | null = null,
  ) {
    super(detailMessage(detail));
  }
}

/** A Retry-After header's delay in seconds (delta-seconds or an HTTP date), or null. */
export function retryAfterSeconds(header: string | null): number | null {
  if (!header) return null;
  const seconds = /^\d+$/.test(header.trim()) ? Number(header) : Math.ceil((Date.parse(header) - Date.now()) / 1000);
  return Number.isFinite(seconds) ? Math.max(0, seconds) : null;
}

interface ValidationItem {
  loc: Array<string | number>;
  msg: string;
}

const isValidationList = (detail: unknown): detail is ValidationItem[] =>
  Array.isArray(detail) && detail.every((d) => d && typeof d === 'object' && Array.isArray((d as ValidationItem).loc));

export function detailMessage(detail: unknown): string {
  if (typeof detail === 'string') return detail;
  if (isValidationList(detail)) return detail.map((d) => `${fieldOf(d) ?? 'request'}: ${d.msg}`).join('; ');
  if (detail && typeof detail === 'object' && typeof (detail as { message?: unknown }).message === 'string') return (detail as { message: string }).message;
  return 'Something went wrong.';
}

function fieldOf(item: ValidationItem): string | undefined {
  const [where, ...rest] = item.loc;
  return where === 'body' || where === 'query' || where === 'path' ? rest.join('.') || undefined : item.loc.join('.');
}

/** A 422's messages by body field (`{slug: "…"}`); what names no field stays in the general message. */
export function fieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError) || error.status !== 422 || !isValidationList(error.detail)) return {};
  const out: Record<string, string> = {};
  for (const item of error.detail) {
    const field = fieldOf(item);
    if (field && !out[field]) out[field] = item.msg;
  }
  return out;
}

export const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));
