/** Listening and graceful closing of HTTP servers: stop accepting, let in-flight requests finish. */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
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

export async function listen(handler: RequestListener, port: number, host: string): Promise<RunningServer> {
  const server = http.createServer({ keepAliveTimeout: 5_000 }, handler);
  server.on('clientError', (err, socket) => answerClientError(handler, err, socket));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const actual = (server.address() as AddressInfo).port;
  const displayHost = host.includes(':') ? `[${host}]` : host;
  return {
    server,
    port: actual,
    url: `http://${displayHost === '0.0.0.0' ? '127.0.0.1' : displayHost}:${actual}`,
    close: (timeoutMs = 20_000) =>
      new Promise<void>((resolve) => {
        // close() stops accepting and resolves once in-flight requests are done; idle keep-alive
        // sockets are closed at once, and stragglers are cut after the timeout.
        const timer = setTimeout(() => server.closeAllConnections(), timeoutMs);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
