/**
 * `/api/backend/*`: the console's proxy to the product API (product-api.md "Console proxy rules").
 *
 * - Without either session cookie only the ten public paths pass; everything else is 401 `no session`.
 * - The Cookie header is forwarded; every inbound `x-svc-*` header is dropped; the browser's address
 *   (TRUST_PROXY semantics: first X-Forwarded-For value when trusted, else the socket peer) goes in
 *   `x-svc-client-ip`, with the shared `x-svc-console-secret` that makes the product API believe it.
 * - Bodies stream both ways (uploads and the xlsx export are never held whole); every Set-Cookie of
 *   the backend is relayed as its own header line (raw header pairs, never comma-joined).
 * - A backend that cannot be reached, resets, or sends no headers within the timeout: 502
 *   `backend unavailable` (or, once the answer has started, the browser's connection is cut).
 *
 * Cost per request (issue 29: the hop adds at most 20% to the call it forwards): one undici `Pool`
 * for the one origin (keep-alive connections, no per-request origin lookup), a raw `dispatch()`
 * handler (no AbortSignal, no parsed-header objects, no intermediate stream), headers copied once
 * as flat [name, value, …] arrays both ways, and the response written with one `writeHead`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Dispatcher, Pool, errors as undiciErrors } from 'undici';
import type { Logger } from '../../lib/logger.ts';
import { PUBLIC_PATHS } from '../publicPaths.ts';
import { securityHeaders } from './securityHeaders.ts';

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
const SECURITY_HEADER_NAMES = new Set(securityHeaders.map(([name]) => name));

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

/** Drops what must not cross the hop: connection-specific fields, x-svc-*, forwarding headers. */
const dropped = (lower: string) => HOP_BY_HOP.has(lower) || lower.startsWith('x-svc-') || lower.startsWith('x-forwarded-') || lower === 'forwarded';

interface Inbound {
  /** Flat [name, value, …] for undici. */
  headers: string[];
  cookie: string | undefined;
}

/**
 * One pass over the browser's raw header lines: what to forward, the Cookie (for the session check)
 * and the client address (TRUST_PROXY semantics: the first X-Forwarded-For value when trusted, else
 * the socket peer; lib/clientAddress.ts is the same rule over the parsed headers).
 */
function readInbound(req: IncomingMessage, options: ProxyOptions): Inbound {
  const raw = req.rawHeaders;
  const headers: string[] = [];
  let cookie: string | undefined;
  let forwardedFor: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i];
    const lower = name.toLowerCase();
    if (lower === 'x-forwarded-for') forwardedFor ??= raw[i + 1];
    if (dropped(lower)) continue;
    // Several Cookie lines are one header joined by "; " (RFC 9113 §8.2.3 and node's own parsing).
    if (lower === 'cookie') cookie = cookie === undefined ? raw[i + 1] : `${cookie}; ${raw[i + 1]}`;
    else headers.push(name, raw[i + 1]);
  }
  if (cookie !== undefined) headers.push('cookie', cookie);
  const first = options.trustProxy ? forwardedFor?.split(',')[0]?.trim() : undefined;
  const clientIp = first || (req.socket.remoteAddress ?? 'unknown');
  headers.push('x-svc-client-ip', clientIp);
  if (options.consoleSecret) headers.push('x-svc-console-secret', options.consoleSecret);
  return { headers, cookie };
}

function sendDetail(res: ServerResponse, status: number, detail: string): void {
  const body = JSON.stringify({ detail });
  for (const [name, value] of securityHeaders) res.setHeader(name, value);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
  res.end(body);
}

const unreachable = (err: unknown) =>
  err instanceof undiciErrors.UndiciError ||
  ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND'].includes((err as NodeJS.ErrnoException).code ?? '');

export function createBackendProxy(options: ProxyOptions) {
  const target = new URL(options.productUrl);
  const basePath = target.pathname.replace(/\/$/, '');
  const pool = new Pool(target.origin, {
    connect: { timeout: CONNECT_TIMEOUT_MS },
    headersTimeout: options.timeoutMs,
    bodyTimeout: 0,
    keepAliveTimeout: 4_000,
  });

  /** `path` is what follows `/api/backend`, with its query string. */
  function handle(req: IncomingMessage, res: ServerResponse, path: string): void {
    const inbound = readInbound(req, options);
    const query = path.indexOf('?');
    const pathname = query === -1 ? path : path.slice(0, query);
    if (!PUBLIC_PATHS.has(pathname) && !hasSessionCookie(inbound.cookie)) {
      sendDetail(res, 401, 'no session');
      return;
    }

    let abort: ((err?: Error) => void) | null = null;
    let closed = false;
    res.once('close', () => {
      if (res.writableFinished) return;
      closed = true;
      abort?.();
    });
    let resume: (() => void) | null = null;
    const onDrain = () => resume?.();
    let drainHooked = false;
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';

    const handler: Dispatcher.DispatchHandler = {
      onConnect(abortRequest) {
        abort = abortRequest;
        if (closed) abortRequest();
      },
      onHeaders(statusCode, rawHeaders, resumeBody) {
        resume = resumeBody;
        const headers: string[] = [];
        let ownSecurityHeaders = true;
        for (let i = 0; i < rawHeaders.length; i += 2) {
          const name = rawHeaders[i].toString('latin1').toLowerCase();
          if (HOP_BY_HOP.has(name)) continue;
          if (SECURITY_HEADER_NAMES.has(name)) ownSecurityHeaders = false;
          // Every Set-Cookie stays its own line: writeHead with a flat array keeps repeated names.
          headers.push(name, rawHeaders[i + 1].toString('latin1'));
        }
        // The backend's own value of a security header wins, as a later setHeader would.
        const present = ownSecurityHeaders ? null : new Set(headers.filter((_, j) => j % 2 === 0));
        for (const [name, value] of securityHeaders) if (!present?.has(name)) headers.push(name, value);
        res.writeHead(statusCode, headers);
        return true;
      },
      onData(chunk) {
        const more = res.write(chunk);
        // Backpressure: undici pauses until the browser's side drains (the listener only when needed).
        if (!more && !drainHooked) {
          drainHooked = true;
          res.on('drain', onDrain);
        }
        return more;
      },
      onComplete() {
        res.end();
      },
      onError(err) {
        if (closed) return;
        if (!res.headersSent && unreachable(err)) {
          options.logger.warn('product API unavailable', { err: err.message, code: (err as NodeJS.ErrnoException).code });
          return sendDetail(res, 502, 'backend unavailable');
        }
        options.logger.error('proxy failed', { err });
        if (!res.headersSent) return sendDetail(res, 502, 'backend unavailable');
        res.destroy();
      },
    };
    pool.dispatch(
      {
        origin: target.origin,
        path: basePath + path,
        method: req.method as Dispatcher.HttpMethod,
        headers: inbound.headers,
        body: hasBody ? req : null,
      },
      handler,
    );
  }

  return { handle, close: () => pool.close() };
}
