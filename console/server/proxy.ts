/**
 * `/api/backend/*`: the console's proxy to the product API (product-api.md "Console proxy rules").
 *
 * - Without either session cookie only the ten public paths pass; everything else is 401 `no session`.
 * - The Cookie header is forwarded; every inbound `x-svc-*` header is dropped; the browser's address
 *   (TRUST_PROXY semantics: first X-Forwarded-For value when trusted, else the socket peer) goes in
 *   `x-svc-client-ip`, with the shared `x-svc-console-secret` that makes the product API believe it.
 * - Bodies stream both ways (uploads and the xlsx export are never held whole); every Set-Cookie of
 *   the backend is relayed as its own header line (node's multi-value setHeader, never comma-joined).
 * - A backend that cannot be reached, resets, or sends no headers within the timeout: 502
 *   `backend unavailable` (or, once the answer has started, the browser's connection is cut).
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Agent, errors as undiciErrors } from 'undici';
import type { Logger } from '../../lib/logger.ts';
import { clientAddress } from '../../lib/clientAddress.ts';
import { PUBLIC_PATHS } from '../publicPaths.ts';

const SESSION_COOKIES = ['svc_admin_session', 'svc_tenant_session'];
export const CONNECT_TIMEOUT_MS = 5_000;

// RFC 9110 §7.6.1 connection-specific fields, plus what the proxy sets itself.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);

export interface ProxyOptions {
  productUrl: string;
  trustProxy: boolean;
  /** Sent as `x-svc-console-secret`; without it the product API ignores `x-svc-client-ip`. */
  consoleSecret?: string;
  /** How long to wait for the backend's response headers. */
  timeoutMs: number;
  logger: Logger;
}

export function hasSessionCookie(cookieHeader: string | undefined): boolean {
  if (!cookieHeader) return false;
  return cookieHeader.split(';').some((pair) => {
    const eq = pair.indexOf('=');
    return eq > 0 && SESSION_COOKIES.includes(pair.slice(0, eq).trim()) && pair.slice(eq + 1).trim() !== '';
  });
}

function forwardedHeaders(req: IncomingMessage, options: ProxyOptions): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || name.startsWith('x-svc-') || name.startsWith('x-forwarded-') || name === 'forwarded') continue;
    out[name] = value;
  }
  out['x-svc-client-ip'] = clientAddress(req, options.trustProxy);
  if (options.consoleSecret) out['x-svc-console-secret'] = options.consoleSecret;
  return out;
}

function relayHeaders(res: ServerResponse, headers: IncomingHttpHeaders): void {
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    // An array (every Set-Cookie) becomes one header line per value.
    res.setHeader(name, value);
  }
}

function sendDetail(res: ServerResponse, status: number, detail: string): void {
  const body = JSON.stringify({ detail });
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
  res.end(body);
}

const unreachable = (err: unknown) =>
  err instanceof undiciErrors.UndiciError ||
  ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND'].includes((err as NodeJS.ErrnoException).code ?? '');

export function createBackendProxy(options: ProxyOptions) {
  const target = new URL(options.productUrl);
  const agent = new Agent({ connect: { timeout: CONNECT_TIMEOUT_MS }, headersTimeout: options.timeoutMs, bodyTimeout: 0, keepAliveTimeout: 4_000 });

  /** `path` is what follows `/api/backend`, with its query string. */
  async function handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const pathname = path.split('?')[0];
    if (!PUBLIC_PATHS.has(pathname) && !hasSessionCookie(req.headers.cookie)) return sendDetail(res, 401, 'no session');

    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    try {
      // stream(): the backend's body is written straight into the browser's response, no Readable between.
      await agent.stream(
        {
          origin: target.origin,
          path: `${target.pathname.replace(/\/$/, '')}${path}`,
          method: req.method as 'GET',
          headers: forwardedHeaders(req, options),
          body: hasBody ? req : null,
          signal: abort.signal,
        },
        ({ statusCode, headers }) => {
          res.statusCode = statusCode;
          relayHeaders(res, headers);
          return res;
        },
      );
    } catch (err) {
      if (abort.signal.aborted) return;
      if (!res.headersSent && unreachable(err)) {
        options.logger.warn('product API unavailable', { err: (err as Error).message, code: (err as NodeJS.ErrnoException).code });
        return sendDetail(res, 502, 'backend unavailable');
      }
      options.logger.error('proxy failed', { err });
      if (!res.headersSent) return sendDetail(res, 502, 'backend unavailable');
      res.destroy();
    }
  }

  return { handle, close: () => agent.close() };
}
