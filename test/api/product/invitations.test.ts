/**
 * Invitations: the e-mail (real SMTP sink) and its link, hashed tokens, listing, accept-invite
 * (upsert on (tenant, email), role grant, both cookies, no CSRF needed), the 400s for accepted,
 * expired, unknown or foreign tokens, and the login rate limit on accept-invite.
 */
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sha256Hex } from '../../../lib/crypto.ts';
import { findTenant } from '../../../sql/tenants.ts';
import { withTenant } from '../../../sql/tenant/schema.ts';
import { TestClock } from '../../helpers/clock.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createTenant, productClient, provisionTenant, setCookies, setTenantState, staffLogin } from '../../helpers/product.ts';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp.ts';

const INVALID = 'This invitation is not pending or has expired.';
const clock = new TestClock('2025-03-01T09:00:00Z');
let t: TestApp;
let smtp: SmtpSink;
let admin: Awaited<ReturnType<typeof staffLogin>>;
let tenant: { id: string; slug: string };

test.before(async () => {
  smtp = await startSmtpSink();
  t = await startTestApp({ worker: true, clock, env: { SMTP_URL: smtp.url } });
  admin = await staffLogin(t);
  tenant = await createTenant(admin, { company: 'Globex' });
  await provisionTenant(t, admin, tenant.id);
});
test.after(async () => {
  await t.close();
  await smtp.close();
});

/** Invites and returns the token from the e-mail's link (the mail is taken out of the sink). */
async function invite(email: string, roleProfile: string, fullName?: string): Promise<{ token: string; invitation: { id: string } }> {
  const res = await admin.post(`/admin/tenants/${tenant.id}/invite`, { email, role_profile: roleProfile, full_name: fullName });
  assert.is(res.status, 201, res.text);
  const mail = await smtp.waitFor((m) => m.to.includes(email.toLowerCase()));
  const link = new RegExp(`${t.config.APP_URL.replace(/\./g, '\\.')}/accept-invite\\?workspace=${tenant.slug}&token=([A-Za-z0-9_-]+)`).exec(mail.text);
  assert.ok(link, mail.text);
  smtp.messages.splice(smtp.messages.indexOf(mail), 1);
  return { token: link![1], invitation: res.body };
}

test('invite: 201 pending invitation, hashed token, e-mail with the accept link; listed newest first', async () => {
  const res = await admin.post(`/admin/tenants/${tenant.id}/invite`, { email: 'Ann@Globex.test', role_profile: 'analyst', full_name: 'Ann Analyst' });
  assert.is(res.status, 201, res.text);
  assert.equal(
    {
      email: res.body.email,
      role: res.body.role_profile,
      status: res.body.status,
      name: res.body.full_name,
      expired: res.body.expired,
      expires_at: res.body.expires_at,
    },
    { email: 'ann@globex.test', role: 'analyst', status: 'pending', name: 'Ann Analyst', expired: false, expires_at: '2025-03-08T09:00:00.000Z' },
  );
  const mail = await smtp.waitFor((m) => m.to.includes('ann@globex.test'));
  assert.is(mail.subject, 'You are invited to Globex on svc');
  const token = /token=([A-Za-z0-9_-]+)/.exec(mail.text)![1];
  assert.ok(mail.text.includes(`${t.config.APP_URL}/accept-invite?workspace=${tenant.slug}&token=${token}`), mail.text);
  smtp.messages.splice(smtp.messages.indexOf(mail), 1);

  const schema = (await findTenant(t.app.pool, tenant.id))!.schema_name;
  const stored = await withTenant(t.app.pool, schema, async (db) => (await db.query('select * from invitations where id = $1', [res.body.id])).rows[0]);
  assert.is(stored.token_hash, sha256Hex(token));
  assert.not.ok(JSON.stringify(stored).includes(token), 'only the hash is stored');

  const second = await admin.post(`/admin/tenants/${tenant.id}/invite`, { email: 'bo@globex.test', role_profile: 'viewer' });
  await smtp.waitFor((m) => m.to.includes('bo@globex.test'));
  const list = await admin.get(`/admin/tenants/${tenant.id}/invitations`);
  assert.is(list.status, 200);
  assert.equal(
    list.body.slice(0, 2).map((i: { id: string }) => i.id),
    [second.body.id, res.body.id],
  );
});

test('invite: validation, 404 and 409 before provisioning', async () => {
  const bad = await admin.post(`/admin/tenants/${tenant.id}/invite`, { email: 'not-an-email', role_profile: 'owner' });
  assert.is(bad.status, 422);
  assert.equal(
    bad.body.detail.map((d: { loc: unknown[] }) => d.loc),
    [
      ['body', 'email'],
      ['body', 'role_profile'],
    ],
  );
  assert.is(bad.body.detail[1].msg, "Input should be 'viewer', 'analyst' or 'admin'");
  assert.is((await admin.post(`/admin/tenants/${randomUUID()}/invite`, { email: 'a@b.test', role_profile: 'viewer' })).status, 404);
  const draft = await createTenant(admin);
  const early = await admin.post(`/admin/tenants/${draft.id}/invite`, { email: 'a@b.test', role_profile: 'viewer' });
  assert.is(early.status, 409);
  assert.equal(early.body, { detail: "Tenant is 'draft'; onboarding data needs a provisioned tenant -- provision it first." });
  assert.is((await admin.post(`/admin/tenants/${tenant.id}/invite`, { email: 'a@b.test', role_profile: 'viewer' }, { noCsrf: true })).status, 403);
});

test('accept-invite: creates the user with the role profile, marks the invitation accepted and signs in (no CSRF needed)', async () => {
  const { token, invitation } = await invite('cy@globex.test', 'analyst', 'Cy Invited');
  const user = productClient(t);
  const res = await user.post('/accept-invite', { workspace: tenant.slug, token, password: 'cy password 123' });
  assert.is(res.status, 200, res.text);
  assert.equal(
    { workspace: res.body.workspace, email: res.body.email, full_name: res.body.full_name },
    { workspace: tenant.slug, email: 'cy@globex.test', full_name: 'Cy Invited' },
  );
  assert.ok(res.body.permissions.includes('sources.manage') && !res.body.permissions.includes('audit.read'), res.body.permissions.join());
  const cookies = setCookies(res);
  const session = cookies.find((c) => c.name === 'svc_tenant_session')!;
  assert.ok(session.value.startsWith(`${tenant.slug}:`));
  assert.is(session.attributes.httponly, true);
  assert.is(session.attributes.samesite, 'Lax');
  const csrf = cookies.find((c) => c.name === 'svc_csrf')!;
  assert.ok(csrf && csrf.attributes.httponly === undefined);

  const list = (await admin.get(`/admin/tenants/${tenant.id}/invitations`)).body;
  const row = list.find((i: { id: string }) => i.id === invitation.id);
  assert.equal([row.status, row.accepted_at], ['accepted', '2025-03-01T09:00:00.000Z']);

  const again = await productClient(t).post('/accept-invite', { workspace: tenant.slug, token, password: 'another password' });
  assert.is(again.status, 400);
  assert.equal(again.body, { detail: INVALID });

  // The session is real: it works once the workspace is live, with the chosen password too.
  await setTenantState(t, tenant.id, 'live');
  assert.is((await user.get('/me')).body.email, 'cy@globex.test');
  assert.is((await productClient(t).post('/login', { workspace: tenant.slug, email: 'cy@globex.test', password: 'cy password 123' })).status, 200);
  await setTenantState(t, tenant.id, 'onboarding');
});

test('accepting a second invitation for the same e-mail updates the same user and adds the role', async () => {
  const first = await invite('dee@globex.test', 'viewer', 'Dee');
  const a = await productClient(t).post('/accept-invite', { workspace: tenant.slug, token: first.token, password: 'first password' });
  assert.is(a.status, 200, a.text);
  const second = await invite('DEE@globex.test', 'admin');
  const b = await productClient(t).post('/accept-invite', { workspace: tenant.slug, token: second.token, password: 'second password', full_name: 'Dee Admin' });
  assert.is(b.status, 200, b.text);
  assert.is(b.body.user_id, a.body.user_id);
  assert.is(b.body.full_name, 'Dee Admin');
  assert.ok(b.body.permissions.includes('audit.read'));
  const schema = (await findTenant(t.app.pool, tenant.id))!.schema_name;
  const users = await withTenant(
    t.app.pool,
    schema,
    async (db) => (await db.query(`select count(*)::int as n from users where email = 'dee@globex.test'`)).rows[0].n,
  );
  assert.is(users, 1);
  await setTenantState(t, tenant.id, 'live');
  assert.is((await productClient(t).post('/login', { workspace: tenant.slug, email: 'dee@globex.test', password: 'second password' })).status, 200);
  await setTenantState(t, tenant.id, 'onboarding');
});

test('accept-invite: 400 for an unknown token, another workspace or an expired invitation; 422 on a short password', async () => {
  const { token } = await invite('eve@globex.test', 'viewer');
  const other = await createTenant(admin);
  await provisionTenant(t, admin, other.id);
  for (const body of [
    { workspace: tenant.slug, token: 'not-a-token', password: 'long enough' },
    { workspace: other.slug, token, password: 'long enough' },
    { workspace: 'no-such-workspace', token, password: 'long enough' },
  ]) {
    const res = await productClient(t).post('/accept-invite', body);
    assert.is(res.status, 400, JSON.stringify(body));
    assert.equal(res.body, { detail: INVALID });
  }
  const short = await productClient(t).post('/accept-invite', { workspace: tenant.slug, token, password: 'short' });
  assert.is(short.status, 422);
  assert.equal(short.body.detail[0].loc, ['body', 'password']);

  clock.advance(7 * 24 * 3600 * 1000);
  const expired = await productClient(t).post('/accept-invite', { workspace: tenant.slug, token, password: 'long enough' });
  assert.is(expired.status, 400);
  assert.equal(expired.body, { detail: INVALID });
  admin = await staffLogin(t, admin.staff);
  const listed = (await admin.get(`/admin/tenants/${tenant.id}/invitations`)).body.find((i: { email: string }) => i.email === 'eve@globex.test');
  assert.equal([listed.status, listed.expired], ['pending', true]);
});

test('accept-invite is rate limited per account like the logins (429 with Retry-After)', async () => {
  const { token } = await invite('flo@globex.test', 'viewer');
  await productClient(t).post('/accept-invite', { workspace: tenant.slug, token, password: 'flo password' });
  const statuses: number[] = [];
  let last: Awaited<ReturnType<ReturnType<typeof productClient>['post']>> | undefined;
  for (let i = 0; i < 5; i++) {
    last = await productClient(t).post('/accept-invite', { workspace: tenant.slug, token, password: 'flo password' });
    statuses.push(last.status);
  }
  assert.equal(statuses, [400, 400, 400, 400, 429], 'the first acceptance and four repeats spend the 5-attempt account budget');
  assert.equal(last!.body, { detail: 'Too many login attempts. Try again later.' });
  const retryAfter = Number(last!.headers.get('retry-after'));
  assert.ok(retryAfter > 0 && retryAfter <= 15 * 60, String(retryAfter));
  // Another e-mail of the same workspace has its own budget.
  const other = await invite('gil@globex.test', 'viewer');
  assert.is((await productClient(t).post('/accept-invite', { workspace: tenant.slug, token: other.token, password: 'gil password' })).status, 200);
});

test.run();
