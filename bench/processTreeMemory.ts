/**
 * Memory of a running process and of the children it starts (export processes), read from /proc every
 * 10 ms: the parent's RSS, and per child the larger of its sampled RSS and its kernel high-water mark
 * (VmHWM, read while it lives), so a child's peak between two samples is not missed.
 */
import { readdir, readFile } from 'node:fs/promises';

const kb = (status: string, field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;

export async function rssOf(pid: number): Promise<number> {
  return kb(await readFile(`/proc/${pid}/status`, 'utf8'), 'VmRSS');
}

async function childrenOf(pid: number): Promise<number[]> {
  const pids: number[] = [];
  for (const task of await readdir(`/proc/${pid}/task`).catch(() => [])) {
    const text = await readFile(`/proc/${pid}/task/${task}/children`, 'utf8').catch(() => '');
    for (const p of text.split(/\s+/).filter(Boolean)) pids.push(Number(p));
  }
  return pids;
}

export interface TreePeaks {
  /** The parent's RSS when sampling started, and its largest sampled RSS. */
  parentBefore: number;
  parentPeak: number;
  /** Children seen while sampling, and the largest peak RSS of any of them. */
  children: number;
  childPeak: number;
}

/** Samples `pid` and those of its children whose command line contains `childCommand` (not tsx's esbuild service, say). */
export function processTreeSampler(pid: number, childCommand: string): { stop(): Promise<TreePeaks> } {
  let parentBefore = 0;
  let parentPeak = 0;
  const childPeaks = new Map<number, number>();
  let busy: Promise<void> | undefined;
  const sample = async () => {
    const rss = await rssOf(pid).catch(() => 0);
    if (!parentBefore) parentBefore = rss;
    parentPeak = Math.max(parentPeak, rss);
    for (const child of await childrenOf(pid)) {
      const command = await readFile(`/proc/${child}/cmdline`, 'utf8').catch(() => '');
      if (!command.includes(childCommand)) continue;
      const status = await readFile(`/proc/${child}/status`, 'utf8').catch(() => '');
      const peak = Math.max(kb(status, 'VmRSS'), kb(status, 'VmHWM'));
      if (status) childPeaks.set(child, Math.max(childPeaks.get(child) ?? 0, peak));
    }
  };
  const tick = () => {
    // One sample at a time: a slow read skips ticks rather than queueing them.
    busy ??= sample().finally(() => (busy = undefined));
  };
  tick();
  const timer = setInterval(tick, 10);
  return {
    async stop() {
      clearInterval(timer);
      await busy;
      return { parentBefore, parentPeak, children: childPeaks.size, childPeak: Math.max(0, ...childPeaks.values()) };
    },
  };
}
