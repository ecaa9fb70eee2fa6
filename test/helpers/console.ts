/**
 * The console in front of a real product API: `startTestApp` (fresh database, real HTTP surfaces,
 * optionally a worker) plus the console server on an ephemeral port, proxying to that product API
 * with the secret both share. `consoleClient` is a browser-like cookie jar speaking through the proxy.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { createLogger } from '../../lib/logger.ts';
import { startConsole, type RunningConsole } from '../../console/server/start.ts';
import { startTestApp, type TestApp, type TestAppOptions } from './app.ts';
import { ProductClient } from './product.ts';

export interface TestConsole {
  t: TestApp;
  console: RunningConsole;
  /** The console's origin, `http://127.0.0.1:<port>`. */
  url: string;
  secret: string;
  /** A cookie jar whose requests go through `/api/backend`. */
  client(ip?: string): ProductClient;
  close(): Promise<void>;
}

export interface TestConsoleOptions extends TestAppOptions {
  /** The console's own TRUST_PROXY (default on: each jar's X-Forwarded-For is its client address). */
  trustProxy?: boolean;
  /** Where the proxy sends requests (default: the test app's product server). */
  productUrl?: string;
  proxyTimeoutMs?: number;
}

/** A port free right now (the console takes it a moment later), so APP_URL can name it up front. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export async function startTestConsole(options: TestConsoleOptions = {}): Promise<TestConsole> {
  const secret = randomBytes(32).toString('base64url');
  // APP_URL is the console, as by default: the links the product mails open the console's pages.
  const port = await freePort();
  const t = await startTestApp({ ...options, env: { CONSOLE_PROXY_SECRET: secret, APP_URL: `http://127.0.0.1:${port}`, ...options.env } });
  const running = await startConsole(
    {
      CONSOLE_PORT: port,
      HOST: '127.0.0.1',
      PRODUCT_URL: options.productUrl ?? t.productServer!.url,
      TRUST_PROXY: options.trustProxy ?? true,
      CONSOLE_PROXY_SECRET: secret,
      CONSOLE_PROXY_TIMEOUT_MS: options.proxyTimeoutMs ?? 30_000,
    },
    createLogger('silent'),
  );
  return {
    t,
    console: running,
    url: running.url,
    secret,
    client: (ip?: string) => new ProductClient(`${running.url}/api/backend`, ip),
    close: async () => {
      await running.close();
      await t.close();
    },
  };
}
