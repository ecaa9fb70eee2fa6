/**
 * The streamed remediation export (`npm run bench:remediationExport`): GET /remediation/export.xlsx
 * over real HTTP, served by a real `svc api` child process, for a tenant whose audit log holds
 * 100,000 and then 400,000 rows, downloaded by a client in this process that reads as fast as it
 * can. The route starts the export child (lib/exportProcess.ts, exportWorkbookChild.ts) that writes
 * the workbook into the response. Printed per size: export time, audit rows/s, file size, the peak
 * RSS of the export child (sampled RSS and its kernel high-water mark) and of the `svc api` process
 * (sampled RSS, next to its RSS before the download and when idle), each against the 200 MB target:
 * flat means under 200 MB at both sizes. The baseline, measured in the same run on the same rows: a
 * bare `COPY (…) TO STDOUT` of the audit sheet's query through psql to /dev/null (no spreadsheet, no
 * HTTP), i.e. what the database alone needs to hand the rows out. `--server-node-options=…` sets the
 * `svc api` process's NODE_OPTIONS (the export child inherits them, before its own V8 options).
 */
import { benchArgs } from './args.ts';
import { execFile, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { promisify } from 'node:util';
import { createTestDatabase } from '../fixtures/database.ts';
import { spawnSvc, svcEnv } from '../fixtures/svcProcess.ts';
import { createTenantUser, provisionedLiveTenant } from '../fixtures/tenants.ts';
import { createPool } from '../lib/db.ts';
import { withTenant } from '../sql/tenant/schema.ts';
import { intFlag } from './measure.ts';
import { processTreeSampler, rssOf } from './processTreeMemory.ts';

const { values } = benchArgs(import.meta.url, {
  options: { sizes: { type: 'string', default: '100000,400000' }, 'server-node-options': { type: 'string', default: '' } },
});
const SIZES = values.sizes!.split(',').map((s) => intFlag('sizes', s));
const run = promisify(execFile);
const MB = 1024 * 1024;
const TARGET_PEAK = 200 * MB;

const children: ChildProcess[] = [];

/** `svc api` on ephemeral ports over the bench database: the process whose memory is measured. */
function startServer(databaseUrl: string): Promise<{ server: ChildProcess; product: string }> {
  const child = spawnSvc(
    ['api'],
    svcEnv({
      DATABASE_URL: databaseUrl,
      PLATFORM_PORT: '0',
      PRODUCT_PORT: '0',
      METRICS_PORT: '0',
      LOG_LEVEL: 'info',
      NODE_ENV: 'test',
      NODE_OPTIONS: values['server-node-options']!,
    }),
  );
  children.push(child);
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`svc api did not start within 60 s:\n${output}`)), 60_000);
    child.stderr!.on('data', (d) => (output += d));
    child.on('exit', (code, signal) => {
      console.error(`svc api exited early (${code ?? signal}):\n${output.slice(-4000)}`);
      process.exitCode = 1;
    });
    child.stdout!.on('data', (d) => {
      output += d;
      const product = /"product":"(http:[^"]+)"/.exec(output)?.[1];
      if (product) {
        clearTimeout(timer);
        resolve({ server: child, product });
      }
    });
  });
}

/** Signs the tenant user in over the product surface (POST /login); the session's cookies as a Cookie header. */
async function signIn(product: string, workspace: string, email: string, password: string): Promise<string> {
  const res = await fetch(`${product}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ workspace, email, password }),
  });
  if (res.status !== 200) throw new Error(`tenant login answered ${res.status}: ${await res.text()}`);
  return res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
}

const db = await createTestDatabase();
const pool = createPool(db.url, { max: 4, applicationName: 'svc-bench' });
try {
  const tenant = await provisionedLiveTenant(pool);
  const user = await createTenantUser(pool, tenant.id, { roleProfile: 'admin' });
  const schema = tenant.schema_name;
  const { server, product } = await startServer(db.url);
  const cookie = await signIn(product, tenant.slug, user.email, user.password);

  // Audit rows shaped like real ones: an action, a user actor, a resource, a client IP, a trace id and a little metadata.
  async function fillAuditLog(rows: number): Promise<void> {
    await withTenant(pool, schema, async (db) => {
      const { rows: counted } = await db.query<{ n: number }>('select count(*)::int as n from audit_log');
      const missing = rows - counted[0].n;
      if (missing <= 0) return;
      await db.query(
        `insert into audit_log (action, actor_type, actor_id, resource_type, resource_id, client_ip, trace_id, metadata, occurred_at)
         select (array['cap_created', 'cap_updated', 'review_decided', 'user_login', 'upload_committed'])[1 + n % 5], 'user', $1,
                'cap', gen_random_uuid()::text, '10.0.' || (n % 250) || '.' || (n % 200), md5(n::text),
                jsonb_build_object('version', n % 7 + 1, 'changes', jsonb_build_object('status', jsonb_build_object('from', 'draft', 'to', 'submitted'))),
                now() - interval '400 days' + n * interval '1 minute'
           from generate_series(1, $2::int) n`,
        [user.id, missing],
      );
    });
    await pool.query(`vacuum analyze ${schema}.audit_log`);
  }

  async function exportOnce(): Promise<{ ms: number; bytes: number; parentPeak: number; parentBefore: number; childPeak: number }> {
    const sampler = processTreeSampler(server.pid!, 'exportWorkbookChild.ts');
    const started = performance.now();
    const res = await fetch(`${product}/remediation/export.xlsx`, { headers: { cookie } });
    if (res.status !== 200) throw new Error(`export answered ${res.status}: ${await res.text()}`);
    let bytes = 0;
    for await (const chunk of res.body!) bytes += (chunk as Uint8Array).byteLength;
    const ms = performance.now() - started;
    const memory = await sampler.stop();
    if (memory.children !== 1) throw new Error(`${memory.children} export processes seen, expected 1`);
    return { ms, bytes, ...memory };
  }

  async function copyOnce(): Promise<number> {
    const sql = `copy (select id, occurred_at, action, actor_type, actor_id, resource_type, resource_id, client_ip, trace_id, metadata
                         from ${schema}.audit_log order by occurred_at, seq) to stdout`;
    const started = performance.now();
    await run('sh', ['-c', `psql "$URL" -X -q -c "$SQL" > /dev/null`], { env: { ...process.env, URL: db.url, SQL: sql } });
    return performance.now() - started;
  }

  console.log(`Remediation export: GET /remediation/export.xlsx, audit rows ${SIZES.join(', ')}; baseline: COPY … TO STDOUT of the same rows (psql)`);
  console.log(
    `${new Date().toISOString()}, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  await fillAuditLog(1000);
  const idleRss = await rssOf(server.pid!);
  await exportOnce(); // warm-up
  const results = [];
  for (const size of SIZES) {
    await fillAuditLog(size);
    const copyMs = Math.min(await copyOnce(), await copyOnce());
    const e = await exportOnce();
    results.push({ size, copyMs, ...e });
    console.log(`  ${size} rows done`);
  }
  console.log('');
  console.log(`svc api RSS when idle, before any export: ${(idleRss / MB).toFixed(0)} MB`);
  const verdict = (bytes: number) => (bytes < TARGET_PEAK ? 'PASS' : 'FAIL');
  console.log(
    'audit rows | export s | export rows/s | file MB | export child peak RSS MB | < 200 MB | svc api RSS before MB | svc api peak RSS MB | < 200 MB | COPY s | COPY rows/s | export/COPY time',
  );
  let pass = true;
  for (const r of results) {
    pass &&= r.childPeak < TARGET_PEAK && r.parentPeak < TARGET_PEAK;
    console.log(
      [
        r.size,
        (r.ms / 1000).toFixed(2),
        Math.round(r.size / (r.ms / 1000)),
        (r.bytes / MB).toFixed(1),
        (r.childPeak / MB).toFixed(0),
        verdict(r.childPeak),
        (r.parentBefore / MB).toFixed(0),
        (r.parentPeak / MB).toFixed(0),
        verdict(r.parentPeak),
        (r.copyMs / 1000).toFixed(2),
        Math.round(r.size / (r.copyMs / 1000)),
        `${(r.ms / r.copyMs).toFixed(1)}×`,
      ].join(' | '),
    );
  }
  console.log(
    `${new Date().toISOString()}, load average at the end ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  console.log(pass ? 'PASS' : 'FAIL');
} finally {
  children.forEach((c) => c.removeAllListeners('exit').kill('SIGTERM'));
  await pool.end();
  await db.drop();
}
