/**
 * Runs the real `svc` CLI (`node scripts/svc.js …`) as a child process with an environment built
 * explicitly, so nothing from the test runner (DATABASE_URL above all) leaks into it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The minimal environment of a child svc process plus `extra`. */
export function svcEnv(extra: Record<string, string> = {}): Record<string, string> {
  // PASSWORD_SCRYPT_LOG_N: the suite's cost (test/helpers/app.ts), not production's 128 MB hashes.
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', PASSWORD_SCRYPT_LOG_N: '14', ...extra };
}

export function spawnSvc(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['scripts/svc.js', ...args], { cwd: projectRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
}

export interface SvcResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion; a command still running after `timeoutMs` is killed (and fails). */
export function runSvc(args: string[], env: Record<string, string>, timeoutMs = 45_000): Promise<SvcResult> {
  const child = spawnSvc(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** The JSON log lines of a process's stdout. */
export function logLines(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
