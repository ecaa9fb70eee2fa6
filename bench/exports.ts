/**
 * Exports (issue 14): issues to CSV and XLSX through the real export path (sql/exports.ts writeExport:
 * a cursor fetched in batches, the file written as it goes and stored as chunks), against a bare
 * `COPY (the same select) TO STDOUT` of the same rows in the same run (psql, output discarded).
 *
 *   npm run bench:exports [-- --sizes 100000,400000] [--formats csv,xlsx] [--child-node-options ";--max-semi-space-size=2"]
 *
 * Each export runs in its own child process, once per set of Node options in `--child-node-options`
 * (sets separated by `;`, an empty set is Node's defaults; the idle child runs with each set too) and
 * each number of rows per cursor fetch in `--fetch-rows` (default: the product's), and reports rows/s and peak memory (the kernel's max RSS and the largest RSS sampled
 * every 20 ms), next to the RSS of an idle child (same modules, same pool, nothing exported) and the
 * peaks of V8's heap and of external memory: flat means under 200 MB at every size.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { fmt, intFlag, table, verdict } from './measure.ts';
import { answerParent, fillWorkspace, mb, memorySampler, openDatabase, runChild } from './workspace.ts';

const TARGET_PEAK = 200 * 1024 ** 2;
const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '100000,400000' },
    child: { type: 'string' },
    url: { type: 'string' },
    workspace: { type: 'string' },
    format: { type: 'string' },
    formats: { type: 'string', default: 'csv,xlsx' },
    'child-node-options': { type: 'string', default: '' },
    'fetch-rows': { type: 'string' },
  },
});
const variants = (args['child-node-options'] ?? '').split(';').map((v) => v.split(/\s+/).filter(Boolean));
const script = fileURLToPath(import.meta.url);

/** The same process with the same modules and connections, exporting nothing: the runtime's own memory. */
async function childIdle(url: string) {
  await import('../sql/exports.ts');
  const { pool } = await openDatabase(url);
  try {
    await pool.query('select 1');
    return { ...process.memoryUsage(), maxRss: process.resourceUsage().maxRSS * 1024 };
  } finally {
    await pool.end();
  }
}

async function childExport(url: string, workspaceId: string, format: 'csv' | 'xlsx', fetchRows: number | undefined) {
  const { withTransaction } = await import('../lib/db.ts');
  const { insertExport, writeExport } = await import('../sql/exports.ts');
  const { pool } = await openDatabase(url);
  try {
    const id = randomUUID();
    await insertExport(pool, { id, workspaceId, resource: 'issues', format, filters: {} });
    const memory = memorySampler();
    // V8's heap (committed) and memory outside it (buffers, zlib): which of the two the RSS peak is.
    let heapPeak = 0;
    let externalPeak = 0;
    const heap = setInterval(() => {
      const m = process.memoryUsage();
      heapPeak = Math.max(heapPeak, m.heapTotal);
      externalPeak = Math.max(externalPeak, m.external);
    }, 50);
    const started = performance.now();
    const written = await withTransaction(pool, (client) =>
      writeExport(client, { id, workspaceId, resource: 'issues', format, filters: {}, ttlHours: 1 }, async () => {}, undefined, fetchRows),
    );
    const ms = performance.now() - started;
    clearInterval(heap);
    return { ms, ...written, ...memory.stop(), heapPeak, externalPeak };
  } finally {
    await pool.end();
  }
}

/** psql's COPY of the export's select to stdout, discarded: the database's own cost of the rows. */
async function copyBaseline(url: string, workspaceId: string): Promise<{ ms: number; bytes: number }> {
  const { exportQuery } = await import('../sql/exports.ts');
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

async function main() {
  const sizes = (args.sizes ?? '').split(',').map((s) => intFlag('sizes', s.trim()));
  // Rows per cursor fetch to compare (the product's default when not given).
  const fetchRowsList = args['fetch-rows'] ? args['fetch-rows'].split(',').map((s) => intFlag('fetch-rows', s.trim())) : [undefined];
  const formats = (args.formats ?? '').split(',').map((f) => f.trim()) as Array<'csv' | 'xlsx'>;
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
    try {
      const copy = await copyBaseline(ws.url, ws.workspaceId);
      rows.push([
        fmt(n, 0),
        'COPY TO STDOUT (baseline)',
        '-',
        `${fmt(copy.ms / 1000, 2)} s`,
        fmt(n / (copy.ms / 1000), 0),
        '1.00',
        `${fmt(copy.bytes / 1024 ** 2, 1)} MB`,
        '-',
        '-',
        '-',
        '-',
        '-',
      ]);
      for (const nodeArgs of variants) {
        const options = nodeArgs.join(' ') || 'defaults';
        const idle = await runChild<Awaited<ReturnType<typeof childIdle>>>(script, ['--child', 'idle', '--url', ws.url], nodeArgs);
        console.log(
          `process baseline with Node ${options} (modules loaded, pool open, nothing exported): RSS ${mb(idle.rss)}, max RSS ${mb(idle.maxRss)}; ` +
            `V8 heap ${mb(idle.heapTotal)} (used ${mb(idle.heapUsed)}), external ${mb(idle.external)} (array buffers ${mb(idle.arrayBuffers)})`,
        );
        for (const format of formats) {
          for (const fetchRows of fetchRowsList) {
            const r = await runChild<Awaited<ReturnType<typeof childExport>>>(
              script,
              [
                '--child',
                'export',
                '--url',
                ws.url,
                '--workspace',
                ws.workspaceId,
                '--format',
                format,
                ...(fetchRows ? ['--fetch-rows', String(fetchRows)] : []),
              ],
              nodeArgs,
            );
            if (r.rows !== n) throw new Error(`${format}: ${r.rows} rows exported, expected ${n}`);
            const peak = Math.max(r.maxRss, r.sampledPeak);
            pass &&= peak < TARGET_PEAK;
            rows.push([
              fmt(n, 0),
              fetchRows ? `${format}, fetch ${fetchRows}` : format,
              options,
              `${fmt(r.ms / 1000, 2)} s`,
              fmt(n / (r.ms / 1000), 0),
              fmt(r.ms / copy.ms, 2),
              `${fmt(r.bytes / 1024 ** 2, 1)} MB`,
              mb(peak),
              mb(peak - idle.rss),
              mb(r.heapPeak),
              mb(r.externalPeak),
              verdict(peak < TARGET_PEAK),
            ]);
            console.log(rows[rows.length - 1].join(' | '));
          }
        }
      }
    } finally {
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
        'Node options',
        'time',
        'rows/s',
        'time / COPY',
        'file',
        'peak RSS',
        'peak − idle',
        'V8 heap peak',
        'external peak',
        'peak < 200 MB',
      ],
      rows,
    ),
  );
  console.log(pass ? 'PASS' : 'FAIL');
}

if (args.child === 'idle') await answerParent(() => childIdle(args.url!));
else if (args.child === 'export')
  await answerParent(() => childExport(args.url!, args.workspace!, args.format as 'csv' | 'xlsx', args['fetch-rows'] ? Number(args['fetch-rows']) : undefined));
else await main();
