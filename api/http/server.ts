/** Listening and graceful closing of HTTP servers: stop accepting, let in-flight requests finish. */
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RunningServer {
  server: http.Server;
  port: number;
  url: string;
  close(timeoutMs?: number): Promise<void>;
}

/**
 * The express setting under which a surface names the body of an error that node's HTTP parser
 * answers before the app sees the request (an oversized URL or header, a malformed request line).
 */
export const CLIENT_ERROR_BODY = 'client error body';
export type ClientErrorBody = (status: number, message: string, traceId: string) => unknown;

function answerClientError(handler: RequestListener, err: Error & { code?: string }, socket: import('node:stream').Duplex): void {
  // As node's default handler: answer only a parse error on a socket with no response under way.
  const busy = (socket as { _httpMessage?: unknown })._httpMessage;
  if (!socket.writable || busy || err.code === 'ECONNRESET' || (err as { bytesParsed?: number }).bytesParsed === undefined) return void socket.destroy();
  const setting = (handler as unknown as { get?: (name: string) => unknown }).get?.(CLIENT_ERROR_BODY) as ClientErrorBody | undefined;
  const [status, message] = err.code === 'HPE_HEADER_OVERFLOW' ? [431, 'Request header fields or URL too large'] : [400, 'Malformed HTTP request'];
  const traceId = randomUUID();
  const body = JSON.stringify(setting ? setting(status, message, traceId) : { message });
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${traceId}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function createServer(handler: RequestListener): http.Server {
  const server = http.createServer({ keepAliveTimeout: 5_000 }, handler);
  server.on('clientError', (err, socket) => answerClientError(handler, err, socket));
  return server;
}

function startListening(server: http.Server, listen: (done: () => void) => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    listen(() => {
      server.off('error', reject);
      resolve();
    });
  });
}

/**
 * Stops accepting and resolves once in-flight requests are done; idle keep-alive sockets are closed
 * at once, and stragglers are cut after the timeout.
 */
function closeGracefully(server: http.Server, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => server.closeAllConnections(), timeoutMs);
    timer.unref();
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}

export async function listen(handler: RequestListener, port: number, host: string): Promise<RunningServer> {
  const server = createServer(handler);
  await startListening(server, (done) => server.listen(port, host, done));
  const actual = (server.address() as AddressInfo).port;
  const displayHost = host.includes(':') ? `[${host}]` : host;
  return {
    server,
    port: actual,
    url: `http://${displayHost === '0.0.0.0' ? '127.0.0.1' : displayHost}:${actual}`,
    close: (timeoutMs = 20_000) => closeGracefully(server, timeoutMs),
  };
}

export interface PrivateSocketServer {
  server: http.Server;
  /** The socket file: mode 0600 in a directory of mode 0700 that only this process's user can enter. */
  path: string;
  close(timeoutMs?: number): Promise<void>;
}

/**
 * The same handler on a Unix socket private to this process (`svc serve`'s console reaches the product
 * API through it: a loopback TCP round trip costs more per send and receive). The socket lives in a
 * fresh temporary directory that closing removes, and so does the process's exit if close never ran.
 */
export async function listenOnPrivateSocket(handler: RequestListener, name: string): Promise<PrivateSocketServer> {
  const dir = mkdtempSync(join(tmpdir(), `svc-${name}-`));
  const path = join(dir, `${name}.sock`);
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  process.once('exit', removeDir);
  const server = createServer(handler);
  try {
    await startListening(server, (done) => server.listen({ path, readableAll: false, writableAll: false }, done));
    chmodSync(path, 0o600);
  } catch (err) {
    server.close();
    removeDir();
    process.off('exit', removeDir);
    throw err;
  }
  return {
    server,
    path,
    close: async (timeoutMs = 20_000) => {
      await closeGracefully(server, timeoutMs);
      removeDir();
      process.off('exit', removeDir);
    },
  };
}
