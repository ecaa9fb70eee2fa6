/**
 * Exports run in short-lived child processes of their own: the /v1 export job (usecases/exportFileChild.ts)
 * and the remediation download (usecases/remediation/exportWorkbookChild.ts). What an export keeps
 * alive is small and flat (one batch, ≤ 1 MiB of sheet backlog, lib/xlsxStream.ts), but a long-lived
 * process under Node's default heap sizing lets the garbage of XML, deflate and pg messages pile up to
 * ~300 MB before V8 collects it; the options that stop that (`--heap-growing-percent`) are process-wide
 * and slow the engine that shares the job runner. A child started for one export with tight V8 options
 * and only the modules an export needs peaks under 200 MB (docs/benchmarks.md, issues 14 and 15), and
 * the CPU of XML and deflate leaves the parent's event loop.
 *
 * Parent side: `runExportProcess` waits for one of MAX_EXPORT_PROCESSES slots, forks the entry, sends it
 * its input and the database to use, relays its logs and stderr to the parent's logger, and settles
 * with the child's result. The child is killed when `signal` aborts (a reader gone, a worker shutting
 * down) or its time is up; a child that dies or exits without a result rejects. Killing it closes its
 * connection, so Postgres rolls its transaction back: a killed export leaves nothing behind.
 *
 * Child side: `serveExportProcess(run)` is the whole of an entry's main: it opens one connection's pool,
 * runs `run` with an IPC logger, a progress channel and (when asked for) the output pipe (fd 4), sends
 * the result and exits.
 */
import { AsyncResource } from 'node:async_hooks';
import { fork } from 'node:child_process';
import { Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { type Readable, Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import type { AppContext } from './context.ts';
import { createPool, poolTimeouts, type Pool, type PoolTimeouts } from './db.ts';
import type { Logger } from './logger.ts';
import { loaderArgs } from './modulePath.ts';

/** Export children per process at a time; more exports wait for a slot (in order). */
export const MAX_EXPORT_PROCESSES = 2;
/** How long one export child may run (the wait for a slot not counted) before it is killed. */
export const EXPORT_PROCESS_TIMEOUT_MS = 30 * 60_000;
/**
 * V8 options of an export child: a full GC once the heap is 10% over what survived the last one, and
 * 2 MB semi-spaces (smaller young generation); with Node's defaults the same export peaks near 300 MB.
 * Node refuses --heap-growing-percent in NODE_OPTIONS but takes it in a fork's execArgv.
 */
export const EXPORT_PROCESS_V8_OPTIONS = ['--max-semi-space-size=2', '--heap-growing-percent=10'];
/** The child's output pipe (the parent's `output`), after stdin, stdout, stderr and the IPC channel. */
const OUTPUT_FD = 4;

export interface ExportDatabase {
  url: string;
  timeouts: PoolTimeouts;
}

/** The database this process uses (the embedded one too), with its pool timeouts, for an export child. */
export const exportDatabase = (app: AppContext): ExportDatabase => ({
  url: app.directDatabaseUrl ?? app.pool.options.connectionString!,
  timeouts: poolTimeouts(app.config),
});

type LogLevel = 'debug' | 'info' | 'warn' | 'error';
type ChildMessage =
  | { type: 'log'; level: LogLevel; msg: string; fields?: Record<string, unknown> }
  | { type: 'progress'; value: unknown }
  | { type: 'result'; value: unknown }
  | { type: 'error'; error: unknown };
interface StartMessage {
  type: 'start';
  database: ExportDatabase;
  input: unknown;
  output: boolean;
}

/** Settles waiting exports in order as slots free up. */
class Slots {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly size: number) {}

  async acquire(signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.running >= this.size) {
      await new Promise<void>((resolve, reject) => {
        const grant = () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = () => {
          this.waiting.splice(this.waiting.indexOf(grant), 1);
          reject(signal!.reason);
        };
        this.waiting.push(grant);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    } else this.running++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    };
  }

  /** Export children running now (for tests and metrics). */
  get active(): number {
    return this.running;
  }
}

const slots = new Slots(MAX_EXPORT_PROCESSES);
/** Export children running in this process now. */
export const activeExportProcesses = () => slots.active;

export interface ExportProcessOptions {
  /** The child's entry module (it calls `serveExportProcess`). */
  entry: URL;
  /** What the entry's `run` receives (structured-clone serialisable). */
  input: unknown;
  database: ExportDatabase;
  logger: Logger;
  /** Aborting it kills the child (or stops the wait for a slot). */
  signal?: AbortSignal;
  timeoutMs?: number;
  onProgress?(value: unknown): void | Promise<void>;
  /**
   * Asks for an output: called when the first bytes the child wrote into its output pipe have
   * arrived, with that pipe (not called when the child fails before writing any). The promise
   * settles only after the pipe has ended.
   */
  onOutput?(output: Readable): void;
}

/** An export child that exited without a result, ran out of time, or reported a failure. */
export class ExportProcessError extends Error {
  override name = 'ExportProcessError';
}

/** Runs one export in a child process and resolves with its result (see the module's comment). */
export async function runExportProcess<R>(options: ExportProcessOptions): Promise<R> {
  const release = await slots.acquire(options.signal);
  try {
    return await runChild<R>(options);
  } finally {
    release();
  }
}

async function runChild<R>(options: ExportProcessOptions): Promise<R> {
  const { signal } = options;
  signal?.throwIfAborted();
  const withOutput = Boolean(options.onOutput);
  const child = fork(fileURLToPath(options.entry), [], {
    execArgv: [...EXPORT_PROCESS_V8_OPTIONS, ...loaderArgs(options.entry.href)],
    stdio: withOutput ? ['ignore', 'pipe', 'pipe', 'ipc', 'pipe'] : ['ignore', 'pipe', 'pipe', 'ipc'],
    // Errors (with their stack) and Buffers cross the channel intact.
    serialization: 'advanced',
  });
  const log = options.logger.child({ component: 'export-process', pid: child.pid, entry: path(options.entry) });
  // Whatever the child prints outside the logger (a crash trace, a warning) goes to the log too.
  for (const [stream, level] of [
    [child.stdout, 'info'],
    [child.stderr, 'warn'],
  ] as const) {
    if (stream)
      createInterface({ input: stream }).on(
        'line',
        AsyncResource.bind((line: string) => log[level]('export process output', { line })),
      );
  }
  const output = withOutput ? (child.stdio[OUTPUT_FD] as Readable) : undefined;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, sig) => resolve({ code, signal: sig })),
  );

  let stopReason: unknown;
  const kill = (reason: unknown) => {
    stopReason ??= reason;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    // Its unread bytes too: with no consumer left, the pipe would never end.
    output?.destroy();
  };
  const onAbort = () => kill(signal!.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  const timeoutMs = options.timeoutMs ?? EXPORT_PROCESS_TIMEOUT_MS;
  const timer = setTimeout(() => kill(new ExportProcessError(`the export process ran out of time (${timeoutMs} ms) and was stopped`)), timeoutMs);

  let result: { value: unknown } | undefined;
  let failure: unknown;
  let progress = Promise.resolve();
  // In the caller's async context (its trace id on the relayed log lines).
  child.on(
    'message',
    AsyncResource.bind((message: ChildMessage) => {
      if (message.type === 'log') log[message.level](message.msg, message.fields);
      else if (message.type === 'progress' && options.onProgress) {
        const report = options.onProgress;
        // In order, one at a time; a failed report is the attempt's failure.
        progress = progress.then(() => report(message.value)).catch((err) => kill(err));
      } else if (message.type === 'result') result = { value: message.value };
      else if (message.type === 'error') failure = message.error;
    }),
  );
  child.on('error', (err) => kill(err));
  // Only bytes make the output start (the route's headers): a child that fails before writing any
  // leaves the caller free to answer with an error. (At the pipe's end, 'readable' comes with none.)
  let delivered = false;
  output?.once('readable', () => {
    if (output.readableLength === 0) return;
    delivered = true;
    options.onOutput!(output);
  });

  try {
    child.send({ type: 'start', database: options.database, input: options.input, output: withOutput } satisfies StartMessage);
    const { code, signal: exitSignal } = await exited;
    if (output) {
      // After a success the pipe's last bytes may still be on their way to the consumer; after a
      // failure (or with no consumer) nobody wants them.
      if (stopReason === undefined && failure === undefined && code === 0 && delivered) await finished(output);
      else output.destroy();
    }
    await progress;
    if (stopReason !== undefined) throw stopReason;
    if (failure !== undefined) throw failure;
    if (code !== 0 || !result) {
      throw new ExportProcessError(`the export process exited with ${exitSignal ?? `code ${code}`} before it finished`);
    }
    log.debug('export process finished', { code });
    return result.value as R;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
    kill(undefined);
  }
}

const path = (entry: URL) => entry.pathname.split('/').slice(-2).join('/');

/** What an export child's `run` gets besides its input. */
export interface ExportChildContext {
  /** A pool of one connection to the parent's database (ended after `run`). */
  pool: Pool;
  logger: Logger;
  progress(value: unknown): void;
  /** The pipe into the parent (when the parent asked for one); `run` ends it. */
  output: Writable;
  /** Aborted when the parent goes away. */
  signal: AbortSignal;
}

function ipcLogger(bindings: Record<string, unknown> = {}): Logger {
  const send = (level: LogLevel) => (msg: string, fields?: Record<string, unknown>) =>
    process.send?.({ type: 'log', level, msg, fields: { ...bindings, ...fields } } satisfies ChildMessage);
  return {
    debug: send('debug'),
    info: send('info'),
    warn: send('warn'),
    error: send('error'),
    child: (more) => ipcLogger({ ...bindings, ...more }),
  };
}

const sendToParent = (message: ChildMessage) =>
  new Promise<void>((resolve, reject) => process.send!(message, undefined, undefined, (err) => (err ? reject(err) : resolve())));

/** The output of a child started without one: writing to it is an error. */
const noOutput = () =>
  new Writable({ write: (_chunk, _enc, done) => done(new Error('this export process was started without an output (the parent asks for one with onOutput)')) });

/** The main of an export child: waits for its input, runs the export, reports the result, exits. */
export function serveExportProcess<I, R>(run: (input: I, context: ExportChildContext) => Promise<R>): void {
  if (!process.send) throw new Error('an export process is started by runExportProcess (it needs the IPC channel)');
  const gone = new AbortController();
  // The parent decides when this process stops (a terminal's Ctrl-C reaches the whole group); a
  // parent that died disconnects the channel, and then there is nobody to export for.
  process.on('SIGINT', () => {});
  process.on('disconnect', () => {
    // The export stops at its next batch and rolls back; one stuck in a query is not waited for long.
    gone.abort(new Error('the parent process went away'));
    setTimeout(() => process.exit(1), 5000).unref();
  });
  process.once('message', async (message: StartMessage) => {
    const pool = createPool(message.database.url, { max: 1, applicationName: 'svc-export', timeouts: message.database.timeouts });
    const output = message.output ? new Socket({ fd: OUTPUT_FD, readable: false, writable: true }) : undefined;
    let code = 0;
    try {
      const value = await run(message.input as I, {
        pool,
        logger: ipcLogger(),
        progress: (value) => process.send!({ type: 'progress', value } satisfies ChildMessage),
        output: output ?? noOutput(),
        signal: gone.signal,
      });
      // Every byte handed to the pipe before the parent hears the result.
      if (output) await finished(output);
      await sendToParent({ type: 'result', value });
    } catch (err) {
      code = 1;
      if (process.connected) await sendToParent({ type: 'error', error: err }).catch(() => {});
    } finally {
      await pool.end().catch(() => {});
    }
    process.exit(code);
  });
}
