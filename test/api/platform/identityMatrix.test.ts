/**
 * Issue 26: the cross-tenant identity matrix. Three organizations: `alpha` and `beta` with an OIDC and
 * a SAML connection, a SCIM token, provisioned users and groups; `gamma` plain. Each organization's
 * admin, SCIM token and identity provider aims every identity operation at the users of the other two:
 * every route of the identity groups in the /v1 route table (`platformRoutes`: tags auth, members, mfa,
 * scim, sso, domains, workspaces) and every route of the SCIM router, so that a route added to those
 * groups joins the matrix by itself (its path parameters are filled with every id the victims own and
 * its body with the victims' data; the routes below with a richer attack get it from `aimed`).
 *
 * After each attacker's round, for each other organization: no row changed (users, identities,
 * memberships, SCIM users, groups and tokens, SSO connections, invitations, factors, domains,
 * workspace settings, sign-ins) and no token for its workspace was issued; and no answer was a 500.
 */
import { decodeJwt } from 'jose';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { issueTokenPair } from '../../../usecases/tokenPairs.ts';
import { platformRoutes } from '../../../api/platform/routes.ts';
import { createScimRouter } from '../../../api/platform/scim/app.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { TestClock } from '../../helpers/clock.ts';
import { startDnsServer, type DnsServer } from '../../helpers/dns.ts';
import { verifyDomains } from '../../helpers/domains.ts';
import type { HttpResponse } from '../../helpers/http.ts';
import { addMember, addWorkspace } from '../../helpers/members.ts';
import { startOidcProvider, type OidcProvider } from '../../helpers/oidc.ts';
import { authnRequestId, idpCertificate, samlResponse } from '../../helpers/saml.ts';

const IDENTITY_TAGS = new Set(['auth', 'members', 'mfa', 'scim', 'sso', 'domains', 'workspaces']);
const REDIRECT = 'https://app.example/cb';
const CLIENT = { id: 'matrix-client', secret: 'matrix-secret' };

interface Org {
  slug: string;
  organizationId: string;
  workspaceId: string;
  ownerToken: string;
  memberEmail: string;
  scimToken: string | null;
  oidcConnection: string | null;
  samlConnection: string | null;
  /** Every id this organization owns that a path parameter could name. */
  ids: string[];
  emails: string[];
}

interface Attack {
  method: string;
  path: string;
  body?: unknown;
  form?: Record<string, string>;
  token?: string | null;
}

const clock = new TestClock();
let idp: OidcProvider;
let dns: DnsServer;
let t: TestApp;
const orgs: Org[] = [];

test.before(async () => {
  idp = await startOidcProvider({ clock });
  idp.registerClient(CLIENT.id, CLIENT.secret);
  dns = await startDnsServer();
  t = await startTestApp({ clock, env: { ...idp.env(), DNS_RESOLVER: dns.address } });
  for (const slug of ['alpha', 'beta', 'gamma']) orgs.push(await setUpOrg(slug, slug !== 'gamma'));
});
test.after(async () => {
  await t?.close();
  await idp?.close();
  await dns?.close();
});

const ok = (res: HttpResponse, status: number, what: string) => assert.is(res.status, status, `${what}: ${res.text}`);

async function setUpOrg(slug: string, withSso: boolean): Promise<Org> {
  const workspaceId = await addWorkspace(t.app, slug);
  const organizationId = (await t.app.pool.query('select organization_id from workspaces where id = $1', [workspaceId])).rows[0].organization_id;
  const owner = await addMember(t.app, workspaceId, `owner@${slug}.example`, 'owner');
  const pair = await issueTokenPair(t.app, t.app.pool, owner.userId, workspaceId, 'owner', '127.0.0.1');
  const api = t.platform.as(pair.access_token);
  await verifyDomains(api, dns, [`${slug}.example`]);
  const memberEmail = `member@${slug}.example`;
  const member = await addMember(t.app, workspaceId, memberEmail, 'member');
  // The member's platform identity is linked (first sign-in by verified e-mail), and they enrol a factor.
  ok(await exchange(`${slug}-member-sub`, memberEmail), 200, 'member exchange');
  const factor = await t.platform.post('/v1/mfa/factors', { type: 'totp' }, { token: member.token });
  ok(factor, 201, 'factor');
  const invitation = await api.post('/v1/invitations', { email: `invitee@${slug}.example`, role: 'admin' });
  ok(invitation, 201, 'invitation');
  const domain = (await api.get('/v1/domains')).body.data[0].id as string;
  const ids = [owner.userId, member.userId, factor.body.id, invitation.body.id, domain, workspaceId];
  const org: Org = {
    slug,
    organizationId,
    workspaceId,
    ownerToken: pair.access_token,
    memberEmail,
    scimToken: null,
    oidcConnection: null,
    samlConnection: null,
    ids,
    emails: [owner.email, memberEmail, `invitee@${slug}.example`],
  };
  if (!withSso) return org;
  const oidc = await api.post('/v1/sso/connections', {
    type: 'oidc',
    name: 'oidc',
    redirect_uris: [REDIRECT],
    oidc: { issuer: idp.issuer, client_id: CLIENT.id, client_secret: CLIENT.secret },
  });
  ok(oidc, 201, 'oidc connection');
  const saml = await api.post('/v1/sso/connections', {
    type: 'saml',
    name: 'saml',
    saml: { idp_entity_id: `https://idp.${slug}.example`, idp_sso_url: `https://idp.${slug}.example/sso`, idp_certificate: idpCertificate },
  });
  ok(saml, 201, 'saml connection');
  const scimToken = await api.post('/v1/scim/tokens', { name: 'idp' });
  ok(scimToken, 201, 'scim token');
  const scim = (method: string, path: string, body: unknown) =>
    t.platform.request(method, `/scim/v2/${slug}${path}`, {
      token: scimToken.body.token,
      headers: { 'content-type': 'application/scim+json' },
      raw: JSON.stringify(body),
    });
  const scimEmail = `provisioned@${slug}.example`;
  const user = await scim('POST', '/Users', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: scimEmail, active: true });
  ok(user, 201, 'scim user');
  const group = await scim('POST', '/Groups', {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
    displayName: 'Admins',
    members: [{ value: user.body.id }],
  });
  ok(group, 201, 'scim group');
  const scimUserId = (await t.app.pool.query('select user_id from scim_users where id = $1', [user.body.id])).rows[0].user_id;
  ids.push(oidc.body.id, saml.body.id, scimToken.body.id, user.body.id, group.body.id, scimUserId);
  org.emails.push(scimEmail);
  return { ...org, scimToken: scimToken.body.token, oidcConnection: oidc.body.id, samlConnection: saml.body.id };
}

async function exchange(sub: string, email: string, extra: Record<string, unknown> = {}, verified = true) {
  return t.platform.post('/v1/auth/exchange', { subject_token: await idp.sign({ sub, email, email_verified: verified }), ...extra });
}

/** Every row of the organization an identity operation could change, as one comparable value. */
async function snapshot(org: Org) {
  const q = async (sql: string) => (await t.app.pool.query(sql, [org.organizationId])).rows;
  const ws = 'select id from workspaces where organization_id = $1';
  const people = `select user_id from memberships where workspace_id in (${ws}) union select id from users where managed_by_organization_id = $1`;
  return {
    workspaces: await q('select id, name, jit_enabled, jit_domains, jit_role, mfa_required, sso_required from workspaces where organization_id = $1'),
    users: await q(`select id, email, name, managed_by_organization_id from users where id in (${people}) order by id`),
    identities: await q(`select issuer, subject, user_id, connection_id from user_identities where user_id in (${people}) order by user_id, issuer, subject`),
    memberships: await q(
      `select workspace_id, user_id, role from memberships where workspace_id in (${ws}) or user_id in (${people}) order by workspace_id, user_id`,
    ),
    scimUsers: await q(`select id, user_id, user_name, active, emails from scim_users where workspace_id in (${ws}) order by id`),
    scimGroups: await q(`select g.id, g.display_name, g.role, array(select scim_user_id from scim_group_members m where m.group_id = g.id order by 1) as members
      from scim_groups g where workspace_id in (${ws}) order by id`),
    scimTokens: await q(`select id, revoked_at from scim_tokens where workspace_id in (${ws}) order by id`),
    connections: await q(
      `select id, name, domains, redirect_uris, oidc_issuer, saml_idp_entity_id, updated_at from sso_connections where workspace_id in (${ws}) order by id`,
    ),
    invitations: await q(`select id, email, role, status from invitations where workspace_id in (${ws}) order by id`),
    factors: await q(`select id, user_id, status, failed_attempts from mfa_factors where user_id in (${people}) order by id`),
    recoveryCodes: await q(`select id, used_at from mfa_recovery_codes where user_id in (${people}) order by id`),
    domains: await q(`select id, domain, verified_at from workspace_domains where workspace_id in (${ws}) order by id`),
    signIns: await q(`select id, user_id, revoked_at from token_families where workspace_id in (${ws}) or user_id in (${people}) order by id`),
  };
}

/** The identity routes of both route tables, as `METHOD /path/{param}`. */
function identityRoutes(): Array<{ key: string; method: string; path: string; auth: string; scim: boolean }> {
  const routes: Array<{ key: string; method: string; path: string; auth: string; scim: boolean }> = platformRoutes
    .filter((r) => r.tags.some((tag) => IDENTITY_TAGS.has(tag)))
    .map((r) => ({ key: `${r.method.toUpperCase()} ${r.path}`, method: r.method.toUpperCase(), path: r.path, auth: r.auth, scim: false }));
  const stack = (createScimRouter(t.app) as unknown as { stack: Array<{ route?: { path: string; methods: Record<string, boolean> } }> }).stack;
  for (const layer of stack) {
    if (!layer.route) continue;
    const path = `/scim/v2${layer.route.path.replace(/:(\w+)/g, '{$1}')}`;
    for (const method of Object.keys(layer.route.methods))
      routes.push({ key: `${method.toUpperCase()} ${path}`, method: method.toUpperCase(), path, auth: 'scim', scim: true });
  }
  return routes;
}

/** Fills `{param}`s: `{tenant}` with each organization's slug, every other one with each of the victim's ids. */
function expand(path: string, attacker: Org, victim: Org): string[] {
  let paths = [path];
  for (const param of path.match(/\{\w+\}/g) ?? []) {
    const values = param === '{tenant}' ? [attacker.slug, victim.slug] : victim.ids;
    paths = paths.flatMap((p) => values.map((v) => p.replace(param, encodeURIComponent(v))));
  }
  return paths;
}

/** The victims' data in every field an identity body takes (what a route without a richer attack gets). */
const genericBody = (victim: Org) => ({
  email: victim.memberEmail,
  role: 'owner',
  name: `x-${victim.slug}`,
  user_id: victim.ids[1],
  workspace_id: victim.workspaceId,
  domain: `${victim.slug}.example`,
  jit_enabled: true,
  jit_domains: [`${victim.slug}.example`],
  type: 'totp',
  code: '123456',
  refresh_token: 'svc_rt_not-a-token',
  invitation_token: 'not-a-token',
  subject_token: 'not-a-token',
});

const SCIM_USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const SCIM_GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/** What the attacker's SAML identity provider posts: a signed assertion for any subject and e-mail. */
async function samlAttack(attacker: Org, nameId: string, email: string): Promise<Attack> {
  const start = await t.platform.get(`/v1/auth/sso/authorize?workspace=${attacker.slug}&connection_id=${attacker.samlConnection}`);
  const acs = `${t.platform.base}/v1/auth/sso/saml/acs`;
  const response = samlResponse({
    issuer: `https://idp.${attacker.slug}.example`,
    audience: `${t.platform.base}/v1/sso/connections/${attacker.samlConnection}/metadata`,
    recipient: acs,
    destination: acs,
    nameId,
    email,
    inResponseTo: authnRequestId(start.body.redirect_url),
  });
  return { method: 'POST', path: '/v1/auth/sso/saml/acs', form: { SAMLResponse: response, RelayState: start.body.state }, token: null };
}

/** What the attacker's OIDC identity provider asserts at the callback: any subject, any "verified" e-mail. */
async function oidcAttack(attacker: Org, sub: string, email: string, extra: Record<string, string> = {}): Promise<Attack> {
  const start = await t.platform.get(
    `/v1/auth/sso/authorize?${new URLSearchParams({ workspace: attacker.slug, connection_id: attacker.oidcConnection!, redirect_uri: REDIRECT })}`,
  );
  idp.login({ claims: { sub, email, email_verified: true } });
  const back = new URL((await fetch(start.body.redirect_url, { redirect: 'manual' })).headers.get('location')!);
  const query = new URLSearchParams({ state: back.searchParams.get('state')!, code: back.searchParams.get('code') ?? '', ...extra });
  return { method: 'GET', path: `/v1/auth/sso/callback?${query}`, token: null };
}

/** Richer attacks of the routes whose danger is in their body or flow; every other route gets the generic one. */
const aimed: Record<string, (attacker: Org, victim: Org) => Promise<Attack[]>> = {
  'POST /v1/auth/exchange': async (attacker, victim) => [
    // The attacker's own identity, asking for the victim's workspace; and the victim's address unverified.
    {
      method: 'POST',
      path: '/v1/auth/exchange',
      body: {
        subject_token: await idp.sign({ sub: `${attacker.slug}-member-sub`, email: attacker.memberEmail, email_verified: true }),
        workspace_id: victim.workspaceId,
      },
    },
    ...(await Promise.all(
      victim.emails.map(async (email) => ({
        method: 'POST',
        path: '/v1/auth/exchange',
        body: { subject_token: await idp.sign({ sub: `${attacker.slug}-attacker-sub`, email, email_verified: false }) },
      })),
    )),
  ],
  'POST /v1/auth/refresh': async (attacker) => {
    // A sign-in of the attacker's own (refreshing it twice would revoke the one the matrix uses).
    const owner = (await t.app.pool.query(`select user_id from memberships where workspace_id = $1 and role = 'owner'`, [attacker.workspaceId])).rows[0]
      .user_id;
    const pair = await issueTokenPair(t.app, t.app.pool, owner, attacker.workspaceId, 'owner', '127.0.0.1');
    return [{ method: 'POST', path: '/v1/auth/refresh', body: { refresh_token: pair.refresh_token } }];
  },
  'POST /v1/invitations': async (_attacker, victim) =>
    victim.emails.map((email) => ({ method: 'POST', path: '/v1/invitations', body: { email, role: 'owner' } })),
  'POST /v1/invitations/accept': async (attacker, victim) => {
    // The attacker invites the victim's address into their own workspace, then accepts it as themselves.
    const invite = await t.platform.post('/v1/invitations', { email: victim.memberEmail, role: 'viewer' }, { token: attacker.ownerToken });
    const token = new URL(invite.body.url).searchParams.get('token')!;
    return [
      {
        method: 'POST',
        path: '/v1/invitations/accept',
        body: {
          invitation_token: token,
          subject_token: await idp.sign({ sub: `${attacker.slug}-attacker-sub`, email: victim.memberEmail, email_verified: false }),
        },
        token: null,
      },
    ];
  },
  'POST /v1/sso/connections': async (_attacker, victim) => [
    {
      method: 'POST',
      path: '/v1/sso/connections',
      body: {
        type: 'saml',
        name: `as-platform-${victim.slug}`,
        saml: { idp_entity_id: idp.issuer, idp_sso_url: 'https://x.example/sso', idp_certificate: idpCertificate },
      },
    },
    {
      method: 'POST',
      path: '/v1/sso/connections',
      body: {
        type: 'saml',
        name: `as-${victim.slug}`,
        domains: [`${victim.slug}.example`],
        saml: { idp_entity_id: `https://idp.${victim.slug}.example`, idp_sso_url: 'https://x.example/sso', idp_certificate: idpCertificate },
      },
    },
  ],
  'GET /v1/auth/sso/authorize': async (_attacker, victim) =>
    [victim.oidcConnection, victim.samlConnection].filter(Boolean).map((id) => ({
      method: 'GET',
      path: `/v1/auth/sso/authorize?${new URLSearchParams({ workspace: victim.slug, connection_id: id!, redirect_uri: 'https://attacker.example/cb' })}`,
      token: null,
    })),
  'GET /v1/auth/sso/callback': async (attacker, victim) => {
    if (!attacker.oidcConnection) return [];
    return Promise.all([
      ...victim.emails.map((email) => oidcAttack(attacker, `${attacker.slug}-idp-${email}`, email)),
      oidcAttack(attacker, `${victim.slug}-member-sub`, victim.memberEmail, { mfa_code: '000000' }),
    ]);
  },
  'POST /v1/auth/sso/saml/acs': async (attacker, victim) => {
    if (!attacker.samlConnection) return [];
    return Promise.all([
      ...victim.emails.map((email) => samlAttack(attacker, email, email)),
      samlAttack(attacker, `${victim.slug}-member-sub`, victim.memberEmail),
    ]);
  },
  'POST /scim/v2/{tenant}/Users': async (attacker, victim) =>
    [attacker.slug, victim.slug].flatMap((tenant) =>
      victim.emails.map((email) => ({
        method: 'POST',
        path: `/scim/v2/${tenant}/Users`,
        body: { schemas: [SCIM_USER], userName: `${attacker.slug}-${email}`, emails: [{ value: email, primary: true }], active: true },
      })),
    ),
  'PATCH /scim/v2/{tenant}/Users/{id}': async (attacker, victim) =>
    expand('/scim/v2/{tenant}/Users/{id}', attacker, victim).map((path) => ({
      method: 'PATCH',
      path,
      body: {
        schemas: [PATCH_OP],
        Operations: [{ op: 'replace', value: { active: false, emails: [{ value: `attacker@${attacker.slug}.example`, primary: true }] } }],
      },
    })),
  'PUT /scim/v2/{tenant}/Users/{id}': async (attacker, victim) =>
    expand('/scim/v2/{tenant}/Users/{id}', attacker, victim).map((path) => ({
      method: 'PUT',
      path,
      body: { schemas: [SCIM_USER], userName: 'taken', emails: [{ value: `attacker@${attacker.slug}.example`, primary: true }], active: false },
    })),
  'POST /scim/v2/{tenant}/Groups': async (attacker, victim) =>
    [attacker.slug, victim.slug].map((tenant) => ({
      method: 'POST',
      path: `/scim/v2/${tenant}/Groups`,
      body: { schemas: [SCIM_GROUP], displayName: `Admins-${victim.slug}`, members: victim.ids.map((value) => ({ value })) },
    })),
  'PATCH /scim/v2/{tenant}/Groups/{id}': async (attacker, victim) =>
    expand('/scim/v2/{tenant}/Groups/{id}', attacker, victim).map((path) => ({
      method: 'PATCH',
      path,
      body: { schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'members', value: victim.ids.map((value) => ({ value })) }] },
    })),
};

let requests = 0;
/** Sends one attack as the attacker (their owner's token, their SCIM token on SCIM paths, none on public ones). */
async function send(attacker: Org, attack: Attack, auth: string): Promise<HttpResponse> {
  // The REST rate limit (600 a minute) is not what this test is about: its window moves on the test clock.
  if (++requests % 200 === 0) clock.advance(61_000);
  const token =
    attack.token === null
      ? undefined
      : (attack.token ??
        (attack.path.startsWith('/scim/') ? (attacker.scimToken ?? attacker.ownerToken) : auth === 'public' ? undefined : attacker.ownerToken));
  if (attack.form) {
    return t.platform.request(attack.method, attack.path, {
      token,
      raw: new URLSearchParams(attack.form).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
  }
  const scim = attack.path.startsWith('/scim/');
  return t.platform.request(attack.method, attack.path, {
    token,
    ...(attack.body === undefined || attack.method === 'GET' || attack.method === 'DELETE'
      ? {}
      : {
          raw: JSON.stringify(attack.body),
          headers: { 'content-type': scim ? 'application/scim+json' : 'application/json', 'idempotency-key': `m-${requests}` },
        }),
  });
}

test('no organization reaches another organization’s users through any identity route', async () => {
  const routes = identityRoutes();
  assert.ok(routes.length > 40, `the route tables hold the identity routes (${routes.length})`);
  const exercised = new Map<string, number>();
  for (const attacker of orgs) {
    const victims = orgs.filter((o) => o !== attacker);
    const before = await Promise.all(victims.map(snapshot));
    // Sign-ins are stamped with the (frozen) test clock: new ones are told apart by id.
    const known = (await t.app.pool.query('select id from token_families')).rows.map((r) => r.id as string);
    for (const victim of victims) {
      for (const route of routes) {
        const attacks = aimed[route.key]
          ? await aimed[route.key](attacker, victim)
          : expand(route.path, attacker, victim).map((path) => ({
              method: route.method,
              path,
              body: route.method === 'GET' || route.method === 'DELETE' ? undefined : genericBody(victim),
            }));
        for (const attack of attacks) {
          const res = await send(attacker, attack, route.auth);
          const what = `${attacker.slug} → ${victim.slug}: ${attack.method} ${attack.path.split('?')[0]}`;
          exercised.set(route.key, (exercised.get(route.key) ?? 0) + 1);
          assert.ok(res.status < 500, `${what} answered ${res.status}: ${res.text.slice(0, 300)}`);
          assert.is.not(res.status, 429, `${what} was rate limited: the attack did not run`);
          if (res.status >= 400 && res.status !== 426) {
            if (attack.path.startsWith('/scim/')) assert.equal(res.body?.schemas, ['urn:ietf:params:scim:api:messages:2.0:Error'], `${what}: ${res.text}`);
            else assert.type(res.body?.error?.code, 'string', `${what}: not the /v1 envelope: ${res.text}`);
          }
          const foreignNow = await t.app.pool.query(
            `select f.workspace_id, u.email from token_families f join users u on u.id = f.user_id where f.id <> all($1::uuid[]) and f.workspace_id <> $2`,
            [known, attacker.workspaceId],
          );
          assert.is(
            foreignNow.rows.length,
            0,
            `${what} started a sign-in in another organization: ${JSON.stringify(foreignNow.rows)} (${res.status} ${res.text.slice(0, 200)})`,
          );
          const issued = res.status === 200 && typeof res.body?.access_token === 'string' ? String(decodeJwt(res.body.access_token).ws) : null;
          assert.ok(!issued || issued === attacker.workspaceId, `${what} issued a token for workspace ${issued}`);
        }
      }
    }
    const after = await Promise.all(victims.map(snapshot));
    victims.forEach((victim, i) => assert.equal(after[i], before[i], `${attacker.slug} changed rows of ${victim.slug}`));
  }
  const missed = routes.filter((r) => !exercised.get(r.key)).map((r) => r.key);
  assert.equal(missed, [], `identity routes no attack reached: ${missed.join(', ')}`);
});

test.run();
