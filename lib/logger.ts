/**
 * Structured JSON logs on stdout, one object per line. The trace id of the request (or job) being
 * served is attached automatically from an AsyncLocalStorage scope, so code deep in the data
 * layer logs with the right trace id without passing it around.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface TraceScope {
  traceId: string;
}
const traceStorage = new AsyncLocalStorage<TraceScope>();

/** Runs `fn` with `traceId` attached to every log line written inside it. */
export function withTrace<T>(traceId: string, fn: () => T): T {
  return traceStorage.run({ traceId }, fn);
}
export function currentTraceId(): string | undefined {
  return traceStorage.getStore()?.traceId;
}

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(bindings: Record<string, unknown>): Logger;
}

type Sink = (line: string) => void;
const stdoutSink: Sink = (line) => process.stdout.write(line + '\n');
/** The CLI's sink: a command's stdout carries only its result (`--json` output parses). */
export const stderrSink: Sink = (line) => process.stderr.write(line + '\n');

function serializeError(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  return { name: err.name, message: err.message, stack: err.stack, ...('code' in err ? { code: (err as { code: unknown }).code } : {}) };
}

export function createLogger(level: LogLevel = 'info', bindings: Record<string, unknown> = {}, sink: Sink = stdoutSink): Logger {
  const threshold = rank[level];
  const write = (lvl: Exclude<LogLevel, 'silent'>, msg: string, fields?: Record<string, unknown>) => {
    if (rank[lvl] < threshold) return;
    const entry: Record<string, unknown> = { time: new Date().toISOString(), level: lvl, msg, ...bindings };
    const traceId = currentTraceId();
    if (traceId) entry.trace_id = traceId;
    if (fields) for (const [k, v] of Object.entries(fields)) entry[k] = k === 'err' || v instanceof Error ? serializeError(v) : v;
    sink(JSON.stringify(entry));
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    child: (more) => createLogger(level, { ...bindings, ...more }, sink),
  };
}
