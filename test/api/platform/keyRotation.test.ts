/**
 * Issue 26: the keys that were only in app_settings come from the environment and rotate without
 * downtime. CURSOR_KEY="new,old": cursors signed with either key page on, others are refused; the
 * export URL key is its own (a cursor-key holder cannot forge download links); chat deliveries carry a
 * Standard Webhooks signature under the current and the previous member secret.
 */
import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { signCursor } from '../../../api/platform/pagination.ts';
import { chatSigningSecrets } from '../../../usecases/notifications/chat.ts';
import { notificationChatTask } from '../../../jobs/tasks/notification__chat.ts';
import { keyRing } from '../../../lib/keyRing.ts';
import { insertDeliveries, insertNotifications } from '../../../sql/notifications.ts';
import { signatureHeaders, standardWebhooksKey } from '../../../lib/outbound/index.ts';
import { hmacSha256, sha256Hex } from '../../../lib/crypto.ts';
import { demoToken, startTestApp, type TestApp } from '../../helpers/app.ts';
import { addMember } from '../../helpers/members.ts';
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

test('a chat delivery sent during the rotation verifies under the secret the member held before it, and under the new one', async () => {
  const received: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];
  const receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  try {
    const member = await addMember(t.app, t.demo.workspaceId, 'chat.rotation@example.com');
    const prefs = await t.platform.patch(
      '/v1/me/notifications',
      { chat_webhook_url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook` },
      { token: member.token },
    );
    assert.is(prefs.status, 200, prefs.text);
    const [notification] = await insertNotifications(t.app.pool, t.demo.workspaceId, new Date(), [
      {
        user_id: member.userId,
        kind: 'issue_escalated_critical',
        subject_type: 'issue',
        subject_id: randomUUID(),
        title: 'Rotation',
        body: 'b',
        link: null,
        in_app: true,
      },
    ]);
    const [delivery] = await insertDeliveries(t.app.pool, t.demo.workspaceId, [
      { notification_id: notification.id, user_id: member.userId, channel: 'chat', digest: false, due_at: new Date() },
    ]);
    // The job itself (this app runs no worker).
    const result = await notificationChatTask.run(
      { delivery_id: delivery.id },
      {
        app: t.app,
        runId: randomUUID(),
        attempt: 1,
        maxAttempts: 8,
        workspaceId: t.demo.workspaceId,
        tenantId: null,
        progress: async () => {},
        signal: new AbortController().signal,
      },
    );
    assert.equal(result, { status: 'sent', status_code: 200 });
    assert.is(received.length, 1);
    const [before] = chatSigningSecrets(keyRing([OLD]), t.demo.workspaceId, member.userId);
    const [after] = chatSigningSecrets(keyRing([NEW]), t.demo.workspaceId, member.userId);
    assert.is(prefs.body.chat_signing_secret, after, 'members are shown the secret under the current key');
    const headers = received[0].headers as Record<string, string>;
    for (const secret of [before, after])
      assert.not.throws(() => new Webhook(secret).verify(received[0].body, headers), secret === before ? 'old secret' : 'new secret');
  } finally {
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
});

test.run();
