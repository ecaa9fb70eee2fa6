/** A password hash below the configured scrypt cost is replaced at the next successful login (issue 18). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { hashPassword, setPasswordHashCost } from '../../../lib/passwords.ts';
import { upsertEmployee } from '../../../sql/employees.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { productClient, seedStaff } from '../../helpers/product.ts';

let t: TestApp;
test.before(async () => {
  t = await startTestApp();
});
test.after(async () => t.close());

test('staff login with a weaker stored hash succeeds and upgrades the hash; a wrong password changes nothing', async () => {
  const staff = await seedStaff(t);
  setPasswordHashCost(10);
  const weak = await hashPassword(staff.password);
  setPasswordHashCost(t.config.PASSWORD_SCRYPT_LOG_N);
  await upsertEmployee(t.app.pool, { email: staff.email, passwordHash: weak, role: staff.role });
  const stored = async () => (await t.app.pool.query('select password_hash from employees where id = $1', [staff.id])).rows[0].password_hash as string;

  assert.is((await productClient(t).post('/admin/login', { email: staff.email, password: 'wrong password' })).status, 401);
  assert.is(await stored(), weak);
  assert.is((await productClient(t).post('/admin/login', { email: staff.email, password: staff.password })).status, 200);
  assert.match(await stored(), new RegExp(`^scrypt\\$${2 ** t.config.PASSWORD_SCRYPT_LOG_N}\\$8\\$1\\$`));
  assert.is((await productClient(t).post('/admin/login', { email: staff.email, password: staff.password })).status, 200);
});

test.run();
