/**
 * The ingest benchmark's load generator, run as a child process (bench/ingest.ts forks it) so that
 * building and sending requests does not share the server's event loop. It receives one job at a
 * time over IPC, builds every request body before the clock starts, sends the batches to
 * `POST /v1/ingest/batch` with `concurrency` requests in flight (keep-alive connections, a fresh
 * Idempotency-Key each; batch i goes with token i mod tokens, i.e. to that token's workspace), and
 * answers with the timing and the summed acknowledgements.
 */
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { processCpuSeconds } from './cpuAccount.ts';
import { serveLoadJobs } from './loadChild.ts';
import { percentile } from './measure.ts';
import { HADOOP_BUGS_CSV, loadHadoopBugs, toIngestRecord } from './data/hadoop.ts';
import { syntheticRecords, type SyntheticOptions } from '../fixtures/syntheticIssues.ts';

export type LoadJob =
  | {
      kind: 'synthetic';
      baseUrl: string;
      tokens: string[];
      concurrency: number;
      batchSize: number;
      options: Omit<SyntheticOptions, 'now'> & { now: string };
      start: number;
      count: number;
    }
  | { kind: 'hadoop'; baseUrl: string; tokens: string[]; concurrency: number; batchSize: number; file?: string };

export interface LoadResult {
  records: number;
  requests: number;
  seconds: number;
  accepted: number;
  rejected: number;
  statuses: Record<string, number>;
  summary: { eligible: number; blocked_no_narrative: number; ineligible: number };
  latencyMs: { p50: number; p95: number; max: number };
  bodyBytes: number;
  /** CPU seconds of this process while sending (building the bodies excluded). */
  cpuSeconds: number;
  errors: string[];
}

interface Ack {
  accepted: number;
  rejected: unknown[];
  engine_status_summary: { eligible: number; blocked_no_narrative: number; ineligible: number };
}

function recordsOf(job: LoadJob): unknown[] {
  if (job.kind === 'hadoop') return loadHadoopBugs(job.file ?? HADOOP_BUGS_CSV).map(toIngestRecord);
  return syntheticRecords({ ...job.options, now: new Date(job.options.now) }, job.start, job.count);
}

function post(agent: http.Agent, url: URL, token: string, body: Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: '/v1/ingest/batch',
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': body.length,
          authorization: `Bearer ${token}`,
          'idempotency-key': randomUUID(),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export async function runLoad(job: LoadJob): Promise<LoadResult> {
  const records = recordsOf(job);
  const bodies: Buffer[] = [];
  for (let i = 0; i < records.length; i += job.batchSize) bodies.push(Buffer.from(JSON.stringify({ records: records.slice(i, i + job.batchSize) })));
  const url = new URL(job.baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: job.concurrency });
  const result: LoadResult = {
    records: records.length,
    requests: bodies.length,
    seconds: 0,
    accepted: 0,
    rejected: 0,
    statuses: {},
    summary: { eligible: 0, blocked_no_narrative: 0, ineligible: 0 },
    latencyMs: { p50: 0, p95: 0, max: 0 },
    bodyBytes: bodies.reduce((s, b) => s + b.length, 0),
    cpuSeconds: 0,
    errors: [],
  };
  const latencies: number[] = [];
  let next = 0;
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: Math.min(job.concurrency, bodies.length) }, async () => {
      for (let i = next++; i < bodies.length; i = next++) {
        const sent = process.hrtime.bigint();
        const res = await post(agent, url, job.tokens[i % job.tokens.length], bodies[i]);
        latencies.push(Number(process.hrtime.bigint() - sent) / 1e6);
        result.statuses[res.status] = (result.statuses[res.status] ?? 0) + 1;
        if (res.status !== 202) {
          if (result.errors.length < 5) result.errors.push(`${res.status} ${res.text.slice(0, 300)}`);
          continue;
        }
        const ack = JSON.parse(res.text) as Ack;
        result.accepted += ack.accepted;
        result.rejected += ack.rejected.length;
        for (const k of ['eligible', 'blocked_no_narrative', 'ineligible'] as const) result.summary[k] += ack.engine_status_summary[k];
      }
    }),
  );
  result.seconds = Number(process.hrtime.bigint() - started) / 1e9;
  result.cpuSeconds = processCpuSeconds(cpu);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  result.latencyMs = { p50: percentile(latencies, 0.5), p95: percentile(latencies, 0.95), max: latencies.at(-1) ?? 0 };
  return result;
}

serveLoadJobs(runLoad);
