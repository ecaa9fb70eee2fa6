/** lib/secretBox.ts: what is sealed opens under the same key and context, and nowhere else. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createSecretBox } from '../../lib/secretBox.ts';

test('a sealed secret opens under the same key and context, and the box does not contain it', () => {
  const box = createSecretBox('k'.repeat(40));
  const sealed = box.encrypt('svc_sat_the-secret', 'idempotency:abc');
  assert.not.ok(sealed.includes('the-secret'));
  assert.match(sealed, /^v1\./);
  assert.is(box.decrypt(sealed, 'idempotency:abc'), 'svc_sat_the-secret');
  assert.is.not(box.encrypt('svc_sat_the-secret', 'idempotency:abc'), sealed, 'a fresh IV per box');
});

test('another key, another context or an altered box fails to open', () => {
  const box = createSecretBox('k'.repeat(40));
  const sealed = box.encrypt('secret', 'a');
  assert.throws(() => createSecretBox('j'.repeat(40)).decrypt(sealed, 'a'));
  assert.throws(() => box.decrypt(sealed, 'b'));
  const parts = sealed.split('.');
  parts[2] = Buffer.from('tampered').toString('base64url');
  assert.throws(() => box.decrypt(parts.join('.'), 'a'));
  assert.throws(() => box.decrypt('not a box', 'a'));
});

test.run();
