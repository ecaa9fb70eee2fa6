/**
 * The compiled build (`npm run build`, scripts/build.mjs): the built `svc` runs with no TypeScript
 * loader. The build goes to a scratch folder whose node_modules holds every installed package but tsx,
 * so a module of the build that still needed the loader (a `.ts` import, a child forked or a thread
 * started with tsx) fails here instead of quietly loading it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createEmptyDatabase, createTestDatabase } from '../../fixtures/database.ts';
import { logLines, projectRoot, svcEnv } from '../../fixtures/svcProcess.ts';
import { eventually } from '../helpers/app.ts';
import { request } from '../helpers/http.ts';
// @ts-expect-error: plain JavaScript without declarations (it runs before anything is built)
import { buildIsCurrent } from '../../scripts/build.mjs';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'svc-build-'));
const app = path.join(scratch, 'app');

mkdirSync(path.join(scratch, 'node_modules'));
for (const entry of readdirSync(path.join(projectRoot, 'node_modules'))) {
  if (entry === 'tsx' || entry === '.bin') continue;
  symlinkSync(path.join(projectRoot, 'node_modules', entry), path.join(scratch, 'node_modules', entry));
}

const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));

function build(...args: string[]) {
  const result = spawnSync(process.execPath, [path.join(projectRoot, 'scripts/build.mjs'), '--outdir', app, ...args], { encoding: 'utf8' });
  assert.is(result.status, 0, result.stderr);
  return result.stderr;
}

/** Starts the built CLI with no loader (no --import, NODE_OPTIONS cleared by svcEnv) and collects its output. */
function startBuilt(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [path.join(app, 'scripts/svc.js'), ...args], { cwd: scratch, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '', exit: undefined as number | null | undefined };
  child.stdout!.on('data', (d) => (out.stdout += d));
  child.stderr!.on('data', (d) => (out.stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve((out.exit = code))));
  return { child, out, exited, lines: () => logLines(out.stdout) };
}

test.after(() => rmSync(scratch, { recursive: true, force: true }));

test('npm run build compiles every server module to JavaScript and copies the SQL and boot files', () => {
  build();
  const files = filesUnder(app).map((f) => path.relative(app, f));
  // No TypeScript left but the console's browser app, which the console bundles with esbuild when it
  // starts, and the public paths it imports (compiled as well, for the console server).
  assert.equal(
    files.filter((f) => f.endsWith('.ts') && !f.startsWith('console/web/')),
    ['console/publicPaths.ts'],
  );
  assert.ok(files.includes('console/publicPaths.js'), 'the public paths, compiled for the server');
  assert.ok(files.includes('console/web/main.tsx'), 'the console app, copied whole');
  for (const expected of ['scripts/svc.js', 'scripts/workerChild.js', 'lib/engineThreadMain.js', 'usecases/exportFileChild.js', 'lib/workerBoot.mjs']) {
    assert.ok(files.includes(expected), expected);
  }
  const migrations = readdirSync(path.join(projectRoot, 'sql/migrations'));
  assert.equal(readdirSync(path.join(app, 'sql/migrations')), migrations);
  assert.not.ok(
    files.some((f) => f.startsWith('test/') || f.startsWith('bench/') || f.startsWith('fixtures/')),
    'no development folders',
  );
  assert.not.match(readFileSync(path.join(app, 'scripts/svc.js'), 'utf8'), /from "\.\.?\/[^"]*\.ts"/);
});

test('the build is current until its sources change; --if-stale rebuilds only then', () => {
  assert.ok(buildIsCurrent(app));
  assert.is(build('--if-stale'), '', 'nothing rebuilt while current');
  writeFileSync(path.join(app, '.build-stamp'), 'an older build');
  assert.not.ok(buildIsCurrent(app));
  assert.match(build('--if-stale'), /modules compiled/);
  assert.ok(buildIsCurrent(app));
});

test('the built svc migrate migrates an empty database without a TypeScript loader', async () => {
  const db = await createEmptyDatabase();
  try {
    const run = startBuilt(['migrate'], svcEnv({ DATABASE_URL: db.url, LOG_LEVEL: 'info' }));
    assert.is(await run.exited, 0, run.out.stderr);
    // A CLI command logs to stderr; stdout carries its result.
    assert.match(run.out.stdout, /^applied \d+ migrations: /);
    const applied = logLines(run.out.stderr).find((l) => l.msg === 'migrations applied');
    assert.ok(applied, run.out.stderr);
    assert.is((applied.applied as string[]).length, readdirSync(path.join(projectRoot, 'sql/migrations')).filter((f) => f.endsWith('.sql')).length);
  } finally {
    await db.drop();
  }
});

test('a worker thread of the build (an XLSX upload parsed off the event loop) starts without a TypeScript loader', () => {
  const script = `
    import ExcelJS from 'exceljs';
    import { parseRecordFile } from ${JSON.stringify(path.join(app, 'api/product/uploads/recordFile.js'))};
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('records');
    sheet.addRow(['external_id', 'title', 'source']);
    sheet.addRow(['x-1', 'a title', 'built']);
    const parsed = await parseRecordFile('records.xlsx', Buffer.from(await workbook.xlsx.writeBuffer()));
    process.stdout.write(JSON.stringify(parsed));`;
  writeFileSync(path.join(scratch, 'xlsxProbe.mjs'), script);
  const result = spawnSync(process.execPath, [path.join(scratch, 'xlsxProbe.mjs')], { cwd: scratch, env: svcEnv(), encoding: 'utf8' });
  assert.is(result.status, 0, result.stderr);
  const parsed = JSON.parse(result.stdout);
  assert.is(parsed.ok, true, result.stdout);
  assert.equal(
    parsed.records.map((r: { external_id: string }) => r.external_id),
    ['x-1'],
  );
});

test('the built svc console serves the console page and its bundled script without a TypeScript loader', async () => {
  const run = startBuilt(['console'], svcEnv({ CONSOLE_PORT: '0', PRODUCT_URL: 'http://127.0.0.1:9', LOG_LEVEL: 'info' }));
  try {
    const listening = await eventually(
      async () => {
        if (run.out.exit !== undefined) throw new Error(`svc console exited:\n${run.out.stderr}\n${run.out.stdout}`);
        return run.lines().find((l) => l.msg === 'console listening');
      },
      40_000,
      "the 'console listening' log line",
    );
    const page = await request(listening.console as string, 'GET', '/');
    assert.is(page.status, 200, page.text);
    const script = /src="(\/assets\/app-[0-9a-f]+\.js)"/.exec(page.text)?.[1];
    assert.ok(script, page.text);
    const bundle = await request(listening.console as string, 'GET', script);
    assert.is(bundle.status, 200);
    assert.ok(bundle.text.length > 1000, 'the browser bundle');
  } finally {
    run.child.kill('SIGKILL');
  }
});

for (const role of ['api', 'serve'] as const) {
  test(`the built svc ${role} answers its health check without a TypeScript loader`, async () => {
    const db = await createTestDatabase();
    const run = startBuilt([role], svcEnv({ DATABASE_URL: db.url, PLATFORM_PORT: '0', PRODUCT_PORT: '0', METRICS_PORT: '0', LOG_LEVEL: 'info' }));
    try {
      const listening = await eventually(
        async () => {
          if (run.out.exit !== undefined) throw new Error(`svc ${role} exited:\n${run.out.stderr}\n${run.out.stdout}`);
          return run.lines().find((l) => l.msg === 'listening');
        },
        40_000,
        "the 'listening' log line",
      );
      const ready = await request(listening.product as string, 'GET', '/health/ready');
      assert.is(ready.status, 200, ready.text);
      if (role === 'serve') {
        // The job runner, a child process forked from the build: its module is compiled, its arguments carry no loader.
        const started = await eventually(async () => run.lines().find((l) => l.msg === 'worker process started'), 30_000, 'the worker process');
        const command = readFileSync(`/proc/${started.pid}/cmdline`, 'utf8').split('\0');
        assert.ok(command.includes(path.join(app, 'scripts/workerChild.js')), command.join(' '));
        assert.not.ok(
          command.some((arg) => arg.includes('tsx')),
          command.join(' '),
        );
      }
      run.child.kill('SIGTERM');
      assert.is(await run.exited, 0, run.out.stderr);
      assert.is(run.out.stderr, '');
    } finally {
      run.child.kill('SIGKILL');
      await db.drop();
    }
  });
}

test.run();
