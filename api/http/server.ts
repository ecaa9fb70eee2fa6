/** Listening and graceful closing of HTTP servers: stop accepting, let in-flight requests finish. */
import http from 'node:http';
import type { RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RunningServer {
  server: http.Server;
  port: number;
  url: string;
  close(timeoutMs?: number): Promise<void>;
}

export async function listen(handler: RequestListener, port: number, host: string): Promise<RunningServer> {
  const server = http.createServer({ keepAliveTimeout: 5_000 }, handler);
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
