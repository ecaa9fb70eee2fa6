/**
 * Issue 26: the keys that were only in app_settings come from the environment and rotate without
 * downtime. CURSOR_KEY="new,old": cursors signed with either key page on, others are refused; the
 * export URL key is its own (a cursor-key holder cannot forge download links); chat deliveries carry a
 * Standard Webhooks signature under the current and the previous member secret.
 */
import { createHmac } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { signCursor } from '../../../api/platform/pagination.ts';
import { chatSigningSecrets } from '../../../usecases/notifications/chat.ts';
import { keyRing } from '../../../lib/keyRing.ts';
import { signatureHeaders, standardWebhooksKey } from '../../../lib/outbound/index.ts';
import { hmacSha256, sha256Hex } from '../../../lib/crypto.ts';
import { demoToken, startTestApp, type TestApp } from '../../helpers/app.ts';
import { staffLogin } from '../../helpers/product.ts';

const OLD = 'old-cursor-key-of-at-least-32-characters';
const NEW = 'new-cursor-key-of-at-least-32-characters';
let t: TestApp;

test.before(async () => {
  t = await startTestApp({
    env: {
      CURSOR_KEY: `${NEW},${OLD}`,
      CHAT_SIGNING_KEY: `${NEW},${OLD}`,
      CSRF_KEY: `${NEW},${OLD}`,
      EXPORT_URL_KEY: 'export-url-key-of-at-least-32-characters',
    },
  });
});
test.after(async () => t?.close());

test('a cursor signed with the previous key still pages; one signed with an unknown key is refused', async () => {
  const token = await demoToken(t);
  await t.platform.post('/v1/service-accounts', { name: 'a', scopes: ['jobs:read'] }, { token });
  const first = await t.platform.get('/v1/audit-events?limit=1', { token });
  assert.is(first.status, 200, first.text);
  const cursor = first.body.page.next_cursor as string;
  assert.ok(cursor, 'a second page exists');
  const body = JSON.parse(Buffer.from(cursor.split('.')[0], 'base64url').toString('utf8'));
  const old = signCursor(keyRing([OLD]), body);
  assert.is((await t.platform.get(`/v1/audit-events?limit=1&cursor=${encodeURIComponent(old)}`, { token })).status, 200);
  const forged = signCursor(keyRing(['someone-elses-key-of-at-least-32-chars']), body);
  const refused = await t.platform.get(`/v1/audit-events?limit=1&cursor=${encodeURIComponent(forged)}`, { token });
  assert.is(refused.status, 400, refused.text);
  // New cursors are signed with the first key.
  assert.is(cursor, signCursor(keyRing([NEW]), body));
});

test('a CSRF token issued under the previous CSRF_KEY still serves its session; one under an unknown key is refused', async () => {
  const staff = await staffLogin(t);
  const session = staff.cookies.get('svc_admin_session')!;
  const issued = staff.cookies.get('svc_csrf')!;
  const nonce = issued.split('.')[0];
  // What the server issued before the rotation (CSRF_KEY=old): the same nonce, the old key's MAC.
  const under = (key: string) => `${nonce}.${hmacSha256(Buffer.from(key), `${nonce}|${sha256Hex(session)}`).toString('base64url')}`;
  assert.is(issued, under(NEW), 'new tokens are issued under the first key');
  staff.cookies.set('svc_csrf', under('someone-elses-key-of-at-least-32-chars'));
  assert.is((await staff.post('/admin/logout')).status, 403);
  staff.cookies.set('svc_csrf', under(OLD));
  const res = await staff.post('/admin/logout');
  assert.is(res.status, 204, res.text);
});

test('the export URL key is its own, not derived from the cursor key', () => {
  const derivedFromCursor = createHmac('sha256', Buffer.from(NEW)).update('export-download-url').digest();
  assert.not.ok(t.app.secrets.exportUrlKey.current.equals(derivedFromCursor));
  assert.is(t.app.secrets.exportUrlKey.current.toString(), 'export-url-key-of-at-least-32-characters');
});

test('a malformed key list stops start-up with the variable named', async () => {
  const { loadConfig } = await import('../../../lib/config.ts');
  assert.throws(() => loadConfig({ CSRF_KEY: 'short' }), /CSRF_KEY/);
});

test('during a chat key rotation a delivery is signed under the current and the previous member secret', () => {
  const secrets = chatSigningSecrets(t.app.secrets.chatSigningKey, 'ws', 'user');
  assert.is(secrets.length, 2);
  const headers = signatureHeaders(secrets[0], 'msg', '{}', new Date(1_700_000_000_000), secrets.slice(1));
  const signatures = headers['webhook-signature'].split(' ');
  assert.is(signatures.length, 2);
  for (const [i, secret] of secrets.entries()) {
    const expected = createHmac('sha256', standardWebhooksKey(secret)).update('msg.1700000000.{}').digest('base64');
    assert.is(signatures[i], `v1,${expected}`);
  }
});

test.run();
