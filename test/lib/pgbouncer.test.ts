/**
 * The API process behind a real PgBouncer in transaction pooling mode (DATABASE_POOL_MODE=transaction):
 * the suite's HTTP smoke path (ingest, list, a tenant login, a CAP update) through a pooler with two
 * server connections, so consecutive transactions land on different Postgres sessions. What needs a
 * session (migrations' advisory lock, LISTEN) goes to DATABASE_DIRECT_URL.
 */
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { loadConfig } from '../../lib/config.ts';
import { createPool } from '../../lib/db.ts';
import { startProcess, type RunningProcess } from '../../scripts/processes.ts';
import { createTestDatabase, type TestDatabase } from '../../fixtures/database.ts';
import { createTenantUser, provisionedLiveTenant } from '../../fixtures/tenants.ts';
import { client } from '../helpers/http.ts';
import { fresh } from '../helpers/errors.ts';
import { ProductClient } from '../helpers/product.ts';
import { toolAvailable } from '../helpers/tools.ts';
import { pgbouncerBinary, removeDir, serverDir, startPgBouncer, type Bouncer } from '../helpers/postgresCluster.ts';

const binary = pgbouncerBinary();
if (!binary) toolAvailable('pgbouncer', 'the connection-pooler test');
else {
  let db: TestDatabase;
  let root: string;
  let bouncer: Bouncer;
  let served: RunningProcess;

  const bouncerStats = async () => {
    const admin = new pg.Client({ connectionString: bouncer.adminUrl });
    await admin.connect();
    try {
      const stats = (await admin.query('show stats')).rows.find((r) => r.database === 'svc');
      return { transactions: Number(stats?.total_xact_count ?? 0) };
    } finally {
      await admin.end();
    }
  };

  test.before(async () => {
    db = await createTestDatabase();
    root = serverDir('svc-pgbouncer-');
    const port = Number(new URL(db.url).port || 5432);
    bouncer = await startPgBouncer(binary, root, { port, database: new URL(db.url).pathname.slice(1) }, 2);
    served = await startProcess(
      loadConfig({
        NODE_ENV: 'test',
        DATABASE_URL: bouncer.url,
        DATABASE_DIRECT_URL: db.url,
        DATABASE_POOL_MODE: 'transaction',
        LOG_LEVEL: 'silent',
        PASSWORD_SCRYPT_LOG_N: '14',
        PLATFORM_PORT: '0',
        PRODUCT_PORT: '0',
        METRICS_PORT: '0',
      }),
      { api: true, worker: false },
    );
  });

  test.after(async () => {
    await served?.stop();
    await bouncer?.stop();
    await db?.drop();
    removeDir(root);
  });

  test('ingest, list, a tenant login and a CAP update work through PgBouncer in transaction mode', async () => {
    const before = await bouncerStats();
    const platform = client(served.platform!.url);
    const exchanged = await platform.post('/v1/auth/exchange', { subject_token: 'demo' });
    assert.is(exchanged.status, 200, exchanged.text);
    const api = platform.as(exchanged.body.access_token);

    // Each hot statement runs many times, on both server connections of the pool.
    for (let round = 0; round < 4; round++) {
      const records = Array.from({ length: 20 }, (_, i) => ({
        external_id: `PB-${round}-${i}`,
        title: `Pump ${i} vibration`,
        narrative: 'Bearing noise on the cooling pump',
        severity: 'high',
        source: 'scada',
      }));
      const ingested = await api.post('/v1/ingest/batch', { records }, fresh());
      assert.is(ingested.status, 202, ingested.text);
      const listed = await api.get('/v1/issues?limit=100');
      assert.is(listed.status, 200, listed.text);
      assert.is(listed.body.data.filter((i: { external_id: string }) => i.external_id.startsWith(`PB-${round}-`)).length, 20);
    }

    const direct = createPool(db.url, { max: 2 });
    const tenant = await provisionedLiveTenant(direct);
    const user = await createTenantUser(direct, tenant.id, { roleProfile: 'admin' });
    await direct.end();

    const browser = new ProductClient(served.product!.url);
    const login = await browser.post('/login', { workspace: tenant.slug, email: user.email, password: user.password });
    assert.is(login.status, 200, login.text);
    const created = await browser.post('/remediation/caps', {
      target_type: 'other',
      target_id: `asset-${randomUUID().slice(0, 8)}`,
      title: 'Replace worn seals',
    });
    assert.is(created.status, 201, created.text);
    const updated = await browser.patch(`/remediation/caps/${created.body.id}`, { expected_version: created.body.version, title: 'Replace all worn seals' });
    assert.is(updated.status, 200, updated.text);
    assert.is(updated.body.title, 'Replace all worn seals');
    const stale = await browser.patch(`/remediation/caps/${created.body.id}`, { expected_version: created.body.version, title: 'stale' });
    assert.is(stale.status, 409);
    assert.is((await browser.get('/me')).status, 200);

    const after = await bouncerStats();
    assert.ok(after.transactions - before.transactions > 20, `the requests went through the pooler (${after.transactions - before.transactions} transactions)`);
  });
}

test.run();
