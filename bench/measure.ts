/** What the benchmarks summarise with and how they print it: percentiles, medians and plain-text tables; and their flags. */

import { loadavg } from 'node:os';

/** The load average over 1, 5 and 15 minutes, as the benchmarks print it beside their figures. */
export const loadAverage = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');

/** A command-line flag's value as an integer of at least `min`; otherwise an error naming the flag. */
export function intFlag(name: string, value: string | undefined, min = 1): number {
  const n = Number(value);
  if (value === undefined || value.trim() === '' || !Number.isInteger(n) || n < min)
    throw new Error(`--${name} must be an integer of at least ${min}, got '${value}'`);
  return n;
}
export const percentile = (sorted: ArrayLike<number>, q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : 0);
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
