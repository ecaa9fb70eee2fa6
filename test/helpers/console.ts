/**
 * The console in front of a real product API: `startTestApp` (fresh database, real HTTP surfaces,
 * optionally a worker) plus the console server on an ephemeral port, proxying to that product API
 * with the secret both share. `consoleClient` is a browser-like cookie jar speaking through the proxy.
 */
import { randomBytes } from 'node:crypto';
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

export async function startTestConsole(options: TestConsoleOptions = {}): Promise<TestConsole> {
  const secret = randomBytes(32).toString('base64url');
  const t = await startTestApp({ ...options, env: { CONSOLE_PROXY_SECRET: secret, ...options.env } });
  const running = await startConsole(
    {
      CONSOLE_PORT: 0,
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
