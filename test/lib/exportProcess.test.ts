/**
 * lib/exportProcess.ts with a probe child (test/helpers/exportProcessProbe.ts): the child runs with the
 * memory-tight V8 options; its logs, stderr, progress, output and result reach the parent; a failure,
 * a death, an abort and a time limit each reject, and a killed child's transaction leaves nothing;
 * at most MAX_EXPORT_PROCESSES children run at once, the others wait for a slot.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestDatabase, type TestDatabase } from '../../fixtures/database.ts';
import { createPool, type Pool } from '../../lib/db.ts';
import {
  activeExportProcesses,
  EXPORT_PROCESS_V8_OPTIONS,
  ExportProcessError,
  MAX_EXPORT_PROCESSES,
  runExportProcess,
  type ExportProcessOptions,
} from '../../lib/exportProcess.ts';
import { createLogger, withTrace } from '../../lib/logger.ts';
import { eventually } from '../helpers/app.ts';
import type { ProbeInput } from '../helpers/exportProcessProbe.ts';

const PROBE = new URL('../helpers/exportProcessProbe.ts', import.meta.url);
let db: TestDatabase;
let pool: Pool;
let logs: Array<Record<string, unknown>> = [];
const logger = createLogger('debug', {}, (line) => logs.push(JSON.parse(line)));

test.before(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, { max: 2 });
  await pool.query('create table export_probe_rows (marker text not null)');
});
test.after(async () => {
  await pool.end();
  await db.drop();
});

const probe = <R>(input: ProbeInput, more: Partial<ExportProcessOptions> = {}) =>
  runExportProcess<R>({
    entry: PROBE,
    input,
    database: { url: db.url, timeouts: { connectMs: 5000, statementMs: 60_000, idleInTransactionMs: 60_000 } },
    logger,
    ...more,
  });

const exportBackends = async () =>
  (await pool.query<{ pid: number }>(`select pid from pg_stat_activity where datname = current_database() and application_name = 'svc-export'`)).rows;
const rowsOf = async (marker: string) =>
  (await pool.query<{ n: number }>('select count(*)::int as n from export_probe_rows where marker = $1', [marker])).rows[0].n;

test('the child runs with the tight V8 options; logs, stderr, progress, output and result reach the parent', async () => {
  logs = [];
  const progress: unknown[] = [];
  let bytes = '';
  const result = await withTrace('trace-of-the-caller', () =>
    probe<{ execArgv: string[] }>(
      { mode: 'echo' },
      {
        onProgress: (value) => void progress.push(value),
        onOutput: (output) => output.on('data', (chunk: Buffer) => (bytes += chunk)),
      },
    ),
  );
  for (const option of EXPORT_PROCESS_V8_OPTIONS) assert.ok(result.execArgv.includes(option), option);
  assert.equal(progress, [1, 2]);
  assert.is(bytes, 'first bytes, last bytes');
  const hello = logs.find((l) => l.msg === 'probe says hello');
  assert.is(hello?.n, 1);
  assert.is(hello?.component, 'export-process');
  assert.is(hello?.trace_id, 'trace-of-the-caller');
  assert.ok(logs.some((l) => l.msg === 'export process output' && l.line === 'a line on stderr' && l.level === 'warn'));
  assert.is(activeExportProcesses(), 0);
});

test('a failure in the child (before any output), and a child that dies, reject the export', async () => {
  let output = false;
  const failed = await probe({ mode: 'fail' }, { onOutput: () => void (output = true) }).catch((err: unknown) => err);
  assert.match(String(failed), /the probe failed on purpose/);
  assert.not.ok(output, 'no output started: the caller can still answer with an error');
  const died = await probe({ mode: 'die' }).catch((err: unknown) => err);
  assert.instance(died, ExportProcessError);
  assert.match((died as Error).message, /exited with code 3 before it finished/);
});

test('an abort kills the child: its transaction is rolled back and its connection closed', async () => {
  const stop = new AbortController();
  let holding!: () => void;
  const held = new Promise<void>((resolve) => (holding = resolve));
  const running = probe({ mode: 'hold', marker: 'aborted' }, { signal: stop.signal, onProgress: () => holding() }).catch((err: unknown) => err);
  await Promise.race([held, running.then((r) => assert.unreachable(`the probe ended before it held its transaction: ${r}`))]);
  assert.is((await exportBackends()).length, 1, 'the child holds its connection, inside the transaction');
  stop.abort(new Error('the reader went away'));
  assert.match(String(await running), /the reader went away/);
  await eventually(async () => ((await exportBackends()).length === 0 ? true : undefined), 10_000, 'the child connection to close');
  assert.is(await rowsOf('aborted'), 0);
});

test('a child over its time limit is killed and the export rejects', async () => {
  const err = await probe({ mode: 'hold', marker: 'late' }, { timeoutMs: 1500 }).catch((e: unknown) => e);
  assert.instance(err, ExportProcessError);
  assert.match((err as Error).message, /ran out of time/);
  await eventually(async () => ((await exportBackends()).length === 0 ? true : undefined), 10_000, 'the child connection to close');
  assert.is(await rowsOf('late'), 0);
});

test(`at most ${MAX_EXPORT_PROCESSES} children at once; the next one starts when a slot frees`, async () => {
  const runs = Array.from({ length: MAX_EXPORT_PROCESSES + 1 }, (_, i) => {
    const stop = new AbortController();
    let started = false;
    const done = probe({ mode: 'hold', marker: `slot-${i}` }, { signal: stop.signal, onProgress: () => void (started = true) }).catch(() => {});
    return { stop, done, started: () => started };
  });
  await eventually(async () => (runs.slice(0, MAX_EXPORT_PROCESSES).every((r) => r.started()) ? true : undefined), 30_000, 'the first children');
  assert.is(activeExportProcesses(), MAX_EXPORT_PROCESSES);
  assert.is((await exportBackends()).length, MAX_EXPORT_PROCESSES);
  assert.not.ok(runs[MAX_EXPORT_PROCESSES].started(), 'the last export waits for a slot');
  runs[0].stop.abort(new Error('done with it'));
  await eventually(async () => (runs[MAX_EXPORT_PROCESSES].started() ? true : undefined), 30_000, 'the waiting export to start');
  for (const r of runs) r.stop.abort(new Error('done with it'));
  await Promise.all(runs.map((r) => r.done));
  assert.is(activeExportProcesses(), 0);
});

test.run();
