/**
 * Exports (issue 14): issues to CSV and XLSX through the real path, next to a bare
 * `COPY (the same select) TO STDOUT` of the same rows in the same run (psql, output discarded).
 *
 *   npm run bench:exports [-- --sizes 100000,400000] [--formats csv,xlsx]
 *
 * The real path: a real `svc worker` process over the bench database; the bench enqueues each export as
 * `POST /v1/exports` does (export row and `export__generate` job in one transaction) and waits for it
 * to succeed. The job starts the export child (lib/exportProcess.ts, usecases/exportFileChild.ts), which
 * writes the file. Reported per export: time from enqueue to success (and its job_runs split: queued
 * until the runner took it, then the job's run), rows/s, time / COPY, and peak
 * memory of the export child (sampled RSS and its kernel high-water mark) and of the worker process
 * (sampled RSS, next to its RSS before the export), each against the 200 MB target: flat means under
 * 200 MB at every size. Memory is not load-sensitive; times are.
 */
import { benchArgs } from './args.ts';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnSvc, svcEnv } from '../fixtures/svcProcess.ts';
import { withTransaction } from '../lib/db.ts';
import { enqueueJob } from '../jobs/runtime.ts';
import { exportGenerate } from '../jobs/queue/export__generate.ts';
import { exportQuery, findExport, insertExport, setExportJobRun, type ExportFormat } from '../sql/exports.ts';
import { fmt, intFlag, table, verdict } from './measure.ts';
import { processTreeSampler, rssOf } from './processTreeMemory.ts';
import { fillWorkspace, mb, openDatabase } from './workspace.ts';

const TARGET_PEAK = 200 * 1024 ** 2;
const { values: args } = benchArgs(import.meta.url, {
  options: {
    sizes: { type: 'string', default: '100000,400000' },
    formats: { type: 'string', default: 'csv,xlsx' },
  },
});

/** psql's COPY of the export's select to stdout, discarded: the database's own cost of the rows. */
async function copyBaseline(url: string, workspaceId: string): Promise<{ ms: number; bytes: number }> {
  const query = exportQuery('issues', workspaceId, {});
  const sql = query.text.replace('$1', `'${workspaceId}'::uuid`);
  const started = performance.now();
  const bytes = await new Promise<number>((resolve, reject) => {
    const child = spawn('psql', [url, '-X', '-q', '-c', `copy (${sql}) to stdout with (format csv, header)`], { stdio: ['ignore', 'pipe', 'inherit'] });
    let n = 0;
    child.stdout.on('data', (chunk: Buffer) => (n += chunk.length));
    child.on('exit', (code) => (code === 0 ? resolve(n) : reject(new Error(`psql exited ${code}`))));
  });
  return { ms: performance.now() - started, bytes };
}

/** `svc worker` over the database, once it has said its runner started. */
async function startWorker(url: string): Promise<{ pid: number; stop(): Promise<void> }> {
  const child = spawnSvc(['worker'], svcEnv({ DATABASE_URL: url, METRICS_PORT: '0', LOG_LEVEL: 'info', NODE_ENV: 'test', AUTH_PROVIDER: 'none' }));
  let output = '';
  child.stderr!.on('data', (d) => (output += d));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`svc worker did not start within 60 s:\n${output.slice(-4000)}`)), 60_000);
    child.once('exit', (code, signal) => reject(new Error(`svc worker exited (${code ?? signal}):\n${output.slice(-4000)}`)));
    child.stdout!.on('data', (d) => {
      output += d;
      if (output.includes('"msg":"worker started"')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  // Keep reading its output (a full pipe would stall it), and keep the failures for the report.
  child.stdout!.on('data', (d: Buffer) => {
    for (const line of d.toString().split('\n')) if (line.includes('"level":"error"') || line.includes('"level":"warn"')) console.log(`svc worker: ${line}`);
  });
  return {
    pid: child.pid!,
    async stop() {
      const exited = new Promise((resolve) => child.removeAllListeners('exit').once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function main() {
  const sizes = (args.sizes ?? '').split(',').map((s) => intFlag('sizes', s.trim()));
  const formats = (args.formats ?? '').split(',').map((f) => f.trim()) as ExportFormat[];
  for (const f of formats) if (f !== 'csv' && f !== 'xlsx') throw new Error(`--formats: unknown format ${f}`);
  console.log(
    `bench:exports: ${new Date().toISOString()}, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const rows: string[][] = [];
  let pass = true;
  for (const n of sizes) {
    console.log(`bench:exports: ${fmt(n, 0)} issues…`);
    const ws = await fillWorkspace(n);
    const { pool } = await openDatabase(ws.url);
    const worker = await startWorker(ws.url);
    try {
      const copy = await copyBaseline(ws.url, ws.workspaceId);
      rows.push([
        fmt(n, 0),
        'COPY TO STDOUT (baseline)',
        `${fmt(copy.ms / 1000, 2)} s`,
        '-',
        '-',
        fmt(n / (copy.ms / 1000), 0),
        '1.00',
        `${fmt(copy.bytes / 1024 ** 2, 1)} MB`,
        '-',
        '-',
        '-',
        '-',
        '-',
      ]);
      await sleep(2000);
      console.log(`svc worker idle (runner started, nothing exported): RSS ${mb(await rssOf(worker.pid))}`);
      for (const format of formats) {
        const id = randomUUID();
        const sampler = processTreeSampler(worker.pid, 'exportFileChild.ts');
        const started = performance.now();
        // What POST /v1/exports does: the export and its job in one transaction.
        await withTransaction(pool, async (client) => {
          await insertExport(client, { id, workspaceId: ws.workspaceId, resource: 'issues', format, filters: {} });
          const { job } = await enqueueJob(
            client,
            exportGenerate,
            { export_id: id, workspace_id: ws.workspaceId, resource: 'issues', format },
            { workspaceId: ws.workspaceId },
          );
          await setExportJobRun(client, id, job.id);
        });
        let done = await findExport(pool, ws.workspaceId, id);
        while (done && done.status !== 'succeeded' && done.status !== 'failed') {
          await sleep(100);
          done = await findExport(pool, ws.workspaceId, id);
        }
        const ms = performance.now() - started;
        const memory = await sampler.stop();
        if (done?.status !== 'succeeded') throw new Error(`${format}: the export ended ${done?.status}`);
        if (done.row_count !== n) throw new Error(`${format}: ${done.row_count} rows exported, expected ${n}`);
        if (memory.children !== 1) throw new Error(`${format}: ${memory.children} export processes seen, expected 1`);
        // Where the time went: waiting for the runner, then the job (its child's start included).
        const { rows: phases } = await pool.query<{ queued: number; ran: number }>(
          `select extract(epoch from started_at - created_at)::float8 as queued, extract(epoch from finished_at - started_at)::float8 as ran from job_runs where id = $1`,
          [done.job_run_id],
        );
        const childOk = memory.childPeak < TARGET_PEAK;
        const parentOk = memory.parentPeak < TARGET_PEAK;
        pass &&= childOk && parentOk;
        rows.push([
          fmt(n, 0),
          format,
          `${fmt(ms / 1000, 2)} s`,
          `${fmt(phases[0].queued, 2)} s`,
          `${fmt(phases[0].ran, 2)} s`,
          fmt(n / (ms / 1000), 0),
          fmt(ms / copy.ms, 2),
          `${fmt(done.bytes! / 1024 ** 2, 1)} MB`,
          mb(memory.childPeak),
          verdict(childOk),
          mb(memory.parentBefore),
          mb(memory.parentPeak),
          verdict(parentOk),
        ]);
        console.log(rows[rows.length - 1].join(' | '));
      }
    } finally {
      await worker.stop();
      await pool.end();
      await ws.drop();
    }
  }
  console.log(
    `load average at the end ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  console.log(
    table(
      [
        'issues',
        'export',
        'time',
        'of which queued',
        'job run',
        'rows/s',
        'time / COPY',
        'file',
        'export child peak RSS',
        '< 200 MB',
        'worker RSS before',
        'worker peak RSS',
        '< 200 MB',
      ],
      rows,
    ),
  );
  console.log(pass ? 'PASS' : 'FAIL');
}

await main();
