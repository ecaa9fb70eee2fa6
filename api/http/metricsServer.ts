/** The unauthenticated Prometheus scrape endpoint of every process (METRICS_HOST:METRICS_PORT/metrics). */
import { registry, scrapeMetrics } from '../../lib/metrics.ts';
import { listen, type RunningServer } from './server.ts';

export async function metricsHandler(): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await scrapeMetrics() };
}

export function startMetricsServer(port: number, host: string): Promise<RunningServer> {
  return listen(
    (req, res) => {
      if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found\n');
        return;
      }
      metricsHandler().then(
        ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
        () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics collection failed\n'),
      );
    },
    port,
    host,
  );
}
