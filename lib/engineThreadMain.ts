/**
 * Inside an engine worker thread: runs the pipeline over the input the thread was started with;
 * stored outputs it needs and every finished stage go through the parent (lib/engineThread.ts).
 */
import { serialize } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { decodeOutput } from '../engine/manifest.ts';
import { runPipeline } from '../engine/pipeline.ts';
import { slimOutputs, type ThreadAsk, type ThreadInput, type ThreadReply, type ThreadSnapshot } from './engineThread.ts';

const port = parentPort!;
const input = workerData.input as ThreadInput;
let nextId = 0;
const waiting = new Map<number, (value: unknown) => void>();
// The snapshot's input when the parent was still reading it as the thread started (`input.snapshotLater`):
// this thread loads its modules meanwhile.
let snapshotInput: Promise<ThreadInput['snapshotInput']> = Promise.resolve(input.snapshotInput);
let provideSnapshot: (value: ThreadInput['snapshotInput']) => void = () => {};
if (input.snapshotLater) snapshotInput = new Promise((resolve) => (provideSnapshot = resolve));
port.on('message', (reply: ThreadReply | ThreadSnapshot) => {
  if ('snapshotInput' in reply) return provideSnapshot(reply.snapshotInput);
  waiting.get(reply.id)?.(reply.value);
  waiting.delete(reply.id);
});
const ask = (request: ThreadAsk, transfer: ArrayBuffer[] = []) =>
  new Promise<unknown>((resolve) => {
    const id = nextId++;
    waiting.set(id, resolve);
    port.postMessage({ ...request, id }, transfer);
  });
// A stage's encoding (up to hundreds of megabytes) moves to the parent rather than being copied,
// when it owns its whole memory (a small one may share the Buffer pool).
const transferable = (b: Buffer) => (b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? [b.buffer as ArrayBuffer] : []);

try {
  const { outputs, records } = await runPipeline({
    ctx: input.ctx,
    snapshotInput: await snapshotInput,
    from: input.from,
    to: input.to,
    now: input.timed ? () => performance.now() : undefined,
    keep: input.keep,
    load: async (stage) => {
      const encoded = (await ask({ type: 'load', stage })) as Uint8Array;
      return decodeOutput(Buffer.from(encoded.buffer, encoded.byteOffset, encoded.byteLength));
    },
    onStage: async (result) => void (await ask({ type: 'stage', result }, transferable(result.encoded))),
  });
  // The kept outputs leave as one serialized buffer moved to the parent, not as a structured clone
  // rebuilt while this thread is alive: the parent ends the thread (its heap, a gigabyte at 100,000
  // issues) before it rebuilds them (issue 31: the end-to-end peak). The snapshot goes back without its
  // issues' texts (slimOutputs).
  const bytes = serialize({ outputs: slimOutputs(outputs), records });
  port.postMessage({ type: 'done', bytes }, transferable(bytes));
} catch (err) {
  port.postMessage({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
}
