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
 * handler that is one object per request (no closures, no AbortSignal, no parsed-header objects, no
 * intermediate stream; `bench/consoleProxyHop.ts` measures what is left), headers copied once
 * as flat [name, value, …] arrays both ways, and the response written with one `writeHead`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Dispatcher, Pool, errors as undiciErrors } from 'undici';
import type { Logger } from '../../lib/logger.ts';
import { PUBLIC_PATHS } from '../publicPaths.ts';
import { securityHeaders } from './securityHeaders.ts';

const ADMIN_SESSION = 'svc_admin_session';
const TENANT_SESSION = 'svc_tenant_session';
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

/** A session cookie with a value, found in one pass over the header without splitting it into pairs. */
export function hasSessionCookie(cookieHeader: string | undefined): boolean {
  if (!cookieHeader) return false;
  for (let start = 0; start < cookieHeader.length; ) {
    let end = cookieHeader.indexOf(';', start);
    if (end === -1) end = cookieHeader.length;
    const eq = cookieHeader.indexOf('=', start);
    if (eq !== -1 && eq < end) {
      const name = cookieHeader.slice(start, eq).trim();
      if ((name === ADMIN_SESSION || name === TENANT_SESSION) && cookieHeader.slice(eq + 1, end).trim() !== '') return true;
    }
    start = end + 1;
  }
  return false;
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

/** The exchange a response belongs to, for the one shared 'close' listener (no closure per request). */
const kExchange = Symbol('proxy exchange');
type ProxiedResponse = ServerResponse & { [kExchange]?: Exchange };

function onResponseClose(this: ProxiedResponse): void {
  const exchange = this[kExchange];
  if (!exchange || this.writableFinished) return;
  exchange.closed = true;
  exchange.abortRequest?.();
}

/**
 * One forwarded request: undici's raw handler (status and header lines as they arrived, body chunks
 * with backpressure). A class so that a request costs one object, not a handful of closures.
 */
class Exchange implements Dispatcher.DispatchHandler {
  abortRequest: ((err?: Error) => void) | null = null;
  /** The browser went away before the answer was written whole. */
  closed = false;
  private resumeBody: (() => void) | null = null;
  private drainHooked = false;

  constructor(
    private readonly res: ProxiedResponse,
    private readonly logger: Logger,
  ) {}

  onConnect(abortRequest: (err?: Error) => void): void {
    this.abortRequest = abortRequest;
    if (this.closed) abortRequest();
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resumeBody: () => void): boolean {
    this.resumeBody = resumeBody;
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
    if (ownSecurityHeaders) for (const [name, value] of securityHeaders) headers.push(name, value);
    else {
      const present = new Set(headers.filter((_, j) => j % 2 === 0));
      for (const [name, value] of securityHeaders) if (!present.has(name)) headers.push(name, value);
    }
    this.res.writeHead(statusCode, headers);
    return true;
  }

  onData(chunk: Buffer): boolean {
    const more = this.res.write(chunk);
    // Backpressure: undici pauses until the browser's side drains (the listener only when needed).
    if (!more && !this.drainHooked) {
      this.drainHooked = true;
      this.res.on('drain', () => this.resumeBody?.());
    }
    return more;
  }

  onComplete(): void {
    this.res.end();
  }

  onError(err: Error): void {
    const res = this.res;
    if (this.closed) return;
    if (res.headersSent) {
      // The answer has started: all the browser can be told is that its connection is cut.
      this.logger.error('proxy failed', { err });
      res.destroy();
    } else if (unreachable(err)) {
      this.logger.warn('product API unavailable', { err: err.message, code: (err as NodeJS.ErrnoException).code });
      sendDetail(res, 502, 'backend unavailable');
    } else {
      this.logger.error('proxy failed', { err });
      sendDetail(res, 502, 'backend unavailable');
    }
  }
}

export function createBackendProxy(options: ProxyOptions) {
  const target = new URL(options.productUrl);
  const origin = target.origin;
  const basePath = target.pathname.replace(/\/$/, '');
  const pool = new Pool(origin, {
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
    const exchange = new Exchange(res, options.logger);
    (res as ProxiedResponse)[kExchange] = exchange;
    res.on('close', onResponseClose);
    const method = req.method as Dispatcher.HttpMethod;
    pool.dispatch({ origin, path: basePath + path, method, headers: inbound.headers, body: method === 'GET' || method === 'HEAD' ? null : req }, exchange);
  }

  return { handle, close: () => pool.close() };
}
