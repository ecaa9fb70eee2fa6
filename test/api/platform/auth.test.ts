import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeJwt, SignJWT } from 'jose';
import { randomBytes } from 'node:crypto';
import { roleScopes } from '../../../domain/memberRoles.ts';
import { allScopes } from '../../../domain/scopes.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { TestClock } from '../../helpers/clock.ts';
import type { HttpResponse } from '../../helpers/http.ts';
import { startOidcProvider, type OidcProvider } from '../../helpers/oidc.ts';

const UNAUTHORIZED = 'Missing or invalid Authorization header';
const HOUR = 3600_000;
const DAY = 24 * HOUR;

const clock = new TestClock('2030-01-01T00:00:00Z');
let dev: TestApp; // AUTH_PROVIDER=none, with an injected clock
let idp: OidcProvider; // used with OIDC_JWKS_URL
let discoveredIdp: OidcProvider; // used through discovery only
let oidc: TestApp;
let discovered: TestApp;

test.before(async () => {
  [idp, discoveredIdp] = await Promise.all([startOidcProvider(), startOidcProvider({ audience: 'svc-discovery-audience' })]);
  [dev, oidc, discovered] = await Promise.all([
    startTestApp({ clock }),
    startTestApp({ env: idp.env() }),
    startTestApp({ env: discoveredIdp.env({ discovery: true }) }),
  ]);
});
test.after(async () => {
  await Promise.all([dev?.close(), oidc?.close(), discovered?.close()]);
  await Promise.all([idp?.close(), discoveredIdp?.close()]);
});

const exchange = (t: TestApp, subjectToken: unknown, extra: Record<string, unknown> = {}) =>
  t.platform.post('/v1/auth/exchange', { subject_token: subjectToken, ...extra });
const refresh = (t: TestApp, refreshToken: unknown) => t.platform.post('/v1/auth/refresh', { refresh_token: refreshToken });
const scopesOf = (res: HttpResponse) => (res.body.scope as string).split(' ').sort();

function assertError(res: HttpResponse, status: number, code: string, message?: string) {
  assert.is(res.status, status, res.text);
  assert.is(res.body.error.code, code, res.text);
  if (message !== undefined) assert.is(res.body.error.message, message);
  assert.is(res.body.error.trace_id, res.headers.get('x-request-id'));
}

function assertTokenPair(res: HttpResponse, workspaceId: string, scopes: readonly string[]) {
  assert.is(res.status, 200, res.text);
  assert.equal(Object.keys(res.body).sort(), ['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type', 'workspace_id']);
  assert.is(res.body.token_type, 'bearer');
  assert.is(res.body.expires_in, 259200);
  assert.is(res.body.workspace_id, workspaceId);
  assert.equal(scopesOf(res), [...scopes].sort());
  assert.type(res.body.refresh_token, 'string');
  assert.ok(res.body.refresh_token.length >= 32);
  const claims = decodeJwt(res.body.access_token);
  assert.is((claims.exp as number) - (claims.iat as number), 259200, 'access token lives 72 hours');
}

async function count(t: TestApp, sql: string, params: unknown[] = []): Promise<number> {
  return Number((await t.app.pool.query(sql, params)).rows[0].n);
}

/** Invites `email` with `role` as the demo owner and accepts (AUTH_PROVIDER=none trusts the invited address). */
async function devMember(email: string, role: string) {
  const owner = await exchange(dev, 'owner');
  const invite = await dev.platform.post('/v1/invitations', { email, role }, { token: owner.body.access_token });
  assert.is(invite.status, 201, invite.text);
  const accepted = await dev.platform.post('/v1/invitations/accept', {
    invitation_token: new URL(invite.body.url).searchParams.get('token'),
    subject_token: 'x',
  });
  assertTokenPair(accepted, dev.demo.workspaceId, roleScopes[role as keyof typeof roleScopes]);
  const userId = decodeJwt(accepted.body.access_token).sub!;
  return { owner: owner.body.access_token as string, pair: accepted.body, userId };
}

// --------------------------------------------------------------------------------------------
// AUTH_PROVIDER=none
// --------------------------------------------------------------------------------------------

test('none: any non-empty subject_token yields a token pair for the demo owner with every scope', async () => {
  for (const subject of ['demo', 'anything at all', 'x']) {
    const res = await exchange(dev, subject);
    assertTokenPair(res, dev.demo.workspaceId, allScopes);
    assert.is(res.body.scope, allScopes.join(' '));
    assert.is(decodeJwt(res.body.access_token).sub, dev.demo.userId);
    const jobs = await dev.platform.get('/v1/jobs', { token: res.body.access_token });
    assert.is(jobs.status, 200, jobs.text);
  }
  assert.ok((await count(dev, `select count(*) as n from audit_events where action = 'auth.token.issued' and actor_id = $1`, [dev.demo.userId])) >= 3);
});

test('none: an empty or missing subject_token is 400 validation_error', async () => {
  for (const payload of [{ subject_token: '' }, {}, { subject_token: 42 }, { subject_token: null }]) {
    const res = await dev.platform.post('/v1/auth/exchange', payload);
    assertError(res, 400, 'validation_error');
    assert.type(res.body.error.details.subject_token, 'string', res.text);
  }
  const noBody = await dev.platform.post('/v1/auth/exchange');
  assertError(noBody, 400, 'validation_error');
  const malformed = await dev.platform.post('/v1/auth/exchange', undefined, { raw: '{"subject_token":', headers: { 'content-type': 'application/json' } });
  assertError(malformed, 400, 'validation_error');
});

test('bearer rules: missing, malformed, foreign-signed or tampered tokens are 401 with the exact message', async () => {
  const good = (await exchange(dev, 'demo')).body.access_token as string;
  const claims = decodeJwt(good);
  const foreign = await new SignJWT({ ...claims }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(randomBytes(32));
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const [header, , signature] = good.split('.');
  const tampered = `${header}.${b64({ ...claims, scope: `${claims.scope} extra:scope` })}.${signature}`;
  const unsigned = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`;
  const cases: Array<[string, Record<string, string>]> = [
    ['missing header', {}],
    ['Basic scheme', { authorization: 'Basic x' }],
    ['Bearer alone', { authorization: 'Bearer' }],
    ['Bearer and a space', { authorization: 'Bearer ' }],
    ['two tokens', { authorization: `Bearer ${good} ${good}` }],
    ['token without scheme', { authorization: good }],
    ['malformed JWT', { authorization: 'Bearer abc.def.ghi' }],
    ['not a JWT', { authorization: 'Bearer not-a-token' }],
    ['signed with another secret', { authorization: `Bearer ${foreign}` }],
    ['payload changed after signing', { authorization: `Bearer ${tampered}` }],
    ['alg none', { authorization: `Bearer ${unsigned}` }],
    ['unknown service-account token', { authorization: 'Bearer svc_sat_doesnotexist' }],
    ['unknown API key', { authorization: 'Bearer svc_key_doesnotexist' }],
  ];
  for (const [what, headers] of cases) {
    const res = await dev.platform.get('/v1/jobs', { headers });
    assert.is(res.status, 401, `${what}: ${res.text}`);
    assertError(res, 401, 'unauthorized', UNAUTHORIZED);
  }
  // The same token, well-formed: accepted (the scheme is case-insensitive, RFC 9110).
  assert.is((await dev.platform.get('/v1/jobs', { headers: { authorization: `Bearer ${good}` } })).status, 200);
  assert.is((await dev.platform.get('/v1/jobs', { headers: { authorization: `bearer ${good}` } })).status, 200);
});

test('refresh: rotation returns a new pair; reusing a rotated refresh token revokes the whole family', async () => {
  const first = await exchange(dev, 'demo');
  const bystander = await exchange(dev, 'demo'); // another sign-in of the same user
  const family = decodeJwt(first.body.access_token).fam as string;

  const second = await refresh(dev, first.body.refresh_token);
  assertTokenPair(second, dev.demo.workspaceId, allScopes);
  assert.is.not(second.body.refresh_token, first.body.refresh_token);
  assert.is.not(second.body.access_token, first.body.access_token);
  assert.is(decodeJwt(second.body.access_token).fam, family, 'the rotation stays in the sign-in');
  const third = await refresh(dev, second.body.refresh_token);
  assertTokenPair(third, dev.demo.workspaceId, allScopes);
  for (const pair of [first, second, third]) assert.is((await dev.platform.get('/v1/jobs', { token: pair.body.access_token })).status, 200);

  // The first refresh token again: reuse.
  assertError(await refresh(dev, first.body.refresh_token), 401, 'invalid_grant');
  // The newest refresh token and every access token of that family stop working.
  assertError(await refresh(dev, third.body.refresh_token), 401, 'invalid_grant');
  for (const pair of [first, second, third]) {
    assertError(await dev.platform.get('/v1/jobs', { token: pair.body.access_token }), 401, 'unauthorized', UNAUTHORIZED);
  }
  const audit = (
    await dev.app.pool.query(`select workspace_id, actor_id, target_type from audit_events where action = 'auth.refresh.reuse_detected' and target_id = $1`, [
      family,
    ])
  ).rows;
  assert.equal(audit, [{ workspace_id: dev.demo.workspaceId, actor_id: dev.demo.userId, target_type: 'token_family' }]);
  const revoked = (await dev.app.pool.query('select revoked_at is not null as revoked, revoked_reason from token_families where id = $1', [family])).rows[0];
  assert.equal(revoked, { revoked: true, revoked_reason: 'refresh_token_reuse' });

  // Another sign-in is untouched, and admins can read the event.
  assert.is((await dev.platform.get('/v1/jobs', { token: bystander.body.access_token })).status, 200);
  const events = await dev.platform.get('/v1/audit-events?action=auth.refresh.reuse_detected', { token: bystander.body.access_token });
  assert.is(events.status, 200, events.text);
  assert.ok(events.body.data.some((e: any) => e.target_id === family));
});

test('refresh: garbage, empty and unknown refresh tokens', async () => {
  for (const token of ['garbage', 'svc_rt_' + randomBytes(32).toString('base64url'), (await exchange(dev, 'demo')).body.access_token]) {
    assertError(await refresh(dev, token), 401, 'invalid_grant');
  }
  for (const payload of [{ refresh_token: '' }, {}]) {
    const res = await dev.platform.post('/v1/auth/refresh', payload);
    assertError(res, 400, 'validation_error');
    assert.type(res.body.error.details.refresh_token, 'string');
  }
});

test('expiry (injected clock): access tokens after 72 h, refresh tokens after 30 days', async () => {
  const start = clock.now();
  try {
    const pair = (await exchange(dev, 'demo')).body;
    const late = (await exchange(dev, 'demo')).body;
    const spare = (await exchange(dev, 'demo')).body;

    clock.set(new Date(start.getTime() + 72 * HOUR - 1000));
    assert.is((await dev.platform.get('/v1/jobs', { token: pair.access_token })).status, 200, 'valid one second before 72 h');
    clock.set(new Date(start.getTime() + 72 * HOUR + 1000));
    assertError(await dev.platform.get('/v1/jobs', { token: pair.access_token }), 401, 'unauthorized', UNAUTHORIZED);
    // The refresh token still renews it.
    const renewed = await refresh(dev, pair.refresh_token);
    assertTokenPair(renewed, dev.demo.workspaceId, allScopes);
    assert.is((await dev.platform.get('/v1/jobs', { token: renewed.body.access_token })).status, 200);

    clock.set(new Date(start.getTime() + 30 * DAY - 1000));
    assertTokenPair(await refresh(dev, spare.refresh_token), dev.demo.workspaceId, allScopes);
    clock.set(new Date(start.getTime() + 30 * DAY + 1000));
    assertError(await refresh(dev, late.refresh_token), 401, 'invalid_grant');
    assert.is(
      await count(dev, `select count(*) as n from token_families where id = $1 and revoked_at is not null`, [decodeJwt(late.access_token).fam]),
      0,
      'expiry is not reuse',
    );
  } finally {
    clock.set(start);
  }
});

test('removing a member makes their tokens 401 at once', async () => {
  const { owner, pair, userId } = await devMember('removed@example.com', 'member');
  assert.is((await dev.platform.get('/v1/jobs', { token: pair.access_token })).status, 200);
  const removed = await dev.platform.delete(`/v1/members/${userId}`, { token: owner });
  assert.is(removed.status, 204, removed.text);
  assertError(await dev.platform.get('/v1/jobs', { token: pair.access_token }), 401, 'unauthorized', UNAUTHORIZED);
  assertError(await refresh(dev, pair.refresh_token), 401, 'invalid_grant');
});

test('a role change narrows existing tokens at once; a viewer cannot invite', async () => {
  const { owner, pair, userId } = await devMember('demoted@example.com', 'admin');
  const asAdmin = await dev.platform.post('/v1/invitations', { email: 'invitee-1@example.com', role: 'viewer' }, { token: pair.access_token });
  assert.is(asAdmin.status, 201, asAdmin.text);

  const demoted = await dev.platform.patch(`/v1/members/${userId}`, { role: 'viewer' }, { token: owner });
  assert.is(demoted.status, 200, demoted.text);
  assert.is(demoted.body.role, 'viewer');
  const asViewer = await dev.platform.post('/v1/invitations', { email: 'invitee-2@example.com', role: 'viewer' }, { token: pair.access_token });
  assertError(asViewer, 403, 'forbidden');
  assert.is(asViewer.body.error.details.required_scope, 'members:write');
  assert.is((await dev.platform.get('/v1/members', { token: pair.access_token })).status, 200, 'viewers read members');
  // A refreshed pair carries the viewer's scopes.
  const refreshed = await refresh(dev, pair.refresh_token);
  assertTokenPair(refreshed, dev.demo.workspaceId, roleScopes.viewer);
  assertError(await dev.platform.post('/v1/invitations', { email: 'invitee-3@example.com' }, { token: refreshed.body.access_token }), 403, 'forbidden');
});

// --------------------------------------------------------------------------------------------
// AUTH_PROVIDER=oidc against a real local OpenID provider
// --------------------------------------------------------------------------------------------

const OWNER_EMAIL = 'demo@svc.local'; // the seeded demo owner's address

async function assertMemberSignIn(t: TestApp, provider: OidcProvider, sub: string) {
  const res = await exchange(t, await provider.sign({ sub, email: OWNER_EMAIL, email_verified: true, name: 'Demo Owner' }));
  assertTokenPair(res, t.demo.workspaceId, allScopes);
  assert.is(decodeJwt(res.body.access_token).sub, t.demo.userId);
  const linked = (await t.app.pool.query('select user_id from user_identities where issuer = $1 and subject = $2', [provider.issuer, sub])).rows;
  assert.equal(linked, [{ user_id: t.demo.userId }], 'the identity is linked to the member');
  // Linked: the same subject signs in without any e-mail claim.
  const again = await exchange(t, await provider.sign({ sub }));
  assertTokenPair(again, t.demo.workspaceId, allScopes);
  assert.is(decodeJwt(again.body.access_token).sub, t.demo.userId);
  assert.is((await t.platform.get('/v1/members', { token: again.body.access_token })).status, 200);
}

async function assertRejections(t: TestApp, provider: OidcProvider) {
  const now = Math.floor(Date.now() / 1000);
  const member = { sub: 'rejected-subject', email: OWNER_EMAIL, email_verified: true };
  const cases: Array<[string, string]> = [
    ['wrong audience', await provider.sign({ ...member, aud: 'someone-else' })],
    ['wrong issuer', await provider.sign({ ...member, iss: 'https://evil.example.com' })],
    ['expired', await provider.sign({ ...member, iat: now - 7200, exp: now - 60 })],
    ['unpublished key, published kid', await provider.sign(member, { key: 'unpublished' })],
    ['unpublished key, unknown kid', await provider.sign(member, { key: 'unpublished', kid: 'other-key' })],
    ['garbage', 'garbage'],
    ['three garbage segments', 'aaa.bbb.ccc'],
  ];
  const valid = await provider.sign(member);
  const [h, p] = valid.split('.');
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  cases.push(['alg none', `${b64({ alg: 'none', typ: 'JWT' })}.${p}.`]);
  cases.push(['claims changed after signing', `${h}.${b64({ ...decodeJwt(valid), sub: 'someone-else' })}.${valid.split('.')[2]}`]);
  const usersBefore = await count(t, 'select count(*) as n from users');
  for (const [what, token] of cases) {
    const res = await exchange(t, token);
    assert.is(res.status, 401, `${what}: ${res.text}`);
    assertError(res, 401, 'invalid_grant');
  }
  assert.is(await count(t, 'select count(*) as n from users'), usersBefore);
  assert.is(await count(t, `select count(*) as n from user_identities where subject = 'rejected-subject'`), 0);
}

test('oidc (OIDC_JWKS_URL): a verified e-mail of a member signs in and links the identity', async () => {
  await assertMemberSignIn(oidc, idp, 'owner-subject');
  assert.is(idp.hits.get('/.well-known/openid-configuration') ?? 0, 0, 'the configured JWKS URL is used, not discovery');
  assert.ok((idp.hits.get('/jwks') ?? 0) >= 1);
});

test('oidc (discovery): a verified e-mail of a member signs in and links the identity', async () => {
  await assertMemberSignIn(discovered, discoveredIdp, 'owner-subject');
  assert.ok((discoveredIdp.hits.get('/.well-known/openid-configuration') ?? 0) >= 1, 'keys found through discovery');
  assert.ok((discoveredIdp.hits.get('/jwks') ?? 0) >= 1);
});

test('oidc (OIDC_JWKS_URL): unverifiable subject tokens are 401 invalid_grant', async () => {
  await assertRejections(oidc, idp);
  // A token of the other provider is not ours either.
  assertError(await exchange(oidc, await discoveredIdp.sign({ sub: 'x', email: OWNER_EMAIL, email_verified: true, aud: idp.audience })), 401, 'invalid_grant');
});

test('oidc (discovery): unverifiable subject tokens are 401 invalid_grant', async () => {
  await assertRejections(discovered, discoveredIdp);
});

test('oidc: an unprovisioned identity is 403 forbidden with an auth.login.denied audit event', async () => {
  const usersBefore = await count(oidc, 'select count(*) as n from users');
  const res = await exchange(oidc, await idp.sign({ sub: 'stranger', email: 'stranger@example.com', email_verified: true }));
  assertError(res, 403, 'forbidden');
  const rows = (
    await oidc.app.pool.query(`select workspace_id, actor_type, metadata from audit_events where action = 'auth.login.denied' and actor_id = $1`, [
      `${idp.issuer}#stranger`,
    ])
  ).rows;
  assert.is(rows.length, 1);
  assert.is(rows[0].workspace_id, null);
  assert.is(rows[0].actor_type, 'identity');
  assert.is(rows[0].metadata.email, 'stranger@example.com');

  // Naming a workspace attributes the denial to it, where its admins read it.
  const named = await exchange(oidc, await idp.sign({ sub: 'stranger', email: 'stranger@example.com', email_verified: true }), {
    workspace_id: oidc.demo.workspaceId,
  });
  assertError(named, 403, 'forbidden');
  const owner = await exchange(oidc, await idp.sign({ sub: 'owner-subject' }));
  assert.is(owner.status, 200, owner.text);
  const events = await oidc.platform.get('/v1/audit-events?action=auth.login.denied', { token: owner.body.access_token });
  assert.is(events.status, 200, events.text);
  assert.ok(events.body.data.some((e: any) => e.actor_id === `${idp.issuer}#stranger`));

  // A member asking for a workspace they do not belong to is denied too.
  const elsewhere = await exchange(oidc, await idp.sign({ sub: 'owner-subject' }), { workspace_id: '00000000-0000-4000-8000-000000000000' });
  assertError(elsewhere, 403, 'forbidden');
  assert.is(await count(oidc, 'select count(*) as n from users'), usersBefore, 'no user created');
});

test('oidc: an unverified e-mail of a member is 403 and is never linked', async () => {
  const usersBefore = await count(oidc, 'select count(*) as n from users');
  for (const claims of [
    { sub: 'unverified', email: OWNER_EMAIL, email_verified: false },
    { sub: 'unverified', email: OWNER_EMAIL },
    { sub: 'unverified', email: OWNER_EMAIL, email_verified: 'true' as unknown as boolean },
  ]) {
    assertError(await exchange(oidc, await idp.sign(claims)), 403, 'forbidden');
  }
  assertError(await exchange(oidc, await idp.sign({ sub: 'unverified' })), 403, 'forbidden');
  assert.is(await count(oidc, `select count(*) as n from user_identities where subject = 'unverified'`), 0);
  assert.is(await count(oidc, 'select count(*) as n from users'), usersBefore);
  assert.is(await count(oidc, `select count(*) as n from audit_events where action = 'auth.login.denied' and actor_id = $1`, [`${idp.issuer}#unverified`]), 4);
});

test('oidc: just-in-time provisioning only for verified addresses of enabled domains', async () => {
  const owner = (await exchange(oidc, await idp.sign({ sub: 'owner-subject' }))).body.access_token as string;
  const counts = async () => ({
    users: await count(oidc, 'select count(*) as n from users'),
    memberships: await count(oidc, 'select count(*) as n from memberships'),
    identities: await count(oidc, 'select count(*) as n from user_identities'),
  });

  // Off by default.
  const before = await counts();
  assertError(await exchange(oidc, await idp.sign({ sub: 'jit-early', email: 'early@example.org', email_verified: true })), 403, 'forbidden');
  assert.equal(await counts(), before);

  const enabled = await oidc.platform.patch(
    '/v1/workspaces/current',
    { jit_provisioning: { enabled: true, domains: ['example.org'], role: 'viewer' } },
    { token: owner },
  );
  assert.is(enabled.status, 200, enabled.text);
  assert.equal(enabled.body.jit_provisioning, { enabled: true, domains: ['example.org'], role: 'viewer' });
  // JIT also needs the domain verified (DNS TXT, test/api/platform/domains.test.ts): recorded directly here.
  await oidc.app.pool.query(`insert into workspace_domains (workspace_id, domain, verification_token, verified_at) values ($1, 'example.org', 't', now())`, [
    oidc.demo.workspaceId,
  ]);

  const alice = await exchange(oidc, await idp.sign({ sub: 'jit-alice', email: 'Alice@Example.org', email_verified: true, name: 'Alice' }));
  assertTokenPair(alice, oidc.demo.workspaceId, roleScopes.viewer);
  const members = await oidc.platform.get('/v1/members', { token: owner });
  assert.equal(
    members.body.data.filter((m: any) => m.email === 'alice@example.org').map((m: any) => ({ role: m.role, name: m.name })),
    [{ role: 'viewer', name: 'Alice' }],
  );
  assertError(await oidc.platform.post('/v1/invitations', { email: 'x@example.com' }, { token: alice.body.access_token }), 403, 'forbidden');
  assert.is(
    await count(oidc, `select count(*) as n from audit_events where action = 'auth.jit_provisioned' and workspace_id = $1`, [oidc.demo.workspaceId]),
    1,
  );

  const afterAlice = await counts();
  for (const claims of [
    { sub: 'jit-bob', email: 'bob@example.net', email_verified: true },
    { sub: 'jit-carol', email: 'carol@example.org', email_verified: false },
    { sub: 'jit-carol', email: 'carol@example.org' },
    { sub: 'jit-sub', email: 'dan@sub.example.org', email_verified: true },
    { sub: 'jit-suffix', email: 'eve@example.org.evil.test', email_verified: true },
    { sub: 'jit-none' },
  ]) {
    assertError(await exchange(oidc, await idp.sign(claims)), 403, 'forbidden');
  }
  assert.equal(await counts(), afterAlice, 'denied identities create no user, membership or link');

  const disabled = await oidc.platform.patch('/v1/workspaces/current', { jit_provisioning: { enabled: false } }, { token: owner });
  assert.is(disabled.status, 200, disabled.text);
  assert.is(disabled.body.jit_provisioning.enabled, false);
  assertError(await exchange(oidc, await idp.sign({ sub: 'jit-frank', email: 'frank@example.org', email_verified: true })), 403, 'forbidden');
  assert.equal(await counts(), afterAlice);
  // Alice is a member now, JIT or not.
  assertTokenPair(await exchange(oidc, await idp.sign({ sub: 'jit-alice' })), oidc.demo.workspaceId, roleScopes.viewer);

  // Only admins change the setting.
  assertError(
    await oidc.platform.patch('/v1/workspaces/current', { jit_provisioning: { enabled: true } }, { token: alice.body.access_token }),
    403,
    'forbidden',
  );
  const invalid = await oidc.platform.patch('/v1/workspaces/current', { jit_provisioning: { domains: ['not a domain'], role: 'owner' } }, { token: owner });
  assertError(invalid, 400, 'validation_error');
});

test('oidc: refresh works for OIDC sign-ins too', async () => {
  const pair = await exchange(oidc, await idp.sign({ sub: 'owner-subject' }));
  const next = await refresh(oidc, pair.body.refresh_token);
  assertTokenPair(next, oidc.demo.workspaceId, allScopes);
  assertError(await refresh(oidc, pair.body.refresh_token), 401, 'invalid_grant');
  assertError(await oidc.platform.get('/v1/jobs', { token: next.body.access_token }), 401, 'unauthorized', UNAUTHORIZED);
});

test.run();
