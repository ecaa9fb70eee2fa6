/**
 * The engine pipeline in a worker thread: stages are CPU-bound for seconds to minutes, and no
 * event loop that serves HTTP, heartbeats or runs other jobs may wait for them. `runPipeline`'s
 * interface, with `load` and `onStage` (database reads and writes) served on the caller's thread.
 * A failure of `load` or `onStage` stops the thread and is rethrown as it is (an AppError stays
 * one); a failure inside a stage comes back as an Error with its message.
 */
import { deserialize } from 'node:v8';
import { Worker } from 'node:worker_threads';
import type { StageRecord } from '../engine/manifest.ts';
import type { PipelineOptions, StageName, StageOutputs, StageResult } from '../engine/pipeline.ts';
import type { SnapshotOutput } from '../engine/stages/01_snapshot.ts';
import { moduleUrl } from './modulePath.ts';

export interface ThreadInput {
  ctx: PipelineOptions['ctx'];
  snapshotInput?: PipelineOptions['snapshotInput'];
  /** The snapshot's input follows in a message (ThreadSnapshot): the parent was still reading it. */
  snapshotLater?: boolean;
  from?: StageName;
  to?: StageName;
  timed: boolean;
  keep?: readonly StageName[];
}
export type ThreadAsk = { type: 'load'; stage: StageName } | { type: 'stage'; result: StageResult };
export type ThreadRequest = ThreadAsk & { id: number };
export interface ThreadReply {
  id: number;
  value?: unknown;
}
export interface ThreadSnapshot {
  snapshotInput: PipelineOptions['snapshotInput'];
}
/** `done` carries v8.serialize({ outputs, records }). */
type ThreadMessage = ThreadRequest | { type: 'done'; bytes: Uint8Array } | { type: 'failed'; message: string };
/** The snapshot as the thread hands it back: its issues by id only (slimOutputs). */
export type SlimSnapshot = Omit<SnapshotOutput, 'issues'> & { issues: Array<Pick<SnapshotOutput['issues'][number], 'id'>> };
export type ThreadOutputs = Omit<Partial<StageOutputs>, 'snapshot'> & { snapshot?: SlimSnapshot };
type ThreadResult = { outputs: ThreadOutputs; records: StageRecord[] };

/**
 * The kept outputs as they leave the thread: the snapshot's issues without their texts (at 100,000
 * long reports, over a hundred megabytes to serialize here and rebuild in the parent, where the results
 * read only their ids, and the input digest says what they were).
 */
export function slimOutputs(outputs: Partial<StageOutputs>): ThreadOutputs {
  const { snapshot } = outputs;
  return snapshot ? { ...outputs, snapshot: { ...snapshot, issues: snapshot.issues.map((i) => ({ id: i.id })) } } : outputs;
}

// The same boot as every worker thread's: it registers tsx first only for a TypeScript module.
const BOOT = new URL('./workerBoot.mjs', import.meta.url);
const MAIN = moduleUrl('./engineThreadMain', import.meta.url).href;

export interface ThreadPipelineOptions {
  ctx: PipelineOptions['ctx'];
  /**
   * The snapshot's input, or the promise of it: the thread starts (loads its modules) while the
   * caller still reads it; a rejection ends the thread and is the run's error.
   */
  snapshotInput?: PipelineOptions['snapshotInput'] | Promise<PipelineOptions['snapshotInput']>;
  from?: StageName;
  to?: StageName;
  /** Record stage durations (the thread's own clock); without it they are 0, as in runPipeline. */
  timed?: boolean;
  /** The outputs handed back (default: all); the others never cross the thread boundary (runPipeline's `keep`). */
  keep?: readonly StageName[];
  /** The stored encoded output of a stage before `from`. */
  load?: (stage: StageName) => Promise<Buffer>;
  onStage?: (result: StageResult) => Promise<void> | void;
  signal?: AbortSignal;
}

export function runPipelineInThread(options: ThreadPipelineOptions): Promise<ThreadResult> {
  let later = options.snapshotInput instanceof Promise ? options.snapshotInput : null;
  const input: ThreadInput = {
    ctx: options.ctx,
    snapshotInput: later ? undefined : (options.snapshotInput as PipelineOptions['snapshotInput']),
    snapshotLater: later !== null,
    from: options.from,
    to: options.to,
    timed: options.timed ?? false,
    keep: options.keep,
  };
  const worker = new Worker(BOOT, { workerData: { module: MAIN, input }, execArgv: [] });
  // The thread has its copy: this one is not held for the whole run.
  options = { ...options, snapshotInput: undefined };
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      options.signal?.removeEventListener('abort', abort);
      void worker.terminate();
      fn();
    };
    const abort = () => settle(() => reject(new Error('engine run aborted: the worker is shutting down')));
    options.signal?.addEventListener('abort', abort, { once: true });
    // Posted (copied) once read; no reference to it is kept here (the promise holds its value).
    const pending = later;
    later = null;
    pending?.then(
      (snapshotInput) => {
        if (!settled) worker.postMessage({ snapshotInput } satisfies ThreadSnapshot);
      },
      (err) => settle(() => reject(err)),
    );
    // Finished stages are handed to onStage in order, one at a time, while the thread computes the
    // next ones: storing an output (gzip, insert) overlaps the next stage instead of holding it up.
    let stored: Promise<void> = Promise.resolve();
    let finished = false;
    const serve = async (request: ThreadRequest) => {
      try {
        if (request.type === 'load') {
          if (!options.load) throw new Error(`stage ${request.stage} is needed; no stored outputs were supplied`);
          const encoded = await options.load(request.stage);
          worker.postMessage({ id: request.id, value: encoded } satisfies ThreadReply);
        } else {
          worker.postMessage({ id: request.id } satisfies ThreadReply);
          const { encoded } = request.result; // a Uint8Array once it crossed the thread boundary
          const result = { ...request.result, encoded: Buffer.from(encoded.buffer, encoded.byteOffset, encoded.byteLength) };
          stored = stored.then(() => options.onStage?.(result));
          await stored;
        }
      } catch (err) {
        settle(() => reject(err));
      }
    };
    worker.on('message', (message: ThreadMessage) => {
      // Done once every stage handed over is stored as well (a failed store has rejected already).
      // The thread is ended before its outputs are rebuilt here, so the two heaps never peak together.
      if (message.type === 'done') {
        finished = true;
        const { bytes } = message;
        void worker
          .terminate()
          .then(() => stored)
          .then(
            () => {
              let result: ThreadResult;
              try {
                result = deserialize(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)) as ThreadResult;
              } catch (err) {
                settle(() => reject(err));
                return;
              }
              settle(() => resolve(result));
            },
            () => {},
          );
      }
      // A stage failed: its error once no store is still writing.
      else if (message.type === 'failed')
        void stored.then(
          () => settle(() => reject(new Error(message.message))),
          () => {},
        );
      else void serve(message);
    });
    worker.on('error', (err) => settle(() => reject(err)));
    worker.on('exit', (code) => {
      if (!finished) settle(() => reject(new Error(`the engine thread exited (code ${code})`)));
    });
  });
}
