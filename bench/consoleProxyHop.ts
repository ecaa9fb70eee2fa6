/**
 * The console proxy's own cost, apart from the product API: a stand-in backend that answers at once
 * with the headers and a body shaped like `GET /admin/me` (request id, JSON, keep-alive), the console
 * server in front of it, and one keep-alive client, all in this thread. Per round: `--requests` direct
 * calls, then as many through `/api/backend`, then direct again; the CPU time of this process
 * (user + system, `process.cpuUsage`) per proxied call minus per direct call is what the hop costs,
 * and the two wall-clock p50s give its added latency. Median over rounds. Profile the hop with
 * `node --cpu-prof --import tsx bench/consoleProxyHop.ts`.
 *
 * `--compare <module>` (e.g. `console/server/proxyHttp.ts`, any module exporting `createBackendProxy`)
 * measures that proxy and console/server/proxy.ts in the same rounds, each behind a bare server that
 * routes `/api/backend/` to it as console/server/app.ts does, in alternating order round by round.
 *
 * Run: `npm run bench:consoleProxyHop` (flags: --rounds, --requests, --compare). Results: docs/benchmarks.md.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import * as currentProxy from '../console/server/proxy.ts';
import { startConsole } from '../console/server/start.ts';
import { createLogger } from '../lib/logger.ts';
import { benchArgs } from './args.ts';
import { intFlag, loadAverage, median } from './measure.ts';

const { values } = benchArgs(import.meta.url, {
  options: {
    rounds: { type: 'string', default: '9' },
    requests: { type: 'string', default: '2000' },
    compare: { type: 'string' },
  },
});
const rounds = intFlag('rounds', values.rounds);
const requests = intFlag('requests', values.requests);
const loadAtStart = loadAverage();

const body = JSON.stringify({
  id: randomUUID(),
  email: 'bench@example.com',
  full_name: 'Bench',
  role: 'onboarding_admin',
  permissions: ['tenants:read', 'tenants:write', 'jobs:read', 'jobs:write'],
  csrf_token: randomUUID(),
});
const backend = http.createServer({ keepAliveTimeout: 5_000 }, (_req, res) => {
  res.setHeader('X-Request-Id', randomUUID());
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
const backendUrl = `http://127.0.0.1:${(backend.address() as AddressInfo).port}`;
const consoleServer = await startConsole(
  {
    CONSOLE_PORT: 0,
    HOST: '127.0.0.1',
    PRODUCT_URL: backendUrl,
    TRUST_PROXY: false,
    CONSOLE_PROXY_SECRET: 'bench-console-proxy-secret-0123456789abcdef',
    CONSOLE_PROXY_TIMEOUT_MS: 30_000,
  },
  createLogger('silent'),
);
const proxied = `${consoleServer.url}/api/backend/admin/me`;
const proxyOptions = {
  productUrl: backendUrl,
  trustProxy: false,
  consoleSecret: 'bench-console-proxy-secret-0123456789abcdef',
  timeoutMs: 30_000,
  logger: createLogger('silent'),
};
type ProxyModule = Pick<typeof currentProxy, 'createBackendProxy'>;
/** A bare server in front of one proxy implementation, routing as console/server/app.ts does. */
async function bareConsole(module: ProxyModule) {
  const proxy = module.createBackendProxy(proxyOptions);
  const server = http.createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
    const url = req.url ?? '/';
    if (url.startsWith('/api/backend/')) return proxy.handle(req, res, url.slice('/api/backend'.length));
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/backend/admin/me`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await proxy.close();
    },
  };
}
/** The proxies measured: the console itself, or with --compare two bare servers side by side. */
const proxies: Array<{ name: string; url: string; close?: () => Promise<void> }> = values.compare
  ? [
      { name: 'console/server/proxy.ts', ...(await bareConsole(currentProxy)) },
      { name: values.compare, ...(await bareConsole((await import(pathToFileURL(values.compare).href)) as ProxyModule)) },
    ]
  : [{ name: 'the console (startConsole)', url: proxied }];
const direct = `${backendUrl}/admin/me`;

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const headers = { cookie: 'svc_admin_session=0123456789abcdef0123456789abcdef; svc_csrf=fedcba9876543210', accept: 'application/json' };
function call(url: string): Promise<number> {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers, agent }, (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 200 ? resolve(Number(process.hrtime.bigint() - started) / 1e3) : reject(new Error(`${url}: ${res.statusCode}`)),
        );
      })
      .on('error', reject);
  });
}

/** `requests` sequential calls: their p50 (µs) and this process's CPU per call (µs). */
async function series(url: string) {
  const times: number[] = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < requests; i++) times.push(await call(url));
  const used = process.cpuUsage(cpu);
  return { p50: median(times), cpu: (used.user + used.system) / requests };
}

for (let i = 0; i < 2000; i++) {
  await call(direct);
  for (const p of proxies) await call(p.url);
}
const directP50: number[] = [];
const directCpu: number[] = [];
const each = proxies.map(() => ({ added: [] as number[], cpu: [] as number[] }));
for (let round = 0; round < rounds; round++) {
  const a = await series(direct);
  // The proxies take turns going first, round by round.
  const order = proxies.map((_, i) => (i + round) % proxies.length);
  const measured: { p50: number; cpu: number }[] = [];
  for (const i of order) measured[i] = await series(proxies[i].url);
  const b = await series(direct);
  const d = { p50: (a.p50 + b.p50) / 2, cpu: (a.cpu + b.cpu) / 2 };
  directP50.push(d.p50);
  directCpu.push(d.cpu);
  measured.forEach((m, i) => {
    each[i].added.push(m.p50 - d.p50);
    each[i].cpu.push(m.cpu - d.cpu);
  });
}
const f = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
process.stdout.write(`load average at start: ${loadAtStart}\n`);
process.stdout.write(`${rounds} rounds x ${requests} requests, sequential, keep-alive, stand-in backend (GET /admin/me shape, ${body.length} B)\n`);
process.stdout.write(
  '| proxy | direct call: p50, CPU | the hop: added p50 (median of rounds) | the hop: CPU per call (median of rounds) |\n|---|---|---|---|\n',
);
proxies.forEach((p, i) =>
  process.stdout.write(
    `| ${p.name} | ${median(directP50).toFixed(0)} µs, ${median(directCpu).toFixed(0)} µs | +${median(each[i].added).toFixed(0)} µs (rounds ${f(each[i].added)}) | ${median(each[i].cpu).toFixed(0)} µs (rounds ${f(each[i].cpu)}) |\n`,
  ),
);
process.stdout.write(`load average at end: ${loadAverage()}\n`);
agent.destroy();
for (const p of proxies) await p.close?.();
await consoleServer.close();
await new Promise<void>((resolve) => backend.close(() => resolve()));
