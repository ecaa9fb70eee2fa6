/** lib/passwords.ts: OWASP's scrypt cost by default, weaker stored hashes upgraded, forged costs refused. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../lib/config.ts';
import { hashPassword, setPasswordHashCost, upgradedHash, verifyPassword } from '../../lib/passwords.ts';

test('new hashes use N=2^17, r=8, p=1 unless the process lowered the cost', async () => {
  const hash = await hashPassword('correct horse battery staple');
  assert.match(hash, /^scrypt\$131072\$8\$1\$/);
  assert.ok(await verifyPassword('correct horse battery staple', hash));
  assert.is(await upgradedHash('correct horse battery staple', hash), null);
  assert.is(loadConfig({}).PASSWORD_SCRYPT_LOG_N, 17);
  assert.throws(() => loadConfig({ NODE_ENV: 'production', PASSWORD_SCRYPT_LOG_N: '14' }), /PASSWORD_SCRYPT_LOG_N: must be at least 17/);
});

test('a hash made with a weaker cost verifies and is upgraded; a forged huge cost is refused', async () => {
  setPasswordHashCost(10);
  const weak = await hashPassword('pw');
  setPasswordHashCost(12);
  assert.match(weak, /^scrypt\$1024\$/);
  assert.ok(await verifyPassword('pw', weak));
  const upgraded = await upgradedHash('pw', weak);
  assert.match(upgraded ?? '', /^scrypt\$4096\$8\$1\$/);
  assert.ok(await verifyPassword('pw', upgraded!));
  const forged = weak.replace('$1024$', `$${2 ** 30}$`);
  assert.not.ok(await verifyPassword('pw', forged));
});

test.run();
