import type { ChildProcess } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { purgeExpired } from '../../../sql/maintenance.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createTenantUser, liveTenant, ProductClient, productClient, seedStaff, staffLogin } from '../../helpers/product.ts';
import { logLines, spawnSvc, svcEnv } from '../../../fixtures/svcProcess.ts';

const LIMITED = '{"detail":"Too many login attempts. Try again later."}';

let t: TestApp;
let other: ChildProcess;
let otherUrl: string;

test.before(async () => {
  t = await startTestApp({ worker: true, env: { TRUST_PROXY: '1' } });
  // A second API process on the same database: the budgets must hold across both.
  other = spawnSvc(['api'], svcEnv({ DATABASE_URL: t.db.url, TRUST_PROXY: '1', PLATFORM_PORT: '0', PRODUCT_PORT: '0', METRICS_PORT: '0', LOG_LEVEL: 'info' }));
  let stdout = '';
  otherUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`second process did not start: ${stdout}`)), 30_000);
    other.stdout!.on('data', (chunk) => {
      stdout += chunk;
      const listening = logLines(stdout.slice(0, stdout.lastIndexOf('\n') + 1)).find((l) => l.msg === 'listening');
      if (listening) {
        clearTimeout(timer);
        resolve(listening.product as string);
      }
    });
    other.once('exit', (code) => reject(new Error(`second process exited ${code}: ${stdout}`)));
  });
});
test.after(async () => {
  other?.kill('SIGTERM');
  await t.close();
});

/** A browser on the given surface URL with a fixed client address. */
const browser = (base: string, ip: string) => new ProductClient(base, ip);

test('the account budget (5 / 15 min, key employee:{email}) holds across two processes and is checked before the password', async () => {
  const staff = await seedStaff(t);
  for (let i = 0; i < 5; i++) {
    const base = i % 2 ? otherUrl : t.product.base;
    const res = await browser(base, `10.1.0.${i + 1}`).post('/admin/login', { email: staff.email, password: 'wrong' });
    assert.is(res.status, 401, `attempt ${i + 1} on ${base}`);
  }
  for (const base of [t.product.base, otherUrl]) {
    const res = await browser(base, '10.1.0.99').post('/admin/login', { email: staff.email.toUpperCase(), password: staff.password });
    assert.is(res.status, 429, `right password, spent budget, on ${base}`);
    assert.is(res.text, LIMITED);
    const retryAfter = Number(res.headers.get('retry-after'));
    assert.ok(retryAfter > 15 * 60 - 30 && retryAfter <= 15 * 60, `Retry-After ${retryAfter}`);
    assert.equal(res.headers.getSetCookie(), []);
  }
  const { rows } = await t.app.pool.query('select attempts from login_attempts where key = $1', [`employee:${staff.email}`]);
  assert.is(rows[0].attempts, 5, 'refused attempts consume nothing');

  // Retry-After counts down to the end of the window the oldest attempt opened; after it, login works.
  await t.app.pool.query(`update login_attempts set window_started_at = window_started_at - interval '14 minutes' where key = $1`, [`employee:${staff.email}`]);
  const later = await browser(otherUrl, '10.1.0.98').post('/admin/login', { email: staff.email, password: staff.password });
  assert.is(later.status, 429);
  const left = Number(later.headers.get('retry-after'));
  assert.ok(left > 30 && left <= 60, `Retry-After ${left}`);
  await t.app.pool.query(`update login_attempts set window_started_at = window_started_at - interval '1 minute' where key = $1`, [`employee:${staff.email}`]);
  assert.is((await browser(t.product.base, '10.1.0.97').post('/admin/login', { email: staff.email, password: staff.password })).status, 200);
});

test('the IP budget (20 / 5 min) spans accounts and both surfaces of login, across processes', async () => {
  const ip = '10.2.0.1';
  for (let i = 0; i < 20; i++) {
    const base = i % 2 ? otherUrl : t.product.base;
    const path = i % 3 ? '/admin/login' : '/login';
    const body = path === '/login' ? { workspace: 'nowhere', email: `u${i}@x.test`, password: 'p' } : { email: `u${i}@x.test`, password: 'p' };
    assert.is((await browser(base, ip).post(path, body)).status, 401, `attempt ${i + 1}`);
  }
  const res = await browser(t.product.base, ip).post('/admin/login', { email: 'fresh@x.test', password: 'p' });
  assert.is(res.status, 429);
  assert.is(res.text, LIMITED);
  const retryAfter = Number(res.headers.get('retry-after'));
  assert.ok(retryAfter > 5 * 60 - 30 && retryAfter <= 5 * 60, `Retry-After ${retryAfter}`);
  assert.is((await browser(otherUrl, ip).post('/login', { workspace: 'x', email: 'y@x.test', password: 'p' })).status, 429);
  assert.is((await browser(t.product.base, '10.2.0.2').post('/admin/login', { email: 'fresh@x.test', password: 'p' })).status, 401, 'another IP is unaffected');
});

test('tenant account keys are per workspace: the same e-mail in two workspaces has independent budgets', async () => {
  const admin = await staffLogin(t);
  const a = await liveTenant(t, admin);
  const b = await liveTenant(t, admin);
  await createTenantUser(t, b.tenant.id, { email: a.user.email, password: a.user.password });

  for (let i = 0; i < 5; i++) {
    assert.is((await productClient(t).post('/login', { workspace: a.tenant.slug, email: a.user.email, password: 'wrong' })).status, 401);
  }
  const blocked = await productClient(t).post('/login', { workspace: a.tenant.slug, email: a.user.email, password: a.user.password });
  assert.is(blocked.status, 429);
  assert.is(blocked.text, LIMITED);
  assert.ok(Number(blocked.headers.get('retry-after')) > 0);
  const keys = await t.app.pool.query('select key from login_attempts where key like $1', [`tenant:%:${a.user.email}`]);
  assert.equal(
    keys.rows.map((r) => r.key),
    [`tenant:${a.tenant.id}:${a.user.email}`],
  );

  const elsewhere = await productClient(t).post('/login', { workspace: b.tenant.slug, email: a.user.email, password: a.user.password });
  assert.is(elsewhere.status, 200, elsewhere.text);
});

test('the hourly purge drops closed login windows and keeps open ones', async () => {
  await t.app.pool.query(
    `insert into login_attempts (key, window_started_at, attempts) values ('ip:old', now() - interval '2 hours', 3), ('ip:open', now(), 1)`,
  );
  const purged = await purgeExpired(t.app.pool);
  assert.ok(purged.login_attempts >= 1);
  const { rows } = await t.app.pool.query(`select key from login_attempts where key in ('ip:old', 'ip:open')`);
  assert.equal(rows, [{ key: 'ip:open' }]);
});

test('the hourly purge drops tenant sessions dead for 30 days, in every tenant schema, and keeps the others', async () => {
  const staff = await staffLogin(t, await seedStaff(t, { email: 'purge-admin@example.com' }));
  const { tenant, user } = await liveTenant(t, staff);
  const schema = `tenant_${tenant.id.replaceAll('-', '')}`;
  await t.app.pool.query(
    `insert into "${schema}".sessions (user_id, token_hash, expires_at, revoked_at) values
       ($1, 'purge-old', now() - interval '31 days', null),
       ($1, 'purge-revoked-recent', now() + interval '1 hour', now()),
       ($1, 'purge-live', now() + interval '1 hour', null)`,
    [user.id],
  );
  const purged = await purgeExpired(t.app.pool);
  assert.ok(purged.tenant_sessions >= 1);
  const { rows } = await t.app.pool.query(`select token_hash from "${schema}".sessions where token_hash like 'purge-%' order by token_hash`);
  assert.equal(
    rows.map((r) => r.token_hash),
    ['purge-live', 'purge-revoked-recent'],
  );
});

test.run();
