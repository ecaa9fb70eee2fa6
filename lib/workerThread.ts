/**
 * Runs CPU- or memory-heavy work (parsing an uploaded workbook) in a worker thread, off the HTTP
 * event loop: at most `concurrency` at a time per process, each with a capped heap and a time limit.
 * A thread that runs out of memory or time is terminated and reported as an Error; the process lives on.
 */
import { Worker } from 'node:worker_threads';

export interface WorkerLimits {
  maxHeapMb: number;
  timeoutMs: number;
}

export function createWorkerPool(concurrency: number) {
  let running = 0;
  const waiting: Array<() => void> = [];
  const acquire = (): Promise<void> => {
    if (running >= concurrency) return new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    return Promise.resolve();
  };
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };

  /** Starts `module` (a file URL: a TypeScript source or its build) with `data` as its workerData and resolves with the first message it posts. */
  async function run<T>(module: URL, data: Record<string, unknown>, limits: WorkerLimits, transfer: ArrayBuffer[] = []): Promise<T> {
    await acquire();
    try {
      return await new Promise<T>((resolve, reject) => {
        const worker = new Worker(new URL('./workerBoot.mjs', import.meta.url), {
          workerData: { ...data, module: module.href },
          transferList: transfer,
          resourceLimits: { maxOldGenerationSizeMb: limits.maxHeapMb, maxYoungGenerationSizeMb: 32 },
          stdout: false,
          stderr: false,
        });
        const timer = setTimeout(() => {
          void worker.terminate();
          reject(new Error(`the worker did not finish within ${limits.timeoutMs / 1000} seconds`));
        }, limits.timeoutMs);
        worker.once('message', (message: T) => {
          clearTimeout(timer);
          resolve(message);
          void worker.terminate();
        });
        worker.once('error', (err) => {
          clearTimeout(timer);
          reject(err);
        });
        worker.once('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`the worker exited (code ${code}) without an answer`));
        });
      });
    } finally {
      release();
    }
  }
  return { run };
}
