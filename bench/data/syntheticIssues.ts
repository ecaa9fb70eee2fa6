/**
 * Seeded synthetic ingest records that look like operational issue reports: titles of 30-150
 * characters, narratives of 100-800 characters built from an incident vocabulary (so that Postgres's
 * English stemmer and the GIN index do realistic work), about 10% without narrative, about 1% with a
 * placeholder narrative, mixed severities (including the p1/sev2 aliases and absent ones), a few
 * sources, and external ids unique per (tag, index). The same (seed, index) always gives the same
 * record, so a load generator and a baseline can build identical rows independently.
 */
import { createRng } from '../../engine/rng.ts';

export interface SyntheticRecord {
  source: string;
  external_id: string;
  title: string;
  narrative?: string;
  severity?: string;
  occurred_at?: string;
}

const SOURCES = ['jira', 'servicenow', 'pagerduty', 'zendesk', 'github'];
const SEVERITIES: Array<[string | undefined, number]> = [
  ['critical', 0.05], ['high', 0.18], ['medium', 0.42], ['low', 0.2], ['p1', 0.02], ['sev2', 0.03], ['P3', 0.03], ['sev4', 0.02], [undefined, 0.05],
];
const COMPONENTS = [
  'datanode', 'namenode', 'scheduler', 'gateway', 'load balancer', 'payment service', 'checkout', 'search index', 'message queue',
  'replication', 'cache', 'auth service', 'billing job', 'kafka consumer', 'postgres primary', 'read replica', 'ingress controller',
  'container runtime', 'object storage', 'DNS resolver', 'cron runner', 'mobile app', 'web frontend', 'report export', 'ETL pipeline',
];
const SYMPTOMS = [
  'times out', 'crashes with OutOfMemoryError', 'returns HTTP 503', 'leaks file descriptors', 'stalls under load', 'drops messages',
  'reports stale data', 'fails health checks', 'restarts in a loop', 'deadlocks on shutdown', 'corrupts the checksum', 'loses its lease',
  'rejects valid tokens', 'fills the disk', 'spikes CPU to 100%', 'logs NullPointerException', 'double-charges customers', 'hangs on startup',
];
const WORDS = (
  'after the upgrade to version 3.4 the process started failing intermittently when the cluster was under heavy write load and ' +
  'operators noticed that retries amplified the backlog while the monitoring dashboard showed increasing latency on every node ' +
  'we rolled back the configuration change but the error persisted until the service was restarted manually which suggests a ' +
  'resource leak in the connection pool or a race between the heartbeat thread and the shutdown hook customers reported failed ' +
  'requests timeouts and partial results the stack trace points at the serializer and the replication protocol during failover ' +
  'memory usage grew steadily over several hours garbage collection pauses exceeded ten seconds and the watchdog killed the ' +
  'container disk usage reached ninety percent because rotated logs were never deleted the certificate expired overnight and the ' +
  'client could not negotiate a secure channel the queue consumer acknowledged messages before processing them so a crash lost ' +
  'data the scheduler assigned tasks to a decommissioned host the metrics exporter blocked the event loop the index rebuild ' +
  'locked the table for minutes the batch job double counted invoices when the timezone changed daylight saving transition'
).split(' ');

function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)];
}

function weighted<T>(rand: () => number, table: Array<[T, number]>): T {
  let r = rand() * table.reduce((s, [, w]) => s + w, 0);
  for (const [value, w] of table) if ((r -= w) < 0) return value;
  return table[table.length - 1][0];
}

/** Words from the vocabulary until the text has between `min` and `max` characters. */
function prose(rand: () => number, min: number, max: number): string {
  const target = min + Math.floor(rand() * (max - min + 1));
  const words: string[] = [];
  let length = 0;
  while (length < target) {
    const word = rand() < 0.08 ? `${Math.floor(rand() * 10_000)}` : pick(rand, WORDS);
    words.push(word);
    length += word.length + 1;
  }
  let text = words.join(' ');
  if (text.length > max) text = text.slice(0, max).trimEnd();
  return text.charAt(0).toUpperCase() + text.slice(1) + '.';
}

export interface SyntheticOptions {
  seed: number;
  /** Distinguishes runs so that external ids never collide across them. */
  tag: string;
  /** occurred_at values fall in the year before this instant. */
  now: Date;
}

/** The record at `index` (deterministic in seed and index). */
export function syntheticRecord(options: SyntheticOptions, index: number): SyntheticRecord {
  const rand = createRng((options.seed * 0x9e3779b1 + index) >>> 0).next;
  const source = pick(rand, SOURCES);
  const component = pick(rand, COMPONENTS);
  const title = `${component.charAt(0).toUpperCase()}${component.slice(1)} ${pick(rand, SYMPTOMS)} ${prose(rand, 0, 110).toLowerCase()}`.slice(0, 150);
  const record: SyntheticRecord = { source, external_id: `${options.tag}-${index}`, title: title.length >= 30 ? title : `${title} (see incident timeline)` };
  const r = rand();
  if (r >= 0.1) record.narrative = r < 0.11 ? pick(rand, ['n/a', 'TBD', '-']) : `${component} ${pick(rand, SYMPTOMS)}. ${prose(rand, 80, 770)}`.slice(0, 800);
  const severity = weighted(rand, SEVERITIES);
  if (severity !== undefined) record.severity = severity;
  if (rand() < 0.9) record.occurred_at = new Date(options.now.getTime() - Math.floor(rand() * 365 * 86_400_000)).toISOString();
  return record;
}

/** Records `start` … `start + count - 1`. */
export function syntheticRecords(options: SyntheticOptions, start: number, count: number): SyntheticRecord[] {
  return Array.from({ length: count }, (_, k) => syntheticRecord(options, start + k));
}
