/**
 * DATABASE_REPLICA_URL against a real streaming standby: a primary of the test's own (initdb, with
 * replication allowed), a standby made by pg_basebackup, and the real process composition
 * (`startProcess`, as `svc api` runs it) reading from both.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { loadConfig } from '../../lib/config.ts';
import { createPool } from '../../lib/db.ts';
import { lsnValue } from '../../lib/readReplica.ts';
import { buildHttpApps, createAppContext, startProcess, type RunningProcess } from '../../scripts/processes.ts';
import { createLogger } from '../../lib/logger.ts';
import { listen, type RunningServer } from '../../api/http/server.ts';
import { client } from '../helpers/http.ts';
import { fresh } from '../helpers/errors.ts';
import { eventually } from '../helpers/app.ts';
import { postgresBinDir, removeDir, restartStandby, serverDir, startPrimary, startStandby, type Cluster } from '../helpers/postgresCluster.ts';

test('lsnValue orders WAL positions numerically, across the high word', () => {
  assert.ok(lsnValue('0/FFFFFFFF') < lsnValue('1/0'));
  assert.ok(lsnValue('16/B374D848') > lsnValue('16/B374D847'));
  assert.is(lsnValue('1/10'), (1n << 32n) + 16n);
});

const bin = postgresBinDir();
if (!bin) {
  if (process.env.CI) throw new Error('the replica test needs PostgreSQL server binaries (pg_basebackup) under /usr/lib/postgresql');
  process.stdout.write('SKIPPED: the read-replica test needs PostgreSQL server binaries (pg_basebackup) under /usr/lib/postgresql\n');
} else {
  let root: string;
  let primary: Cluster;
  let standby: Cluster;
  let served: RunningProcess;
  let other: { server: RunningServer; pool: pg.Pool };
  let api: ReturnType<typeof client>;
  let elsewhere: ReturnType<typeof client>;

  const titles = async (c: ReturnType<typeof client>) => {
    const res = await c.get('/v1/issues?limit=100');
    assert.is(res.status, 200, res.text);
    return new Set((res.body.data as Array<{ title: string }>).map((i) => i.title));
  };
  const onStandby = async (sql: string) => {
    const c = new pg.Client({ connectionString: standby.url() });
    await c.connect();
    try {
      return (await c.query(sql)).rows;
    } finally {
      await c.end();
    }
  };

  test.before(async () => {
    root = serverDir('svc-replica-');
    primary = await startPrimary(bin, root);
    const env = {
      NODE_ENV: 'test',
      DATABASE_URL: primary.url(),
      DATABASE_REPLICA_URL: '',
      LOG_LEVEL: 'silent',
      PASSWORD_SCRYPT_LOG_N: '14',
      PLATFORM_PORT: '0',
      PRODUCT_PORT: '0',
      METRICS_PORT: '0',
    };
    // Migrate and seed the primary, then copy it: the standby starts with the schema.
    const migrated = await startProcess(loadConfig(env), { api: false, worker: false });
    await migrated.stop();
    standby = await startStandby(bin, root, primary);
    served = await startProcess(loadConfig({ ...env, DATABASE_REPLICA_URL: standby.url() }), { api: true, worker: false });
    // A second API process without the replica: its writes are not this process's to know about.
    const pool = createPool(primary.url(), { max: 4 });
    const otherApp = await createAppContext(loadConfig(env), pool, createLogger('silent'));
    other = { server: await listen(buildHttpApps(otherApp).platform, 0, '127.0.0.1'), pool };

    const token = (await client(served.platform!.url).post('/v1/auth/exchange', { subject_token: 'demo' })).body.access_token as string;
    api = client(served.platform!.url, { token });
    elsewhere = client(other.server.url, { token });
  });

  test.after(async () => {
    await other?.server.close(1000);
    await other?.pool.end();
    await served?.stop();
    standby?.stop('immediate');
    primary?.stop('immediate');
    removeDir(root);
  });

  test('lag-tolerant reads are served by the standby; a caller reads its own write at once, even while the standby is paused', async () => {
    const first = await api.post('/v1/issues', { title: 'before the pause', severity: 'low', source: 'crm', external_id: 'R-1' }, fresh());
    assert.is(first.status, 201, first.text);
    // Once the standby has replayed it, the workspace's reads go to the standby.
    const workspaceId = (await other.pool.query("select workspace_id from issues where external_id = 'R-1'")).rows[0].workspace_id as string;
    await eventually(async () => (served.app.replica!.poolFor(workspaceId) ? true : undefined), 20_000, 'the standby to replay the write');

    await onStandby('select pg_wal_replay_pause()');
    // Another API process writes: this process has no pin for it, so its list comes from the paused standby.
    const unseen = await elsewhere.post('/v1/issues', { title: 'written elsewhere', severity: 'low', source: 'crm', external_id: 'R-2' }, fresh());
    assert.is(unseen.status, 201, unseen.text);
    const fromStandby = await titles(api);
    assert.ok(fromStandby.has('before the pause'));
    assert.not.ok(fromStandby.has('written elsewhere'), 'the list came from the primary, not the paused standby');
    assert.is((await elsewhere.get(`/v1/issues/${unseen.body.id}`)).status, 200, 'the primary has it');

    // Its own write: read back at once although the standby cannot have it (replay is paused).
    const own = await api.post('/v1/issues', { title: 'my own write', severity: 'low', source: 'crm', external_id: 'R-3' }, fresh());
    assert.is(own.status, 201, own.text);
    const seen = await titles(api);
    assert.ok(seen.has('my own write'), 'read-your-writes');
    assert.ok(seen.has('written elsewhere'), 'pinned to the primary, which has everything');
    assert.is((await api.get(`/v1/issues/${own.body.id}`)).status, 200);

    // Replay resumes: the standby catches up and the workspace's reads return to it.
    await onStandby('select pg_wal_replay_resume()');
    await eventually(async () => (served.app.replica!.poolFor(workspaceId) ? true : undefined), 20_000, 'the standby to catch up');
    const after = await titles(api);
    assert.ok(after.has('my own write') && after.has('written elsewhere'));
  });

  test('the service stays up while the standby is down, reading from the primary, and uses it again when it is back', async () => {
    standby.stop('immediate');
    for (let i = 0; i < 3; i++) assert.ok((await titles(api)).has('before the pause'), 'reads fall back to the primary');
    const written = await api.post('/v1/issues', { title: 'while the standby is down', severity: 'low', source: 'crm', external_id: 'R-4' }, fresh());
    assert.is(written.status, 201, written.text);
    assert.ok((await titles(api)).has('while the standby is down'));
    assert.is((await api.get('/v1/patterns')).status, 200);
    assert.is((await api.get('/v1/jobs')).status, 200);

    restartStandby(bin, root, standby);
    const workspaceId = (await other.pool.query("select workspace_id from issues where external_id = 'R-4'")).rows[0].workspace_id as string;
    await eventually(async () => (served.app.replica!.poolFor(workspaceId) ? true : undefined), 20_000, 'the standby to serve again');
    await onStandby('select pg_wal_replay_pause()');
    const unseen = await elsewhere.post('/v1/issues', { title: 'after the restart', severity: 'low', source: 'crm', external_id: 'R-5' }, fresh());
    assert.is(unseen.status, 201);
    // Served by the standby again: the paused standby lacks R-5.
    assert.not.ok((await titles(api)).has('after the restart'));
    await onStandby('select pg_wal_replay_resume()');
  });
}

test.run();
