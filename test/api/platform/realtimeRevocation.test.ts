/**
 * Issue 26, finding 4: a realtime stream ends within seconds of the event that ends its authority,
 * with a close code a client can act on (4401: get a new token; 4403: no longer allowed, reason =
 * error code). One real WebSocket client per revoking event, each event made through the real API.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WebSocket } from 'ws';
import { issueTokenPair } from '../../../usecases/tokenPairs.ts';
import { startRealtime, type RealtimeServer } from '../../../api/platform/realtime/server.ts';
import { ACCESS_TOKEN_TTL_SECONDS } from '../../../lib/accessTokens.ts';
import { demoToken, startTestApp, type TestApp } from '../../helpers/app.ts';
import { TestClock } from '../../helpers/clock.ts';
import type { Client } from '../../helpers/http.ts';
import { serviceAccountToken } from '../../helpers/identities.ts';
import { addMember, addWorkspace } from '../../helpers/members.ts';
import { idpCertificate } from '../../helpers/saml.ts';

const clock = new TestClock();
let t: TestApp;
let owner: Client;
let realtime: RealtimeServer;

test.before(async () => {
  t = await startTestApp({ clock });
  owner = t.platform.as(await demoToken(t));
  realtime = await startRealtime(t.app, t.platformServer!.server, { authoritySweepMs: 100, authorityRecheckMs: 600_000 });
});
test.after(async () => {
  await realtime?.close();
  await t?.close();
});

/** Opens a stream with `token` and resolves once it is open; `closed` resolves with the close code and reason. */
async function stream(token: string) {
  const ws = new WebSocket(`${t.platformServer!.url.replace(/^http/, 'ws')}/v1/realtime`, { headers: { authorization: `Bearer ${token}` } });
  ws.on('error', () => {});
  const closed = new Promise<{ code: number; reason: string; atMs: number }>((resolve) =>
    ws.once('close', (code, reason) => resolve({ code, reason: reason.toString(), atMs: Date.now() })),
  );
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', () => reject(new Error('upgrade refused')));
  });
  // Still open after the stream's own first re-check: the token is good.
  await new Promise((r) => setTimeout(r, 200));
  assert.is(ws.readyState, WebSocket.OPEN, 'the stream opened and stayed open');
  return { ws, closed };
}

/** The stream closes with `code` (and `reason`) within 5 seconds of `event`. */
async function closesAfter(s: Awaited<ReturnType<typeof stream>>, event: () => Promise<unknown>, code: number, reason?: RegExp) {
  await event();
  const outcome = await Promise.race([s.closed, new Promise<null>((r) => setTimeout(() => r(null), 5000))]);
  assert.ok(outcome, 'the stream was not closed within 5 seconds of the event');
  assert.is(outcome!.code, code, outcome!.reason);
  if (reason) assert.match(outcome!.reason, reason);
}

const ok = (status: number, expected: number, text: string) => assert.is(status, expected, text);

test('member removal closes the member stream with 4401', async () => {
  const member = await addMember(t.app, t.demo.workspaceId, 'removed@example.com', 'member');
  const s = await stream(member.token);
  await closesAfter(
    s,
    async () => {
      const res = await owner.delete(`/v1/members/${member.userId}`);
      ok(res.status, 204, res.text);
    },
    4401,
  );
});

test('a role change re-checks the stream; a role that keeps events:read keeps it open', async () => {
  const member = await addMember(t.app, t.demo.workspaceId, 'demoted@example.com', 'admin');
  const s = await stream(member.token);
  const res = await owner.patch(`/v1/members/${member.userId}`, { role: 'viewer' });
  ok(res.status, 200, res.text);
  await new Promise((r) => setTimeout(r, 500));
  assert.is(s.ws.readyState, WebSocket.OPEN, 'viewers hold events:read: the stream stays');
  s.ws.close();
});

test('SCIM deactivation closes the provisioned user stream with 4401', async () => {
  const scimToken = (await owner.post('/v1/scim/tokens', { name: 'rt' })).body.token as string;
  const scim = (method: string, path: string, body: unknown) =>
    t.platform.request(method, `/scim/v2/demo${path}`, { token: scimToken, headers: { 'content-type': 'application/scim+json' }, raw: JSON.stringify(body) });
  const created = await scim('POST', '/Users', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'rt.user@okta.local', active: true });
  ok(created.status, 201, created.text);
  const userId = (await t.app.pool.query(`select user_id from scim_users where id = $1`, [created.body.id])).rows[0].user_id as string;
  const pair = await issueTokenPair(t.app, t.app.pool, userId, t.demo.workspaceId, 'member', '127.0.0.1');
  const s = await stream(pair.access_token);
  await closesAfter(
    s,
    async () => {
      const res = await scim('PATCH', `/Users/${created.body.id}`, {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'replace', value: { active: false } }],
      });
      ok(res.status, 200, res.text);
    },
    4401,
  );
});

test('refresh-token reuse revokes the family and closes its stream with 4401', async () => {
  const member = await addMember(t.app, t.demo.workspaceId, 'reuse@example.com', 'member');
  const pair = await issueTokenPair(t.app, t.app.pool, member.userId, t.demo.workspaceId, 'member', '127.0.0.1');
  const s = await stream(pair.access_token);
  ok((await t.platform.post('/v1/auth/refresh', { refresh_token: pair.refresh_token })).status, 200, 'first use');
  await closesAfter(s, () => t.platform.post('/v1/auth/refresh', { refresh_token: pair.refresh_token }), 4401);
});

test('sign-out closes the stream of that sign-in with 4401', async () => {
  const member = await addMember(t.app, t.demo.workspaceId, 'signout@example.com', 'member');
  const pair = await issueTokenPair(t.app, t.app.pool, member.userId, t.demo.workspaceId, 'member', '127.0.0.1');
  const s = await stream(pair.access_token);
  await closesAfter(s, () => t.platform.post('/v1/auth/sign-out', { refresh_token: pair.refresh_token }), 4401);
});

test('a revoked service-account token closes its stream with 4401', async () => {
  const token = await serviceAccountToken(owner, ['events:read']);
  const s = await stream(token);
  const accountId = (await t.app.pool.query(`select service_account_id as id from service_account_tokens order by created_at desc limit 1`)).rows[0].id;
  await closesAfter(s, () => owner.delete(`/v1/service-accounts/${accountId}`), 4401);
});

test('token expiry closes the stream with 4401', async () => {
  const member = await addMember(t.app, t.demo.workspaceId, 'expiring@example.com', 'member');
  const s = await stream(member.token);
  await closesAfter(s, async () => clock.advance((ACCESS_TOKEN_TTL_SECONDS + 60) * 1000), 4401, /expired/);
  clock.set(new Date());
});

test('mfa_required switched on closes the stream of a member without a factor with 4403 mfa_required', async () => {
  const workspace = await addWorkspace(t.app, 'rt-mfa');
  const admin = await addMember(t.app, workspace, 'owner@rt-mfa.example', 'owner');
  const member = await addMember(t.app, workspace, 'member@rt-mfa.example', 'member');
  const s = await stream(member.token);
  await closesAfter(s, () => t.platform.patch('/v1/workspaces/current', { mfa_required: true }, { token: admin.token }), 4403, /^mfa_required$/);
});

test('sso_required switched on closes the stream of a sign-in not made through SSO with 4403 sso_required', async () => {
  const workspace = await addWorkspace(t.app, 'rt-sso');
  const admin = await addMember(t.app, workspace, 'owner@rt-sso.example', 'owner');
  const connection = await t.platform.post(
    '/v1/sso/connections',
    {
      type: 'saml',
      name: 'idp',
      saml: { idp_entity_id: 'https://idp.rt-sso.example', idp_sso_url: 'https://idp.rt-sso.example/sso', idp_certificate: idpCertificate },
    },
    { token: admin.token },
  );
  ok(connection.status, 201, connection.text);
  const s = await stream(admin.token);
  await closesAfter(
    s,
    async () => {
      const res = await t.platform.patch('/v1/workspaces/current', { sso_required: true }, { token: admin.token });
      ok(res.status, 200, res.text);
    },
    4403,
    /^sso_required$/,
  );
});

test.run();
