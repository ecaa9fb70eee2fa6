/**
 * `svc console` (and the console part of `svc serve`): builds the browser app and listens on
 * CONSOLE_PORT. It reaches the product API at PRODUCT_URL over HTTP only, as a console deployed on
 * another machine would.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../../lib/config.ts';
import type { Logger } from '../../lib/logger.ts';
import { buildAssets } from './assets.ts';
import { createConsoleApp } from './app.ts';

export interface RunningConsole {
  url: string;
  port: number;
  close(): Promise<void>;
}

type ConsoleSettings = Pick<Config, 'CONSOLE_PORT' | 'HOST' | 'PRODUCT_URL' | 'TRUST_PROXY' | 'CONSOLE_PROXY_SECRET' | 'CONSOLE_PROXY_TIMEOUT_MS'>;

export async function startConsole(config: ConsoleSettings, logger: Logger): Promise<RunningConsole> {
  const assets = await buildAssets();
  if (!config.CONSOLE_PROXY_SECRET) {
    logger.warn('CONSOLE_PROXY_SECRET is unset: the product API sees every console user at the console’s address (one shared login rate limit)');
  }
  const app = createConsoleApp(assets, {
    productUrl: config.PRODUCT_URL,
    trustProxy: config.TRUST_PROXY,
    consoleSecret: config.CONSOLE_PROXY_SECRET,
    timeoutMs: config.CONSOLE_PROXY_TIMEOUT_MS,
    logger,
  });
  const server = http.createServer({ keepAliveTimeout: 5_000 }, app.handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.CONSOLE_PORT, config.HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), 5_000);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          void app.close().then(resolve, resolve);
        });
        server.closeIdleConnections();
      }),
  };
}
