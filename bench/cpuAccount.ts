/**
 * CPU time spent per participant of a benchmark phase: this process (the server), a child (it reports
 * its own), and the Postgres backends serving one database, read from /proc/<pid>/stat (utime + stime)
 * of the pids pg_stat_activity lists. CPU seconds are much steadier than wall time on a shared,
 * noisy machine, and they say which side a cost sits on. Backends are only readable when Postgres
 * runs on this machine; otherwise their figure is null.
 */
import { readFileSync } from 'node:fs';
import type { Pool } from '../lib/db.ts';

const CLOCK_TICKS = 100; // USER_HZ on Linux

function procCpuSeconds(pid: number): number | null {
  try {
    // The command name (field 2) may contain spaces; the fields after its closing parenthesis are fixed.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS; // utime, stime (fields 14 and 15)
  } catch {
    return null;
  }
}

export interface CpuSnapshot {
  self: number;
  backends: Map<number, number> | null;
}

export async function cpuSnapshot(pool: Pool, database: string): Promise<CpuSnapshot> {
  const { rows } = await pool.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [database]);
  const backends = new Map<number, number>();
  for (const { pid } of rows) {
    const seconds = procCpuSeconds(pid);
    if (seconds === null) return { self: processCpuSeconds(), backends: null };
    backends.set(pid, seconds);
  }
  return { self: processCpuSeconds(), backends };
}

/** This process's CPU seconds (user + system), since `since` when given. */
export function processCpuSeconds(since?: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1e6;
}

/** CPU seconds between two snapshots: this process, and the backends present at the end (new ones count from zero). */
export function cpuBetween(before: CpuSnapshot, after: CpuSnapshot): { self: number; postgres: number | null } {
  if (!before.backends || !after.backends) return { self: after.self - before.self, postgres: null };
  let postgres = 0;
  for (const [pid, seconds] of after.backends) postgres += seconds - (before.backends.get(pid) ?? 0);
  return { self: after.self - before.self, postgres };
}
