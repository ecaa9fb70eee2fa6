/**
 * Every benchmark of package.json answers `--help` with its usage (exit 0, no stack trace), and a
 * bad flag with one line pointing at --help (exit 2).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { projectRoot } from '../../fixtures/svcProcess.ts';

const scripts = (JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
const benches = Object.entries(scripts)
  .filter(([name]) => name.startsWith('bench:'))
  .map(([name, command]) => ({ name: name.slice('bench:'.length), file: /bench\/\S+\.ts/.exec(command)![0] }));

const run = (file: string, ...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', file, ...args], {
    cwd: projectRoot,
    encoding: 'utf8',
    timeout: 60_000,
    env: { PATH: process.env.PATH ?? '' },
  });

test('every bench script answers --help with its usage and a bad flag with one line', () => {
  assert.ok(benches.length >= 10, `bench scripts found: ${benches.map((b) => b.name)}`);
  for (const { name, file } of benches) {
    const help = run(file, '--help');
    assert.is(help.status, 0, `${name}: ${help.stderr}`);
    assert.ok(help.stdout.startsWith(`Usage: npm run bench:${name} -- [options]\n`), `${name}: ${help.stdout.slice(0, 200)}`);
    assert.match(help.stdout, '\nOptions:\n', name);
    assert.is(help.stderr, '', name);
  }
  // They share bench/args.ts: one is enough for a bad flag.
  const bad = run('bench/tenants.ts', '--no-such-flag');
  assert.is(bad.status, 2, bad.stderr);
  assert.is(bad.stderr, `bench tenants: Unknown option '--no-such-flag'\nRun with --help for its options.\n`);
});

test.run();
