/**
 * What the benchmarks measure with and how they print it: percentiles and medians, per-request CPU
 * of the PostgreSQL backends serving one database, and plain-text tables.
 */
import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU ticks of the PostgreSQL backends serving `database` (their process title names it), by pid.
 * Linux /proc; empty elsewhere. Other databases' backends and the shared background processes
 * (WAL writer, checkpointer) are left out: other work on the machine must not count.
 */
export function postgresCpuTicks(database: string): Map<string, number> {
  const ticks = new Map<string, number>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return ticks;
  }
  for (const pid of entries) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
      const close = stat.lastIndexOf(')');
      if (stat.slice(stat.indexOf('(') + 1, close) !== 'postgres') continue;
      if (!readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(` ${database} `)) continue;
      const fields = stat.slice(close + 2).split(' ');
      ticks.set(pid, Number(fields[11]) + Number(fields[12])); // utime, stime (fields 14 and 15 of stat)
    } catch {
      // the process ended meanwhile
    }
  }
  return ticks;
}

/** PostgreSQL CPU (ms) used since `before`; a backend that started meanwhile counts whole. */
export function postgresCpuMsSince(database: string, before: Map<string, number>): number {
  let ticks = 0;
  for (const [pid, now] of postgresCpuTicks(database)) ticks += Math.max(0, now - (before.get(pid) ?? 0));
  return ticks * 10; // USER_HZ is 100 on Linux
}

export const percentile = (sorted: ArrayLike<number>, q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

export interface TargetTotals {
  requests: number;
  elapsedMs: number;
  latenciesUs: number[];
  serverCpuMs: number;
  postgresCpuMs: number;
  clientCpuMs: number;
}

export interface TargetSummary {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  serverCpuUsPerRequest: number;
  postgresCpuUsPerRequest: number;
  clientCpuUsPerRequest: number;
  requests: number;
}

export function summarize(t: TargetTotals): TargetSummary {
  const sorted = Float64Array.from(t.latenciesUs).sort();
  const perRequest = (ms: number) => (ms * 1000) / t.requests;
  return {
    rps: t.requests / (t.elapsedMs / 1000),
    p50Ms: percentile(sorted, 0.5) / 1000,
    p99Ms: percentile(sorted, 0.99) / 1000,
    serverCpuUsPerRequest: perRequest(t.serverCpuMs),
    postgresCpuUsPerRequest: perRequest(t.postgresCpuMs),
    clientCpuUsPerRequest: perRequest(t.clientCpuMs),
    requests: t.requests,
  };
}

export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export const fmt = (n: number, digits = 2) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
export const verdict = (pass: boolean) => (pass ? 'PASS' : 'FAIL');
