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
/** The default: the password on stdin (its first line), not on the command line; logs at info. */
const staffWithStdin = (input: string, ...args: string[]) =>
  runSvc(['staff', 'create', ...args], svcEnv({ DATABASE_URL: t.db.url, LOG_LEVEL: 'info' }), 45_000, input);

test('svc staff create reads the password from stdin; --json prints only the JSON result on stdout', async () => {
  const res = await staffWithStdin('piped password\nignored second line\n', '--email', 'ada@svc.test', '--role', 'support_readonly', '--json');
  assert.is(res.code, 0, res.stderr);
  const out = JSON.parse(res.stdout);
  assert.equal(Object.keys(out).sort(), ['created', 'email', 'id', 'role']);
  assert.is(out.email, 'ada@svc.test');
  assert.is(out.created, true);
  assert.not.match(res.stdout + res.stderr, 'piped password', 'the password is not printed or logged');
  const login = await productClient(t).post('/admin/login', { email: 'ada@svc.test', password: 'piped password' });
  assert.is(login.status, 200, login.text);

  const empty = await staffWithStdin('', '--email', 'ada@svc.test', '--role', 'support_readonly');
  assert.is(empty.code, 2);
  assert.is(empty.stderr.trim().split('\n').length, 1, empty.stderr);
  assert.match(empty.stderr, /^svc staff: the password is read from stdin/);
  const short = await staffWithStdin('short\n', '--email', 'ada@svc.test', '--role', 'support_readonly');
  assert.is(short.code, 2);
  assert.match(short.stderr, /^svc staff: the password must be at least 8 characters\n$/);
});

test('svc staff create --password still works (documented as discouraged) and warns on stderr', async () => {
  const res = await staff('--email', 'flag@svc.test', '--password', 'flag password', '--role', 'support_readonly');
  assert.is(res.code, 0, res.stderr);
  assert.match(res.stderr, /--password is visible to other users/);
});

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
