import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { createPool } from '../../lib/db.ts';
import { createLogger } from '../../lib/logger.ts';
import { migrate, migrationFiles } from '../../sql/migrate.ts';
import { createEmptyDatabase } from '../../fixtures/database.ts';
import { logLines, runSvc, svcEnv } from '../../fixtures/svcProcess.ts';

const commands = ['serve', 'api', 'worker', 'migrate', 'projections', 'staff', 'engine', 'ingest', 'jobs', 'outbox'];
// Settings that would let a command get as far as the database: it never answers, so a command that
// wrongly passed validation fails instead of starting an embedded server or touching real data.
const unreachable = { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' };

async function recordedMigrations(url: string): Promise<Array<{ id: number; name: string; n: number }>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query('select id, name, count(*)::int as n from schema_migrations group by id, name order by id');
    return rows;
  } finally {
    await client.end();
  }
}

const expectedMigrations = () => migrationFiles().map((f) => ({ id: f.id, name: f.name, n: 1 }));

test('--help works for every command and prints its usage', async () => {
  const results = await Promise.all(commands.map((name) => runSvc([name, '--help'], svcEnv())));
  results.forEach((res, i) => {
    assert.is(res.code, 0, `${commands[i]}: ${res.stderr}`);
    assert.match(res.stdout, `Usage: svc ${commands[i]}`);
    assert.match(res.stdout, '--help');
    assert.is(res.stderr, '');
  });
  const [short, main] = await Promise.all([
    // Help never reads settings, so even broken ones do not stop it.
    runSvc(['serve', '-h'], svcEnv({ PLATFORM_PORT: 'abc' })),
    runSvc(['--help'], svcEnv()),
  ]);
  assert.is(short.code, 0, short.stderr);
  assert.match(short.stdout, 'Usage: svc serve');
  assert.is(main.code, 0);
  for (const name of commands) assert.match(main.stdout, new RegExp(`^  ${name}\\s`, 'm'));
});

test('bare svc prints the help and exits non-zero', async () => {
  const res = await runSvc([], svcEnv());
  assert.ok(res.code !== 0 && res.code !== null, `exit ${res.code}`);
  assert.match(res.stdout + res.stderr, 'Usage: svc <command>');
});

test('an unknown command exits non-zero and names the command', async () => {
  const res = await runSvc(['frobnicate'], svcEnv(unreachable));
  assert.ok(res.code !== 0 && res.code !== null, `exit ${res.code}`);
  assert.match(res.stderr, "unknown command 'frobnicate'");
});

test('an unknown flag, a flag value where none is taken and an unexpected argument exit non-zero with a clear message', async () => {
  const [flag, value, positional] = await Promise.all([
    runSvc(['migrate', '--bogus'], svcEnv(unreachable)),
    runSvc(['serve', '--help=yes'], svcEnv(unreachable)),
    runSvc(['migrate', 'now'], svcEnv(unreachable)),
  ]);
  assert.ok(flag.code !== 0 && flag.code !== null, `exit ${flag.code}`);
  assert.match(flag.stderr, "Unknown option '--bogus'");
  assert.match(flag.stderr, 'Usage: svc migrate');
  assert.ok(value.code !== 0 && value.code !== null, `exit ${value.code}`);
  assert.match(value.stderr, '--help');
  assert.ok(positional.code !== 0 && positional.code !== null, `exit ${positional.code}`);
  assert.match(positional.stderr, "unexpected argument 'now'");
});

test('a bad setting stops start-up with a message naming the variable', async () => {
  const cases: Array<[string, Record<string, string>]> = [
    ['PLATFORM_PORT', { ...unreachable, PLATFORM_PORT: 'abc' }],
    ['PLATFORM_PORT', { ...unreachable, PLATFORM_PORT: '' }],
    ['PRODUCT_PORT', { ...unreachable, PRODUCT_PORT: '70000' }],
    ['LOG_LEVEL', { ...unreachable, LOG_LEVEL: 'loud' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://x' }],
    ['WORKER_CONCURRENCY', { ...unreachable, WORKER_CONCURRENCY: '0' }],
  ];
  const results = await Promise.all(cases.map(([, env]) => runSvc(['serve'], svcEnv(env))));
  results.forEach((res, i) => {
    const [variable, env] = cases[i];
    assert.ok(res.code !== 0 && res.code !== null, `${JSON.stringify(env)}: exit ${res.code}`);
    assert.match(res.stderr, new RegExp(`^\\s+${variable}: `, 'm'), `${JSON.stringify(env)}: ${res.stderr}`);
    assert.not.match(res.stderr, /\n\s+at /, 'no stack trace for a settings error');
  });
});

test('NODE_ENV=production with AUTH_PROVIDER=none refuses to start and names AUTH_PROVIDER', async () => {
  const res = await runSvc(['serve'], svcEnv({ ...unreachable, NODE_ENV: 'production', AUTH_PROVIDER: 'none', JWT_SECRET: 'x'.repeat(40) }));
  assert.ok(res.code !== 0 && res.code !== null, `exit ${res.code}`);
  assert.match(res.stderr, /AUTH_PROVIDER: /);
  assert.not.match(res.stderr, 'JWT_SECRET');
  const noSecret = await runSvc(['api'], svcEnv({ ...unreachable, NODE_ENV: 'production', AUTH_PROVIDER: 'none' }));
  assert.ok(noSecret.code !== 0 && noSecret.code !== null);
  assert.match(noSecret.stderr, /AUTH_PROVIDER: /);
  assert.match(noSecret.stderr, /JWT_SECRET: /);
});

test('svc migrate applies every migration to an empty database, and a second run applies nothing', async () => {
  const db = await createEmptyDatabase();
  try {
    const env = svcEnv({ DATABASE_URL: db.url, LOG_LEVEL: 'info' });
    const first = await runSvc(['migrate'], env);
    assert.is(first.code, 0, first.stderr);
    const names = migrationFiles().map((f) => f.name);
    // The result on stdout for the person; the log (JSON lines) on stderr.
    assert.is(first.stdout, `applied ${names.length} migrations: ${names.join(', ')}\n`);
    const summary = logLines(first.stderr).find((l) => l.msg === 'migrations applied');
    assert.ok(summary, first.stderr);
    assert.equal(summary.applied, names);
    assert.equal(await recordedMigrations(db.url), expectedMigrations());

    const second = await runSvc(['migrate'], env);
    assert.is(second.code, 0, second.stderr);
    assert.is(second.stdout, 'database is up to date\n');
    const lines = logLines(second.stderr);
    assert.ok(
      lines.some((l) => l.msg === 'database is up to date' && Array.isArray(l.applied) && l.applied.length === 0),
      second.stderr,
    );
    assert.not.ok(lines.some((l) => l.msg === 'migration applied'));
    assert.equal(await recordedMigrations(db.url), expectedMigrations());
  } finally {
    await db.drop();
  }
});

test('five concurrent migrations of one empty database all succeed and apply each migration once', async () => {
  const db = await createEmptyDatabase();
  const pools = Array.from({ length: 5 }, () => createPool(db.url, { max: 2 }));
  try {
    const results = await Promise.all(pools.map((pool) => migrate(pool, createLogger('silent'))));
    const applied = results.flatMap((r) => r.applied).sort();
    assert.equal(
      applied,
      migrationFiles().map((f) => f.name),
      'every migration applied by exactly one caller',
    );
    assert.equal(await recordedMigrations(db.url), expectedMigrations());
    const { rows } = await pools[0].query<{ n: number }>("select count(*)::int as n from information_schema.tables where table_schema = 'graphile_worker'");
    assert.ok(rows[0].n > 0, 'graphile-worker schema installed');
  } finally {
    await Promise.all(pools.map((pool) => pool.end()));
    await db.drop();
  }
});

test.run();
