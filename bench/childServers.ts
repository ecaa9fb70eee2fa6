/**
 * What the console benchmarks need to run servers in child processes and read them from outside: a
 * free port to hand a child before it starts, a wait until a URL answers 200, the group of children
 * (one that dies takes the benchmark down with it) and the CPU time a set of processes has used (every
 * thread's on-CPU time from /proc/<pid>/task/<tid>/schedstat, in ns).
 */
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';

/** A free port now (the child takes it a moment later), so a child can be told its peers' URLs up front. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

export async function until200(url: string): Promise<void> {
  for (let waited = 0; waited < 120_000; waited += 200) {
    const ok = await new Promise<boolean>((resolve) =>
      http
        .get(url, (res) => {
          res.resume();
          resolve(res.statusCode === 200);
        })
        .on('error', () => resolve(false)),
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} did not answer 200 within 120 s`);
}

/**
 * The benchmark's server children. One that exits before `stopAll` fails the benchmark and stops the
 * others (they would outlive this process: a port taken by another program, say); `stopAll` ends each
 * with SIGTERM and waits for it.
 */
export function childGroup() {
  let stopping = false;
  const children: ChildProcess[] = [];
  return {
    add(child: ChildProcess, label: string): ChildProcess {
      children.push(child);
      child.once('exit', (code, signal) => {
        if (stopping) return;
        process.stderr.write(`${label} exited (${code ?? signal}) during the benchmark\n`);
        stopping = true;
        for (const other of children) if (other.exitCode === null) other.kill('SIGTERM');
        process.exitCode = 1;
        setTimeout(() => process.exit(1), 5_000);
      });
      return child;
    },
    async stopAll(): Promise<void> {
      stopping = true;
      await Promise.all(
        children.map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null) return resolve();
              child.once('exit', () => resolve());
              child.kill('SIGTERM');
            }),
        ),
      );
    },
  };
}

/** The threads of a process (their tids); none once it has ended. */
export function threadsOf(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
}

/** One thread's [on-CPU ns, ns runnable but waiting for a core] so far (/proc schedstat); undefined once it has ended. */
export function threadSchedstat(pid: number, tid: number | string): [number, number] | undefined {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ');
    return [Number(run), Number(wait)];
  } catch {
    return undefined;
  }
}

/** CPU time (ns) the processes have used so far, all their threads. */
export function processCpuNs(pids: number[]): number {
  let total = 0;
  for (const pid of pids) for (const tid of threadsOf(pid)) total += threadSchedstat(pid, tid)?.[0] ?? 0; // a thread that ended since the listing counts 0
  return total;
}
