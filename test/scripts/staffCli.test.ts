import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { productClient } from '../helpers/product.ts';
import { runSvc, svcEnv } from '../../fixtures/svcProcess.ts';

let t: TestApp;
test.before(async () => {
  t = await startTestApp();
});
test.after(async () => t.close());

const staff = (...args: string[]) => runSvc(['staff', 'create', ...args], svcEnv({ DATABASE_URL: t.db.url, LOG_LEVEL: 'silent' }));

test('svc staff create seeds an employee who can sign in; re-running updates the password and role', async () => {
  const created = await staff('--email', 'Grace@Svc.Test', '--password', 'first password', '--role', 'onboarding_admin', '--name', 'Grace Hopper');
  assert.is(created.code, 0, created.stderr);
  assert.match(created.stdout, /employee grace@svc\.test created \(onboarding_admin/);
  const login = await productClient(t).post('/admin/login', { email: 'grace@svc.test', password: 'first password' });
  assert.is(login.status, 200, login.text);
  assert.is(login.body.full_name, 'Grace Hopper');
  assert.is(login.body.control_role, 'onboarding_admin');

  const updated = await staff('--email', 'grace@svc.test', '--password', 'second password', '--role', 'support_readonly');
  assert.is(updated.code, 0, updated.stderr);
  assert.match(updated.stdout, /employee grace@svc\.test updated \(support_readonly/);
  assert.is((await productClient(t).post('/admin/login', { email: 'grace@svc.test', password: 'first password' })).status, 401);
  const again = await productClient(t).post('/admin/login', { email: 'grace@svc.test', password: 'second password' });
  assert.is(again.status, 200);
  assert.is(again.body.control_role, 'support_readonly');
  assert.is(again.body.full_name, 'Grace Hopper', 'the name is kept when --name is not given');
  const { rows } = await t.app.pool.query(`select count(*)::int as n, min(password_hash) as hash from employees where email = 'grace@svc.test'`);
  assert.is(rows[0].n, 1);
  assert.match(rows[0].hash, /^scrypt\$/);
});

test('svc staff create refuses bad input with a clear message and exit code 2', async () => {
  const cases: Array<[string[], RegExp]> = [
    [['--password', 'long enough', '--role', 'onboarding_admin'], /--email is required/],
    [['--email', 'not-an-email', '--password', 'long enough', '--role', 'onboarding_admin'], /--email must be an e-mail address/],
    [['--email', 'a@b.test', '--password', 'short', '--role', 'onboarding_admin'], /--password must be at least 8 characters/],
    [['--email', 'a@b.test', '--password', 'long enough', '--role', 'root'], /--role must be one of onboarding_admin, support_readonly/],
  ];
  for (const [args, message] of cases) {
    const res = await staff(...args);
    assert.is(res.code, 2, args.join(' '));
    assert.match(res.stderr, message);
  }
  const { rows } = await t.app.pool.query(`select count(*)::int as n from employees where email = 'a@b.test'`);
  assert.is(rows[0].n, 0);
});

test.run();
