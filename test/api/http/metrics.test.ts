import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { startMetricsServer } from '../../../api/http/metricsServer.ts';
import type { RunningServer } from '../../../api/http/server.ts';
import { defineTask, enqueueJob } from '../../../jobs/runtime.ts';
import { registerQueueDepthReader } from '../../../lib/metrics.ts';
import { activeJobCounts } from '../../../sql/jobRuns.ts';
import { demoToken, eventually, startTestApp, type TestApp } from '../../helpers/app.ts';
import { request } from '../../helpers/http.ts';
import { toolAvailable } from '../../helpers/tools.ts';

const probeTask = defineTask({
  name: 'test__metrics_probe',
  payload: z.object({ n: z.number() }),
  run: async ({ n }) => ({ doubled: n * 2 }),
});
const waitingTask = defineTask({
  name: 'test__metrics_waiting',
  payload: z.object({}),
  run: async () => undefined,
});

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the text exposition into `# TYPE` families and samples. */
function parseExposition(text: string): { types: Map<string, string>; samples: Sample[] } {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) {
      types.set(type[1], type[2]);
      continue;
    }
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    assert.ok(m, `unparsable exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[k] = v;
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return { types, samples };
}

function familyOf(sampleName: string, types: Map<string, string>): string | undefined {
  if (types.has(sampleName)) return sampleName;
  const base = sampleName.replace(/_(bucket|sum|count)$/, '');
  return types.get(base) === 'histogram' || types.get(base) === 'summary' ? base : undefined;
}

function find(samples: Sample[], name: string, labels: Record<string, string>): Sample | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

function promtool(text: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('promtool', ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
    child.stdin.end(text);
  });
}

let t: TestApp;
let metrics: RunningServer;
let unregisterDepth: () => void;
let exposition: string;
let jobId: string;
const unmatchedPath = `/v1/not-a-route-${randomUUID()}`;

test.before(async () => {
  t = await startTestApp({ worker: { extraTasks: [probeTask, waitingTask] } });
  unregisterDepth = registerQueueDepthReader(() => activeJobCounts(t.app.pool));
  metrics = await startMetricsServer(0, '127.0.0.1');

  // A job that runs to completion, and two that wait in the queue.
  const { job } = await enqueueJob(t.app.pool, probeTask, { n: 21 }, { workspaceId: t.demo.workspaceId });
  jobId = job.id;
  await eventually(
    async () => {
      const { rows } = await t.app.pool.query('select status from job_runs where id = $1', [job.id]);
      return rows[0]?.status === 'succeeded' ? true : undefined;
    },
    10_000,
    'probe job to succeed',
  );
  const later = new Date(Date.now() + 3_600_000);
  await enqueueJob(t.app.pool, waitingTask, {}, { runAt: later });
  await enqueueJob(t.app.pool, waitingTask, {}, { runAt: later });

  // Requests on both surfaces: matched routes with a path parameter, and unmatched paths.
  const token = await demoToken(t);
  assert.is((await t.platform.get(`/v1/jobs/${jobId}`, { token })).status, 200);
  assert.is((await t.platform.get(unmatchedPath)).status, 404);
  assert.is((await t.product.get('/health/ready')).status, 200);
  assert.is((await t.product.get(`/nothing-here-${randomUUID()}`)).status, 404);

  const res = await request(metrics.url, 'GET', '/metrics');
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', 'text/plain');
  exposition = res.text;
});
test.after(async () => {
  unregisterDepth?.();
  await metrics?.close(1000);
  await t.close();
});

test('HTTP request durations are a histogram by surface, method, route template and status', async () => {
  const { types, samples } = parseExposition(exposition);
  assert.is(types.get('svc_http_request_duration_seconds'), 'histogram');
  const platform = find(samples, 'svc_http_request_duration_seconds_count', { surface: 'platform', method: 'GET', route: '/v1/jobs/{id}', status: '200' });
  assert.ok(platform, 'platform request with its route template');
  assert.ok(platform.value >= 1);
  const product = find(samples, 'svc_http_request_duration_seconds_count', { surface: 'product', method: 'GET', route: '/health/ready', status: '200' });
  assert.ok(product, 'product request with its route template');
  assert.ok(find(samples, 'svc_http_request_duration_seconds_bucket', { surface: 'product', route: '/health/ready', le: '+Inf' }));
  assert.ok(find(samples, 'svc_http_request_duration_seconds_count', { surface: 'platform', route: 'unmatched', status: '404' }));
  assert.ok(find(samples, 'svc_http_request_duration_seconds_count', { surface: 'product', route: 'unmatched', status: '404' }));
  // Raw paths never become label values (unbounded cardinality).
  assert.not.ok(exposition.includes(jobId), 'job id in a label');
  assert.not.ok(exposition.includes(unmatchedPath), 'unmatched path in a label');
});

test('job outcomes are counted and timed by task and outcome', async () => {
  const { types, samples } = parseExposition(exposition);
  assert.is(types.get('svc_jobs_total'), 'counter');
  assert.is(types.get('svc_job_duration_seconds'), 'histogram');
  assert.is(find(samples, 'svc_jobs_total', { task: 'test__metrics_probe', outcome: 'succeeded' })?.value, 1);
  assert.is(find(samples, 'svc_job_duration_seconds_count', { task: 'test__metrics_probe', outcome: 'succeeded' })?.value, 1);
  // Queue latency: how long the attempt waited after it was due (start minus run_at).
  assert.is(types.get('svc_job_queue_latency_seconds'), 'histogram');
  const latency = find(samples, 'svc_job_queue_latency_seconds_count', { task: 'test__metrics_probe' });
  assert.is(latency?.value, 1);
  assert.ok(find(samples, 'svc_job_queue_latency_seconds_sum', { task: 'test__metrics_probe' })!.value < 10);
});

test('queue depth reports waiting jobs by task and status', async () => {
  const { types, samples } = parseExposition(exposition);
  assert.is(types.get('svc_job_queue_depth'), 'gauge');
  assert.is(find(samples, 'svc_job_queue_depth', { task: 'test__metrics_waiting', status: 'queued' })?.value, 2);
  assert.not.ok(find(samples, 'svc_job_queue_depth', { task: 'test__metrics_probe' }), 'finished jobs are not queued');
});

test('default process metrics are exposed and no non-counter is named *_total', async () => {
  const { types, samples } = parseExposition(exposition);
  assert.ok(types.has('process_cpu_seconds_total'));
  assert.ok(types.has('nodejs_heap_size_used_bytes'));
  for (const [name, type] of types) {
    if (name.endsWith('_total')) assert.is(type, 'counter', `${name} is a ${type}`);
  }
  for (const sample of samples) {
    const family = familyOf(sample.name, types);
    assert.ok(family, `${sample.name} has a # TYPE line`);
    if (sample.name.endsWith('_total')) assert.is(types.get(family), 'counter', `${sample.name} is not a counter`);
  }
});

test('the exposition passes promtool check metrics with no lint findings', async () => {
  if (!toolAvailable('promtool', 'checking the exposition with promtool')) return;
  const { code, output } = await promtool(exposition);
  assert.is(output.trim(), '', output);
  assert.is(code, 0);
});

test('the metrics listener serves only GET /metrics', async () => {
  assert.is((await request(metrics.url, 'GET', '/')).status, 404);
  assert.is((await request(metrics.url, 'POST', '/metrics')).status, 404);
  assert.is((await request(metrics.url, 'GET', '/metrics?x=1')).status, 200);
});

test.run();
