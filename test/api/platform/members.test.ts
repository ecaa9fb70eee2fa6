import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeJwt } from 'jose';
import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../../../lib/crypto.ts';
import { roleScopes, type Role } from '../../../domain/memberRoles.ts';
import { allScopes } from '../../../domain/scopes.ts';
import { eventually, startTestApp, type TestApp } from '../../helpers/app.ts';
import { TestClock } from '../../helpers/clock.ts';
import type { Client, HttpResponse } from '../../helpers/http.ts';
import { listAll } from '../../helpers/isolation.ts';
import { startOidcProvider, type OidcProvider } from '../../helpers/oidc.ts';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MISSING = '00000000-0000-4000-8000-000000000000';
const DAY = 24 * 3600_000;
const PROVISION_KEY = `pk_${randomBytes(16).toString('hex')}`;
const APP_URL = 'https://console.example.test';

// AUTH_PROVIDER=oidc against a local provider, a worker delivering mail to a local SMTP sink, and an
// injected clock shared by the service and the provider (so that subject tokens stay current).
const clock = new TestClock();
let idp: OidcProvider;
let smtp: SmtpSink;
let t: TestApp;
let owner: Client;

test.before(async () => {
  [idp, smtp] = await Promise.all([startOidcProvider({ clock }), startSmtpSink()]);
  t = await startTestApp({
    clock,
    worker: true,
    env: { ...idp.env(), SMTP_URL: smtp.url, APP_URL, SVC_PROVISION_KEY_HASHES: sha256Hex(PROVISION_KEY) },
  });
  owner = t.platform.as(await signIn('owner-sub', 'demo@svc.local'));
});
test.after(async () => {
  await t?.close();
  await Promise.all([idp?.close(), smtp?.close()]);
});

function assertError(res: HttpResponse, status: number, code: string) {
  assert.is(res.status, status, res.text);
  assert.is(res.body.error.code, code, res.text);
  assert.is(res.body.error.trace_id, res.headers.get('x-request-id'));
}

const subjectToken = (sub: string, email: string, extra: { email_verified?: boolean; name?: string } = {}) =>
  idp.sign({ sub, email, email_verified: true, ...extra });

async function signIn(sub: string, email: string): Promise<string> {
  const res = await t.platform.post('/v1/auth/exchange', { subject_token: await subjectToken(sub, email) });
  assert.is(res.status, 200, res.text);
  return res.body.access_token;
}

const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;

async function invite(email: string, role: Role, as: Client = owner) {
  const res = await as.post('/v1/invitations', { email, role });
  assert.is(res.status, 201, res.text);
  return res.body;
}

async function accept(invitationToken: string, sub: string, email: string, extra: { email_verified?: boolean; name?: string } = {}) {
  return t.platform.post('/v1/invitations/accept', { invitation_token: invitationToken, subject_token: await subjectToken(sub, email, extra) });
}

/** A member with `role`, signed in: invite, accept, and a refresh after any later role change. */
async function member(name: string, role: Role) {
  const email = `${name}@example.com`;
  const invitation = await invite(email, role);
  const res = await accept(tokenOf(invitation.url), `${name}-sub`, email);
  assert.is(res.status, 200, res.text);
  return { email, userId: decodeJwt(res.body.access_token).sub!, pair: res.body, api: t.platform.as(res.body.access_token) };
}

async function membersByEmail(): Promise<Record<string, any>> {
  return Object.fromEntries((await listAll(owner, '/v1/members')).map((m) => [m.email, m]));
}

test('members are listed with their roles', async () => {
  const res = await owner.get('/v1/members');
  assert.is(res.status, 200, res.text);
  assert.is(res.body.page.total, 1);
  const [only] = res.body.data;
  assert.equal(Object.keys(only).sort(), ['email', 'joined_at', 'membership_id', 'name', 'role', 'user_id']);
  assert.equal(
    { ...only, membership_id: 'x', joined_at: 'x' },
    { user_id: t.demo.userId, membership_id: 'x', email: 'demo@svc.local', name: 'Demo Owner', role: 'owner', joined_at: 'x' },
  );
  assert.match(only.joined_at, ISO);
  assertError(await owner.get('/v1/members?role=superuser'), 400, 'validation_error');
  assertError(await t.platform.get('/v1/members'), 401, 'unauthorized');
});

test('invite by e-mail: 201 with the link, a real e-mail through the mail__send job, the job pollable and invisible elsewhere', async () => {
  const res = await owner.post('/v1/invitations', { email: 'New.Person@Example.com', role: 'member' });
  assert.is(res.status, 201, res.text);
  assert.equal(Object.keys(res.body).sort(), ['accepted_at', 'created_at', 'email', 'expires_at', 'id', 'role', 'status', 'url']);
  assert.is(res.body.email, 'new.person@example.com');
  assert.is(res.body.role, 'member');
  assert.is(res.body.status, 'pending');
  assert.is(res.body.accepted_at, null);
  assert.is(res.body.expires_at, new Date(clock.now().getTime() + 7 * DAY).toISOString());
  assert.ok(res.body.url.startsWith(`${APP_URL}/`), res.body.url);
  const stored = (await t.app.pool.query('select token_hash from invitations where id = $1', [res.body.id])).rows[0];
  assert.is(stored.token_hash, sha256Hex(tokenOf(res.body.url)), 'only the hash of the invitation token is stored');

  const mail = await smtp.waitFor((m) => m.to.includes('new.person@example.com'));
  assert.is(mail.subject, 'You are invited to Demo workspace on svc');
  assert.ok(mail.text.includes(res.body.url), mail.text);
  assert.ok(mail.text.includes('member'), mail.text);
  const linked = /https?:\/\/\S+/.exec(mail.text)![0];
  assert.is(linked, res.body.url, 'the e-mailed link is the one returned');

  const jobId = (
    await t.app.pool.query(
      `select j.id from job_runs j join outbox_emails o on o.id::text = j.payload->>'outbox_email_id'
        where j.kind = 'mail__send' and o.to_address = 'new.person@example.com'`,
    )
  ).rows[0].id as string;
  const job = await eventually(
    async () => {
      const polled = await owner.get(`/v1/jobs/${jobId}`);
      assert.is(polled.status, 200, polled.text);
      return polled.body.status === 'succeeded' ? polled.body : undefined;
    },
    15_000,
    'the mail job to succeed',
  );
  assert.is(job.kind, 'mail__send');
  assert.is(job.progress, 100);
  assert.is(job.error_detail, null);
  assert.equal(job.result, { status: 'sent' });
  assert.match(job.finished_at, ISO);
  const outbox = (await t.app.pool.query(`select id, status from outbox_emails where to_address = 'new.person@example.com'`)).rows[0];
  assert.is(outbox.status, 'sent');
  assert.is(mail.headers['message-id'], `<${outbox.id}@svc.local>`, 'the Message-ID is derived from the outbox row: the same on every attempt');

  // Another workspace (provisioned, its API key holds jobs:read) cannot see the job.
  const other = await t.platform.post(
    '/v1/provisioning/clients',
    { organization: { name: 'Elsewhere', slug: 'elsewhere' }, owner: { email: 'boss@elsewhere.example.com' } },
    { token: PROVISION_KEY },
  );
  assert.is(other.status, 201, other.text);
  assert.ok(other.body.api_key.scopes.includes('jobs:read'));
  const elsewhere = t.platform.as(other.body.api_key.secret);
  assertError(await elsewhere.get(`/v1/jobs/${jobId}`), 404, 'not_found');
  assert.not.ok((await listAll(elsewhere, '/v1/jobs')).some((j) => j.id === jobId));
  // That provisioning's owner invite went out too.
  const ownerMail = await smtp.waitFor((m) => m.to.includes('boss@elsewhere.example.com'));
  assert.ok(ownerMail.text.includes(other.body.owner_invite.url));
});

test('accept: the invited identity gets a token pair and becomes a member with the role; twice is 409', async () => {
  const mail = await smtp.waitFor((m) => m.to.includes('new.person@example.com'));
  const invitationToken = tokenOf(/https?:\/\/\S+/.exec(mail.text)![0]);
  const res = await accept(invitationToken, 'new-person-sub', 'new.person@example.com', { name: 'New Person' });
  assert.is(res.status, 200, res.text);
  assert.is(res.body.token_type, 'bearer');
  assert.is(res.body.expires_in, 259200);
  assert.is(res.body.workspace_id, t.demo.workspaceId);
  assert.equal(res.body.scope.split(' ').sort(), [...roleScopes.member].sort());
  assert.is((await t.platform.get('/v1/jobs', { token: res.body.access_token })).status, 200);

  const members = await membersByEmail();
  assert.is(members['new.person@example.com'].role, 'member');
  assert.is(members['new.person@example.com'].name, 'New Person');
  assert.is(members['new.person@example.com'].user_id, decodeJwt(res.body.access_token).sub);
  const invitation = (await listAll(owner, '/v1/invitations')).find((i) => i.email === 'new.person@example.com');
  assert.is(invitation!.status, 'accepted');
  assert.match(invitation!.accepted_at as string, ISO);
  // The identity is linked: a later sign-in needs no e-mail claim.
  const later = await t.platform.post('/v1/auth/exchange', { subject_token: await idp.sign({ sub: 'new-person-sub' }) });
  assert.is(later.status, 200, later.text);

  assertError(await accept(invitationToken, 'new-person-sub', 'new.person@example.com'), 409, 'conflict');
  assert.is(Number((await t.app.pool.query(`select count(*) as n from audit_events where action = 'invitation.accepted'`)).rows[0].n), 1);
});

test('accept: unknown token 404, unverifiable subject 401, another or unverified identity 403', async () => {
  assertError(await accept('svc_inv_unknown', 'x-sub', 'x@example.com'), 404, 'not_found');
  const invitation = await invite('guarded@example.com', 'viewer');
  const token = tokenOf(invitation.url);
  assertError(await t.platform.post('/v1/invitations/accept', { invitation_token: token, subject_token: 'garbage' }), 401, 'invalid_grant');
  assertError(
    await t.platform.post('/v1/invitations/accept', {
      invitation_token: token,
      subject_token: await idp.sign({ sub: 'g', email: 'guarded@example.com', email_verified: true }, { key: 'unpublished' }),
    }),
    401,
    'invalid_grant',
  );
  assertError(await accept(token, 'someone-sub', 'someone.else@example.com'), 403, 'forbidden');
  assertError(await accept(token, 'guarded-sub', 'guarded@example.com', { email_verified: false }), 403, 'forbidden');
  for (const payload of [{ invitation_token: token }, { invitation_token: '', subject_token: 'x' }, { subject_token: 'x' }]) {
    assertError(await t.platform.post('/v1/invitations/accept', payload), 400, 'validation_error');
  }
  // None of that consumed the invitation or created the user.
  assert.is((await listAll(owner, '/v1/invitations')).find((i) => i.id === invitation.id)!.status, 'pending');
  assert.is(Number((await t.app.pool.query(`select count(*) as n from users where email = 'guarded@example.com'`)).rows[0].n), 0);
  const ok = await accept(token, 'guarded-sub', 'GUARDED@example.com');
  assert.is(ok.status, 200, ok.text);
});

test('accept: an invitation expires after 7 days (409)', async () => {
  const start = clock.now();
  const early = await invite('early@example.com', 'viewer');
  const late = await invite('late@example.com', 'viewer');
  try {
    clock.set(new Date(start.getTime() + 7 * DAY - 1000));
    assert.is((await accept(tokenOf(early.url), 'early-sub', 'early@example.com')).status, 200);
    clock.set(new Date(start.getTime() + 7 * DAY + 1000));
    assertError(await accept(tokenOf(late.url), 'late-sub', 'late@example.com'), 409, 'conflict');
    const listed = (await listAll(t.platform.as(await signIn('owner-sub', 'demo@svc.local')), '/v1/invitations')).find((i) => i.id === late.id);
    assert.is(listed!.status, 'expired');
  } finally {
    clock.set(start);
  }
  assert.not.ok((await membersByEmail())['late@example.com']);
});

test('revoke: a pending invitation answers 200 revoked, then accept is 409; revoking again 409, unknown 404', async () => {
  const invitation = await invite('revoked@example.com', 'member');
  const res = await owner.delete(`/v1/invitations/${invitation.id}`);
  assert.is(res.status, 200, res.text);
  assert.is(res.body.id, invitation.id);
  assert.is(res.body.status, 'revoked');
  assertError(await accept(tokenOf(invitation.url), 'revoked-sub', 'revoked@example.com'), 409, 'conflict');
  assertError(await owner.delete(`/v1/invitations/${invitation.id}`), 409, 'conflict');
  assertError(await owner.delete(`/v1/invitations/${MISSING}`), 404, 'not_found');
  assertError(await owner.delete('/v1/invitations/not-a-uuid'), 404, 'not_found');
  assert.is(
    Number(
      (await t.app.pool.query(`select count(*) as n from audit_events where action = 'invitation.revoked' and target_id = $1`, [invitation.id])).rows[0].n,
    ),
    1,
  );
  const revokedOnly = await owner.get('/v1/invitations?status=revoked');
  assert.ok(revokedOnly.body.data.every((i: any) => i.status === 'revoked'));
  assert.ok(revokedOnly.body.data.some((i: any) => i.id === invitation.id));
});

test('invite: a new invitation replaces the pending one; members cannot be invited; validation', async () => {
  const first = await invite('twice@example.com', 'viewer');
  const second = await invite('twice@example.com', 'member');
  const invitations = await listAll(owner, '/v1/invitations');
  assert.is(invitations.find((i) => i.id === first.id)!.status, 'revoked');
  assert.is(invitations.find((i) => i.id === second.id)!.status, 'pending');
  assertError(await accept(tokenOf(first.url), 'twice-sub', 'twice@example.com'), 409, 'conflict');

  assertError(await owner.post('/v1/invitations', { email: 'new.person@example.com', role: 'viewer' }), 409, 'conflict');
  assertError(await owner.post('/v1/invitations', { email: 'DEMO@svc.local' }), 409, 'conflict');
  for (const payload of [{ email: 'not-an-email' }, { email: 'x@example.com', role: 'superuser' }, {}]) {
    assertError(await owner.post('/v1/invitations', payload), 400, 'validation_error');
  }
  // The default role is member.
  const byDefault = await owner.post('/v1/invitations', { email: 'default-role@example.com' });
  assert.is(byDefault.body.role, 'member');
  // A member may not invite (members:write).
  const plain = await member('plain', 'member');
  const denied = await plain.api.post('/v1/invitations', { email: 'y@example.com', role: 'viewer' });
  assertError(denied, 403, 'forbidden');
});

test('change a role; unknown members 404; the last owner cannot be demoted or removed (409)', async () => {
  const person = await member('promoted', 'member');
  const res = await owner.patch(`/v1/members/${person.userId}`, { role: 'admin' });
  assert.is(res.status, 200, res.text);
  assert.equal(
    { ...res.body, joined_at: 'x', membership_id: 'x' },
    { user_id: person.userId, membership_id: 'x', email: person.email, name: 'promoted', role: 'admin', joined_at: 'x' },
  );
  assert.is((await membersByEmail())[person.email].role, 'admin');
  const audit = (await t.app.pool.query(`select metadata from audit_events where action = 'member.role_changed' and target_id = $1`, [person.userId])).rows;
  assert.equal(
    audit.map((r) => r.metadata),
    [{ from: 'member', to: 'admin' }],
  );
  assertError(await owner.patch(`/v1/members/${person.userId}`, { role: 'superuser' }), 400, 'validation_error');
  assertError(await owner.patch(`/v1/members/${MISSING}`, { role: 'viewer' }), 404, 'not_found');
  assertError(await owner.patch('/v1/members/not-a-uuid', { role: 'viewer' }), 404, 'not_found');
  assertError(await owner.delete(`/v1/members/${MISSING}`), 404, 'not_found');

  // The only owner.
  assertError(await owner.patch(`/v1/members/${t.demo.userId}`, { role: 'admin' }), 409, 'conflict');
  assertError(await owner.delete(`/v1/members/${t.demo.userId}`), 409, 'conflict');
  assert.is((await membersByEmail())['demo@svc.local'].role, 'owner');

  // With a second owner the first may step down; then the second is the last one.
  const coOwner = await member('co-owner', 'member');
  assert.is((await owner.patch(`/v1/members/${coOwner.userId}`, { role: 'owner' })).status, 200);
  const coOwnerApi = t.platform.as((await t.platform.post('/v1/auth/refresh', { refresh_token: coOwner.pair.refresh_token })).body.access_token);
  assert.is((await owner.patch(`/v1/members/${t.demo.userId}`, { role: 'admin' })).status, 200);
  assertError(await coOwnerApi.patch(`/v1/members/${coOwner.userId}`, { role: 'admin' }), 409, 'conflict');
  assertError(await coOwnerApi.delete(`/v1/members/${coOwner.userId}`), 409, 'conflict');
  // Restore the demo owner, and remove the co-owner (an owner may remove another owner).
  assert.is((await coOwnerApi.patch(`/v1/members/${t.demo.userId}`, { role: 'owner' })).status, 200);
  owner = t.platform.as(await signIn('owner-sub', 'demo@svc.local'));
  assert.is((await owner.delete(`/v1/members/${coOwner.userId}`)).status, 204);
  assertError(await coOwnerApi.get('/v1/members'), 401, 'unauthorized');
});

test('an admin manages members and viewers but cannot grant, change or remove the owner role (403)', async () => {
  const adminMember = await member('the-admin', 'admin');
  const admin = adminMember.api;
  assert.equal((adminMember.pair.scope as string).split(' ').sort(), [...allScopes].sort());
  const target = await member('target', 'member');

  assertError(await admin.patch(`/v1/members/${target.userId}`, { role: 'owner' }), 403, 'forbidden');
  assertError(await admin.post('/v1/invitations', { email: 'would-be-owner@example.com', role: 'owner' }), 403, 'forbidden');
  assertError(await admin.patch(`/v1/members/${t.demo.userId}`, { role: 'admin' }), 403, 'forbidden');
  assertError(await admin.delete(`/v1/members/${t.demo.userId}`), 403, 'forbidden');
  const members = await membersByEmail();
  assert.is(members[target.email].role, 'member');
  assert.is(members['demo@svc.local'].role, 'owner');

  assert.is((await admin.patch(`/v1/members/${target.userId}`, { role: 'viewer' })).status, 200);
  assert.is((await admin.post('/v1/invitations', { email: 'another-admin@example.com', role: 'admin' })).status, 201);
  // Removal: 204, gone from the list, tokens dead at once, a second removal 404.
  const removed = await admin.delete(`/v1/members/${target.userId}`);
  assert.is(removed.status, 204, removed.text);
  assert.not.ok((await membersByEmail())[target.email]);
  assertError(await target.api.get('/v1/jobs'), 401, 'unauthorized');
  assertError(await admin.delete(`/v1/members/${target.userId}`), 404, 'not_found');
});

test.run();
