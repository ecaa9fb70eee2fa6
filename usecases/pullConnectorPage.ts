/**
 * Reads one page of an `http_pull` connector's JSON endpoint through the SSRF guard: what each step
 * of a sync (jobs/tasks/connector__sync.ts) and `POST /v1/connectors/{id}/test` do. The endpoint
 * answers `{records: [...], next_cursor?, has_more?}` (or the array at `records_path`, a dot path, or
 * a bare array); the next page is requested with `?<cursor_param>=<next_cursor>` (default `cursor`).
 */
import { z } from 'zod';
import type { AppContext } from '../lib/context.ts';
import { postOutbound } from '../lib/outbound/index.ts';
import { policyOf } from '../lib/outbound/appPolicy.ts';
import { openSecret, sealSecret } from '../lib/secretBox.ts';

/** An HTTP header name: a token of RFC 9110 section 5.6.2. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export const httpPullConfigSchema = z.object({
  url: z.string({ error: 'is required' }).trim().min(1, 'must not be empty').max(2048, 'must be at most 2048 characters'),
  headers: z
    .record(z.string(), z.string(), { error: 'must map header names to strings' })
    // Checked when saved: an invalid name or a line break would otherwise fail every pull (or split the request).
    .refine((headers) => Object.keys(headers).every((name) => HEADER_NAME.test(name)), {
      error: "HTTP header names are letters, digits and !#$%&'*+.^_`|~-",
    })
    .refine((headers) => Object.values(headers).every((value) => !/[\r\n\0]/.test(value)), { error: 'header values must not contain line breaks' })
    .optional(),
  records_path: z.string().trim().min(1).max(200).optional(),
  cursor_param: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .regex(/^[A-Za-z0-9_.-]+$/, 'must be a plain query parameter name')
    .optional(),
});
export type HttpPullConfig = z.output<typeof httpPullConfigSchema>;

/**
 * An http_pull config as stored: its `headers` (usually credentials) sealed like webhook signing
 * secrets (lib/secretBox.ts, Secrets.webhookKey) in `headers_sealed`, their names alone in the clear
 * in `header_names` (issue 26).
 */
export function sealPullConfig(app: Pick<AppContext, 'secrets'>, config: HttpPullConfig): Record<string, unknown> {
  const { headers, ...rest } = config;
  if (!headers || !Object.keys(headers).length) return rest;
  return { ...rest, header_names: Object.keys(headers), headers_sealed: sealSecret(app.secrets.webhookKey, JSON.stringify(headers)) };
}

/** The stored config with its headers opened (a config stored before issue 26 keeps plain `headers`). */
export function openPullConfig(app: Pick<AppContext, 'secrets'>, stored: Record<string, unknown>): HttpPullConfig {
  const { headers_sealed: sealed, header_names: _names, ...rest } = stored;
  const headers = typeof sealed === 'string' ? JSON.parse(openSecret(app.secrets.webhookKey, sealed)) : rest.headers;
  return httpPullConfigSchema.parse({ ...rest, ...(headers ? { headers } : {}) });
}

const MAX_PAGE_BYTES = 20 * 1024 * 1024;
const PULL_TIMEOUT_MS = 30_000;

export interface PulledPage {
  records: unknown[];
  nextCursor: string | null;
  hasMore: boolean | null;
}

function valueAtPath(root: unknown, path: string): unknown {
  let value = root;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** Reads one page (also what `POST /v1/connectors/{id}/test` does); throws an Error saying what is wrong. */
export async function pullPage(job: { app: AppContext }, config: HttpPullConfig, cursor: string | null): Promise<PulledPage> {
  const url = new URL(config.url);
  if (cursor !== null) url.searchParams.set(config.cursor_param ?? 'cursor', cursor);
  const res = await postOutbound(policyOf(job.app), {
    method: 'GET',
    url: url.toString(),
    headers: config.headers,
    maxResponseBytes: MAX_PAGE_BYTES,
    responseTimeoutMs: PULL_TIMEOUT_MS,
  });
  if (!res.ok) throw new Error(`GET ${url.origin}${url.pathname} failed: ${res.error}`);
  if (res.truncated) throw new Error(`GET ${url.origin}${url.pathname}: the page is larger than ${MAX_PAGE_BYTES} bytes`);
  let body: unknown;
  try {
    body = JSON.parse(res.responsePreview);
  } catch {
    throw new Error(`GET ${url.origin}${url.pathname} did not answer JSON`);
  }
  const records = config.records_path ? valueAtPath(body, config.records_path) : Array.isArray(body) ? body : valueAtPath(body, 'records');
  if (!Array.isArray(records)) throw new Error(`the response holds no array at ${config.records_path ?? 'records'}`);
  const meta = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const next = meta.next_cursor;
  return {
    records,
    nextCursor: typeof next === 'string' && next ? next : typeof next === 'number' ? String(next) : null,
    hasMore: typeof meta.has_more === 'boolean' ? meta.has_more : null,
  };
}
