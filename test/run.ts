/**
 * `npm test`: runs every test/**\/*.test.ts file in its own process (each on its own database cloned
 * from a migrated template), a few at a time, and ends with the line `N passed, M failed`.
 * Database: DATABASE_URL, else the local PostgreSQL at 127.0.0.1:5432, else an embedded one in a
 * temporary directory (never the data of `npm start`).
 */
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureTemplate, startDatabaseServer } from '../fixtures/database.ts';

const root = path.dirname(fileURLToPath(import.meta.url));
const filter = process.argv.slice(2);

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return entry === 'helpers' || entry === 'fixtures' ? [] : testFiles(full);
    return entry.endsWith('.test.ts') ? [full] : [];
  });
}

interface FileResult {
  file: string;
  passed: number;
  failed: number;
  output: string;
  seconds: number;
}

// eslint-disable-next-line no-control-regex
const stripAnsi = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '');

function runFile(file: string, env: NodeJS.ProcessEnv): Promise<FileResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 10 * 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      const plain = stripAnsi(output);
      const total = Number(/Total:\s+(\d+)/.exec(plain)?.[1] ?? 0);
      const passed = Number(/Passed:\s+(\d+)/.exec(plain)?.[1] ?? 0);
      let failed = total - passed;
      // A file that crashed or exited non-zero without its own failure count still fails once.
      if (code !== 0 && failed === 0) failed = 1;
      resolve({ file, passed, failed, output, seconds: (Date.now() - started) / 1000 });
    });
  });
}

async function main(): Promise<number> {
  const server = await startDatabaseServer();
  const env = { ...process.env, SVC_TEST_DATABASE_URL: server.url, FORCE_COLOR: '0' };
  let passed = 0;
  let failed = 0;
  try {
    await ensureTemplate();
    const files = testFiles(root)
      // Matched against the path from the repository's root: a checkout whose own path holds the
      // pattern (a worktree named wt-consoleperf and `npm test -- console`) must not run everything.
      .filter((f) => filter.length === 0 || filter.some((pattern) => path.relative(path.dirname(root), f).includes(pattern)))
      .sort();
    const concurrency = Math.max(2, Math.min(4, os.cpus().length));
    const queue = [...files];
    const workers = Array.from({ length: concurrency }, async () => {
      for (let file = queue.shift(); file; file = queue.shift()) {
        const result = await runFile(file, env);
        passed += result.passed;
        failed += result.failed;
        const name = path.relative(path.dirname(root), file);
        const status = result.failed ? 'FAIL' : 'ok  ';
        process.stdout.write(`${status} ${name} (${result.passed} passed, ${result.failed} failed, ${result.seconds.toFixed(1)}s)\n`);
        if (result.failed || process.env.TEST_VERBOSE) process.stdout.write(result.output.replace(/^/gm, '    ') + '\n');
      }
    });
    await Promise.all(workers);
  } finally {
    await server.stop();
  }
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  return failed === 0 && passed > 0 ? 0 : 1;
}

process.exit(await main());
