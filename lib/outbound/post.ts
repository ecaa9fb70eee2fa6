/**
 * One outbound HTTP POST through the SSRF guard: connect and response timeouts, no redirects
 * followed (a 3xx is just a non-2xx answer), keep-alive sockets, and a result instead of an
 * exception for every way it can go wrong, so callers record each attempt as it happened.
 */
import http from 'node:http';
import https from 'node:https';
import { assertLiteralAllowed, guardedLookup, OutboundRefusedError, parseOutboundUrl } from './guard.ts';
import type { OutboundPolicy } from './addressPolicy.ts';

export interface OutboundRequest {
  url: string;
  /** POST (default) sends `body`; GET (an `http_pull` connector) sends none. */
  method?: 'POST' | 'GET';
  body?: string;
  /** Response bytes kept in `responsePreview` (default 1 KB); a longer body sets `truncated`. */
  maxResponseBytes?: number;
  headers?: Record<string, string>;
  /** Milliseconds to establish the TCP (and TLS) connection. */
  connectTimeoutMs?: number;
  /** Milliseconds from sending the request to the end of the response. */
  responseTimeoutMs?: number;
}

export interface OutboundResult {
  /** A 2xx answer. */
  ok: boolean;
  /** The receiver's status; null when no response arrived (refused, timeout, network error). */
  statusCode: number | null;
  /** `Retry-After` of the answer in milliseconds (seconds or an HTTP date), when present and valid. */
  retryAfterMs: number | null;
  durationMs: number;
  /** What went wrong: `refused: …` (SSRF guard), `timeout: …`, a network error, or `HTTP 503`. */
  error: string | null;
  /** True when the SSRF guard refused the target: retrying cannot help until the URL changes. */
  refused: boolean;
  /** The response body, up to `maxResponseBytes` (1 KB by default). */
  responsePreview: string;
  /** The body was longer than `maxResponseBytes`. */
  truncated: boolean;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
export const DEFAULT_RESPONSE_TIMEOUT_MS = 10_000;
const PREVIEW_BYTES = 1024;

/** Keep-alive agents per policy: connections to one receiver are reused across deliveries. */
const agents = new WeakMap<OutboundPolicy, { http: http.Agent; https: https.Agent }>();
function agentsFor(policy: OutboundPolicy) {
  let pair = agents.get(policy);
  if (!pair) {
    const options = { keepAlive: true, maxSockets: 256, maxFreeSockets: 64, lookup: guardedLookup(policy) };
    pair = { http: new http.Agent(options), https: new https.Agent(options) };
    agents.set(policy, pair);
  }
  return pair;
}

export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return null;
  if (/^\s*\d+\s*$/.test(raw)) return Number(raw) * 1000;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** POSTs `body` (or GETs); never throws. */
export function postOutbound(policy: OutboundPolicy, request: OutboundRequest): Promise<OutboundResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const failed = (error: unknown, statusCode: number | null = null): OutboundResult => {
    const refused = error instanceof OutboundRefusedError || (error as { code?: string })?.code === 'EOUTBOUNDREFUSED';
    const message = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      statusCode,
      retryAfterMs: null,
      durationMs: elapsed(),
      error: refused ? `refused: ${message}` : message,
      refused,
      responsePreview: '',
      truncated: false,
    };
  };
  let url: URL;
  try {
    url = parseOutboundUrl(request.url);
    assertLiteralAllowed(policy, url);
  } catch (err) {
    return Promise.resolve(failed(err));
  }
  const connectTimeoutMs = request.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const responseTimeoutMs = request.responseTimeoutMs ?? DEFAULT_RESPONSE_TIMEOUT_MS;
  const secure = url.protocol === 'https:';
  const method = request.method ?? 'POST';
  const body = method === 'POST' ? Buffer.from(request.body ?? '') : null;
  const maxBytes = request.maxResponseBytes ?? PREVIEW_BYTES;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: OutboundResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(responseTimer);
      resolve(result);
    };
    const req = (secure ? https : http).request(url, {
      method,
      agent: secure ? agentsFor(policy).https : agentsFor(policy).http,
      headers: {
        ...(body ? { 'content-type': 'application/json' } : { accept: 'application/json' }),
        'user-agent': 'svc-webhooks/1',
        ...request.headers,
        ...(body ? { 'content-length': String(body.length) } : {}),
      },
    });
    const responseTimer = setTimeout(() => {
      req.destroy();
      finish(failed(new Error(`timeout: no complete response within ${responseTimeoutMs} ms`)));
    }, responseTimeoutMs);
    req.on('socket', (socket) => {
      if (!socket.connecting) return;
      const connectTimer = setTimeout(() => {
        req.destroy();
        finish(failed(new Error(`timeout: could not connect within ${connectTimeoutMs} ms`)));
      }, connectTimeoutMs);
      socket.once(secure ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
      socket.once('close', () => clearTimeout(connectTimer));
    });
    req.on('error', (err) => finish(failed(err)));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      const answer = (truncated: boolean) => {
        const status = res.statusCode ?? 0;
        const ok = status >= 200 && status < 300;
        finish({
          ok,
          statusCode: status,
          retryAfterMs: parseRetryAfter(res.headers['retry-after']),
          durationMs: elapsed(),
          error: ok ? null : `HTTP ${status}`,
          refused: false,
          responsePreview: Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8'),
          truncated,
        });
      };
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        kept += chunk.length;
        // Past the cap nothing more is read: the answer is complete as far as we care, and a
        // receiver streaming without end must not hold the connection (or the memory).
        if (kept > maxBytes) {
          answer(true);
          res.destroy();
          req.destroy();
        }
      });
      res.on('error', (err) => finish(failed(err, res.statusCode ?? null)));
      res.on('end', () => answer(false));
    });
    req.end(body ?? undefined);
  });
}
