/**
 * Prometheus metrics of this process: prom-client's default process metrics, HTTP request
 * durations, job outcomes and durations, and the job queue depth (read from `job_runs` at scrape
 * time). One registry per process; every api and worker process serves it on METRICS_PORT.
 */
import client from 'prom-client';

export const registry = new client.Registry();

client.collectDefaultMetrics({ register: registry });
// prom-client also exposes `*_total` gauges (sums of the per-type gauges it keeps), which promtool's
// lint rejects: the suffix is reserved for counters. The per-type gauges carry the same numbers.
for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) {
  registry.removeSingleMetric(name);
}

export const httpRequestDuration = new client.Histogram({
  name: 'svc_http_request_duration_seconds',
  help: 'HTTP request duration by surface, method, route template and status code.',
  labelNames: ['surface', 'method', 'route', 'status'],
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const jobsCompleted = new client.Counter({
  name: 'svc_jobs_total',
  help: 'Job attempts by task and outcome (succeeded, failed, retried, skipped, interrupted).',
  labelNames: ['task', 'outcome'],
  registers: [registry],
});

export const jobDuration = new client.Histogram({
  name: 'svc_job_duration_seconds',
  help: 'Duration of job attempts by task and outcome.',
  labelNames: ['task', 'outcome'],
  buckets: [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 1800],
  registers: [registry],
});

type MetricsSource = () => Promise<client.MetricObjectWithValues<client.MetricValue<string>>[]>;
const metricsSources = new Set<MetricsSource>();

/** Adds another process's metrics (the worker process of `svc serve`) to this process's scrape. */
export function registerMetricsSource(source: MetricsSource): () => void {
  metricsSources.add(source);
  return () => metricsSources.delete(source);
}

/** This process's metrics in the Prometheus text format, merged with those of its sources. */
export async function scrapeMetrics(): Promise<string> {
  if (!metricsSources.size) return registry.metrics();
  const all = await Promise.all([registry.getMetricsAsJSON(), ...[...metricsSources].map((source) => source())]);
  return client.AggregatorRegistry.aggregate(all).metrics();
}

type DepthReader = () => Promise<Array<{ kind: string; status: string; count: number }>>;
const depthReaders = new Set<DepthReader>();

/** Registers how this process reads queue depth (a database query); removed again on shutdown. */
export function registerQueueDepthReader(reader: DepthReader): () => void {
  depthReaders.add(reader);
  return () => depthReaders.delete(reader);
}

new client.Gauge({
  name: 'svc_job_queue_depth',
  help: 'Jobs waiting or running, by task and status, read from the graphile-worker queue at scrape time.',
  labelNames: ['task', 'status'],
  registers: [registry],
  async collect() {
    this.reset();
    const [reader] = depthReaders;
    if (!reader) return;
    try {
      for (const row of await reader()) this.set({ task: row.kind, status: row.status }, row.count);
    } catch {
      // A scrape must not fail because the database is briefly unavailable.
    }
  },
});

export const jobQueueLatency = new client.Histogram({
  name: 'svc_job_queue_latency_seconds',
  help: 'Time from when a job attempt was due (graphile-worker run_at) to when a worker started it, by task.',
  labelNames: ['task'],
  buckets: [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 1800],
  registers: [registry],
});

export const engineStageDuration = new client.Histogram({
  name: 'svc_engine_stage_duration_seconds',
  help: 'Duration of engine stages by stage name.',
  labelNames: ['stage'],
  buckets: [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
  registers: [registry],
});

export const webhookDeliveries = new client.Counter({
  name: 'svc_webhook_deliveries_total',
  help: 'Outbound webhook delivery attempts by outcome (succeeded, failed, retried, disabled).',
  labelNames: ['outcome'],
  registers: [registry],
});
