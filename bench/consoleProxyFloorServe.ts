/**
 * The child process of `bench/consoleProxyFloor.ts`: what `svc serve` runs (product API, console and
 * its proxy, metrics, a worker child; from the build in `FLOOR_TREE/dist/`, or from the sources with
 * `FLOOR_TREE=tsx`), plus two forwarders to the same product API in the same process and thread, each
 * on its own port, that do the least a forwarder can (three of them):
 *
 * - `FLOOR_UNDICI_PORT`: node's HTTP server and one undici `Pool.dispatch` per request, the browser's
 *   raw header lines passed as they are and the answer's raw header lines written back as they are
 *   (no filtering, no cookie check, no added header): our proxy minus every rule it keeps.
 * - `FLOOR_HTTP_PORT`: the same with node's own client (`http.request` on a keep-alive `Agent`, one
 *   socket per browser connection's worth of load), parsed headers forwarded, raw header lines back.
 * - `FLOOR_PIPE_PORT`: a `net` socket piped to a socket to the product API, bytes unchanged, no HTTP
 *   parsing at all: one more loopback hop through a Node process and nothing else.
 *
 * The environment is `svc serve`'s (DATABASE_URL, the ports, CONSOLE_PROXY_SECRET …). Stops on SIGTERM.
 * With the benchmark's --one-thread it is imported into the benchmark's own process instead (the
 * environment set first), so that client, forwarders and product API share one thread.
 */
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Dispatcher, Pool } from 'undici';
import type * as Processes from '../scripts/processes.ts';
import type * as ConfigModule from '../lib/config.ts';

const tree = process.env.FLOOR_TREE ?? '.';
const module = (name: string) =>
  tree === 'tsx' ? pathToFileURL(path.resolve(`${name}.ts`)).href : pathToFileURL(path.resolve(tree, 'dist', `${name}.js`)).href;
const { startProcess } = (await import(module('scripts/processes'))) as typeof Processes;
const { loadConfig } = (await import(module('lib/config'))) as typeof ConfigModule;

const config = loadConfig();
const running = await startProcess(config, { api: true, worker: true, console: true });
const productUrl = new URL(running.product!.url);
const origin = productUrl.origin;

/** undici's raw handler with nothing in it but the relay. */
class Relay implements Dispatcher.DispatchHandler {
  constructor(private readonly res: http.ServerResponse) {}
  onConnect(): void {}
  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    const headers: string[] = new Array(rawHeaders.length);
    for (let i = 0; i < rawHeaders.length; i++) headers[i] = rawHeaders[i].toString('latin1');
    this.res.writeHead(statusCode, headers);
    return true;
  }
  onData(chunk: Buffer): boolean {
    return this.res.write(chunk);
  }
  onComplete(): void {
    this.res.end();
  }
  onError(): void {
    this.res.destroy();
  }
}
const pool = new Pool(origin, { keepAliveTimeout: 4_000 });
const undiciFloor = http.createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
  const method = req.method as Dispatcher.HttpMethod;
  pool.dispatch({ origin, path: req.url ?? '/', method, headers: req.rawHeaders, body: method === 'GET' || method === 'HEAD' ? null : req }, new Relay(res));
});

const agent = new http.Agent({ keepAlive: true, scheduling: 'lifo' });
const httpFloor = http.createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
  const upstream = http.request(
    { host: productUrl.hostname, port: productUrl.port, path: req.url, method: req.method, headers: req.headers, agent },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      answer.on('data', (chunk: Buffer) => res.write(chunk));
      answer.on('end', () => res.end());
    },
  );
  upstream.on('error', () => res.destroy());
  if (req.method === 'GET' || req.method === 'HEAD') upstream.end();
  else req.pipe(upstream);
});

const pipeFloor = net.createServer({ noDelay: true }, (browser) => {
  const upstream = net.connect({ host: productUrl.hostname, port: Number(productUrl.port), noDelay: true });
  browser.pipe(upstream);
  upstream.pipe(browser);
  browser.on('error', () => upstream.destroy());
  upstream.on('error', () => browser.destroy());
});

const listen = (server: net.Server, port: number) => new Promise<void>((resolve) => server.listen(port, config.HOST, resolve));
await listen(undiciFloor, Number(process.env.FLOOR_UNDICI_PORT));
await listen(httpFloor, Number(process.env.FLOOR_HTTP_PORT));
await listen(pipeFloor, Number(process.env.FLOOR_PIPE_PORT));

/** Stops the forwarders and the `svc serve` roles (the benchmark's --one-thread mode calls it itself). */
export async function stopFloor(): Promise<void> {
  undiciFloor.closeAllConnections();
  undiciFloor.close();
  httpFloor.closeAllConnections();
  httpFloor.close();
  pipeFloor.close();
  await pool.close();
  await running.stop();
}
process.once('SIGTERM', () => void stopFloor().finally(() => process.exit(0)));
