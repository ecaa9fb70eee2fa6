/**
 * GET /v1/realtime: the WebSocket of CONTRACT.md on the platform HTTP server (the `ws` package).
 *
 * - Authenticated like REST: the bearer token in `Authorization` or as the subprotocol
 *   `bearer.<token>`, resolved by the platform authenticator; scope `events:read`. A missing, bad
 *   or under-scoped token completes the handshake and closes at once with 1008 (policy violation),
 *   so that clients can tell it from a network failure.
 * - Scoped to the token's workspace; `notification.created` only reaches its member.
 * - `?after_sequence=N` resumes: first what the event log holds after N, then the live stream.
 * - Documented in /openapi.json as GET /v1/realtime (routes.ts), whose plain-GET answer is 426.
 * - Upgrades bypass express, so they are not counted by the REST rate limit.
 * - Authority is re-checked while the stream is open (issue 26): every change that can end it
 *   (member removed or role changed, SCIM deactivation, token family revoked, API key or
 *   service-account token revoked, sso_required or mfa_required switched on) announces its
 *   workspace on `svc_authority`, and that workspace's streams are re-authenticated at once; token
 *   expiry is checked every REALTIME_AUTHORITY_SWEEP_MS without the database, and every stream is
 *   re-authenticated every REALTIME_AUTHORITY_RECHECK_MS in case an announcement was missed. A stream
 *   that lost its authority closes with 4401 (the token no longer authenticates: refresh or sign in
 *   again, then resume) or 4403 (signed in but no longer allowed: the reason is the error code,
 *   `sso_required`, `mfa_required` or `forbidden`; the same sign-in will not be let back in).
 * - A client whose unsent data passes REALTIME_MAX_BUFFERED_BYTES is dropped (its connection is cut;
 *   it resumes from its last sequence), never buffered without bound; every REALTIME_PING_MS the
 *   server pings, and a client that did not answer the previous ping is terminated.
 */
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { decodeJwt } from 'jose';
import { WebSocketServer, type WebSocket } from 'ws';
import { AppError } from '../../../lib/errors.ts';
import type { AppContext } from '../../../lib/context.ts';
import { createPlatformAuthenticator } from '../auth/authenticator.ts';
import type { PlatformAuthenticator, Principal } from '../principal.ts';
import { RealtimeHub } from './hub.ts';
import { realtimeQuery } from './routes.ts';

export const REALTIME_PATH = '/v1/realtime';
/** Close codes of a stream whose authority ended (documented in /openapi.json and docs/api.md). */
export const CLOSE_UNAUTHENTICATED = 4401;
export const CLOSE_FORBIDDEN = 4403;
const BEARER_PROTOCOL = 'bearer.';

export interface RealtimeOptions {
  pingIntervalMs?: number;
  maxBufferedBytes?: number;
  authenticator?: PlatformAuthenticator;
  /** How often token expiry is checked (no database). */
  authoritySweepMs?: number;
  /** How often every stream is re-authenticated against the database, whatever was announced. */
  authorityRecheckMs?: number;
}

interface OpenStream {
  token: string;
  req: http.IncomingMessage;
  workspaceId: string;
  /** `exp` of an access JWT; null for opaque tokens (their expiry is checked by re-authentication). */
  expiresAtMs: number | null;
  checking: boolean;
}

const expiryOf = (token: string): number | null => {
  try {
    const exp = decodeJwt(token).exp;
    return typeof exp === 'number' ? exp * 1000 : null;
  } catch {
    return null;
  }
};

export interface RealtimeServer {
  hub: RealtimeHub;
  close(): Promise<void>;
}

function tokenOf(req: http.IncomingMessage): string | null {
  const header = req.headers.authorization;
  const match = header ? /^Bearer[ ]+([^\s]+)\s*$/i.exec(header) : null;
  if (match) return match[1];
  const protocols = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
  const bearer = protocols.find((p) => p.startsWith(BEARER_PROTOCOL));
  return bearer ? bearer.slice(BEARER_PROTOCOL.length) : null;
}

/** `after_sequence` of the query string (the documented query of GET /v1/realtime): a non-negative integer, or null when absent; undefined when malformed. */
function afterSequenceOf(req: http.IncomingMessage): number | null | undefined {
  const parsed = realtimeQuery.safeParse(Object.fromEntries(new URL(req.url ?? '/', 'http://localhost').searchParams));
  if (!parsed.success) return undefined;
  return parsed.data.after_sequence ?? null;
}

export async function startRealtime(app: AppContext, server: http.Server, options: RealtimeOptions = {}): Promise<RealtimeServer> {
  const pingIntervalMs = options.pingIntervalMs ?? app.config.REALTIME_PING_MS;
  const maxBuffered = options.maxBufferedBytes ?? app.config.REALTIME_MAX_BUFFERED_BYTES;
  const authenticator = options.authenticator ?? createPlatformAuthenticator(app);
  const hub = new RealtimeHub(app);
  await hub.start();
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: 4096, // clients only answer pings; nothing large is read from them
    // Prefer a protocol that is not the bearer token, so that the token is not echoed back.
    handleProtocols: (protocols) => [...protocols].find((p) => !p.startsWith(BEARER_PROTOCOL)) ?? [...protocols][0] ?? false,
  });
  const alive = new WeakMap<WebSocket, boolean>();
  const streams = new Map<WebSocket, OpenStream>();

  /** Re-authenticates one stream; closes it with 4401 or 4403 when its authority ended. */
  async function recheck(ws: WebSocket, stream: OpenStream) {
    if (stream.checking || ws.readyState !== ws.OPEN) return;
    stream.checking = true;
    try {
      const principal = await authenticator.bearer(stream.token, stream.req as never);
      if (!principal) return endStream(ws, CLOSE_UNAUTHENTICATED, 'token revoked or expired');
      if (!principal.scopes.has('events:read')) return endStream(ws, CLOSE_FORBIDDEN, 'forbidden');
    } catch (err) {
      if (err instanceof AppError) return endStream(ws, CLOSE_FORBIDDEN, err.code);
      app.logger.warn('realtime re-authentication failed', { err });
    } finally {
      stream.checking = false;
    }
  }
  function endStream(ws: WebSocket, code: number, reason: string) {
    streams.delete(ws);
    ws.close(code, reason);
  }
  const stopListening = hub.onAuthorityChange((workspaceId) => {
    for (const [ws, stream] of streams) if (workspaceId === null || stream.workspaceId === workspaceId) void recheck(ws, stream);
  });
  const sweeper = setInterval(() => {
    const now = app.clock.now().getTime();
    for (const [ws, stream] of streams) if (stream.expiresAtMs !== null && stream.expiresAtMs <= now) endStream(ws, CLOSE_UNAUTHENTICATED, 'token expired');
  }, options.authoritySweepMs ?? 1000);
  sweeper.unref();
  const rechecker = setInterval(() => {
    for (const [ws, stream] of streams) void recheck(ws, stream);
  }, options.authorityRecheckMs ?? 60_000);
  rechecker.unref();

  const onUpgrade = (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== REALTIME_PATH) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => void accept(ws, req));
  };

  async function accept(ws: WebSocket, req: http.IncomingMessage) {
    ws.on('error', () => ws.terminate());
    // Alive from the handshake on: authentication may outlast a ping interval under load.
    alive.set(ws, true);
    ws.on('pong', () => alive.set(ws, true));
    const refuse = (reason: string) => ws.close(1008, reason);
    const token = tokenOf(req);
    let principal: Principal | null = null;
    try {
      principal = token ? await authenticator.bearer(token, req as never) : null;
    } catch (err) {
      app.logger.warn('realtime authentication failed', { err });
    }
    if (!principal) return refuse('Missing or invalid bearer token');
    if (!principal.scopes.has('events:read')) return refuse('This stream requires the scope events:read');
    const after = afterSequenceOf(req);
    if (after === undefined) return refuse('after_sequence must be a non-negative integer');

    let dropped = false;
    const send = (message: Buffer) => {
      if (dropped || ws.readyState !== ws.OPEN) return false;
      if (ws.bufferedAmount > maxBuffered) {
        dropped = true;
        app.logger.warn('realtime client too slow; dropped', { workspace_id: principal.workspaceId, buffered: ws.bufferedAmount });
        ws.terminate();
        return false;
      }
      ws.send(message, { binary: false });
      return true;
    };
    const stream: OpenStream = { token: token!, req, workspaceId: principal.workspaceId, expiresAtMs: expiryOf(token!), checking: false };
    streams.set(ws, stream);
    const unsubscribe = await hub.subscribe({ workspaceId: principal.workspaceId, userId: principal.userId, send }, after);
    const ended = () => {
      streams.delete(ws);
      unsubscribe();
    };
    if (ws.readyState !== ws.OPEN) return ended();
    ws.on('close', ended);
    // Anything that ended its authority while it subscribed is caught here.
    void recheck(ws, stream);
  }

  server.on('upgrade', onUpgrade);
  const pinger = setInterval(() => {
    for (const ws of wss.clients) {
      if (!alive.get(ws)) {
        ws.terminate();
        continue;
      }
      alive.set(ws, false);
      ws.ping();
    }
  }, pingIntervalMs);
  pinger.unref();

  return {
    hub,
    async close() {
      clearInterval(pinger);
      clearInterval(sweeper);
      clearInterval(rechecker);
      stopListening();
      server.off('upgrade', onUpgrade);
      for (const ws of wss.clients) ws.close(1001, 'server shutting down');
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      for (const ws of wss.clients) ws.terminate();
      await hub.stop();
    },
  };
}
