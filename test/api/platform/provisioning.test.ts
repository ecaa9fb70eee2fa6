import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../../../lib/crypto.ts';
import { allScopes } from '../../../domain/scopes.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { assertWorkspaceIsolation, isolationProbes, provisionWorkspace } from '../../helpers/isolation.ts';

const KEY = `pk_${randomBytes(24).toString('hex')}`;
const ROTATED_KEY = `pk_${randomBytes(24).toString('hex')}`;
const PATH = '/v1/provisioning/clients';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let t: TestApp;
let unconfigured: TestApp;
test.before(async () => {
  [t, unconfigured] = await Promise.all([
    startTestApp({ env: { SVC_PROVISION_KEY_HASHES: `${sha256Hex(KEY)}, ${sha256Hex(ROTATED_KEY)}`, APP_URL: 'https://console.example.test' } }),
    startTestApp(),
  ]);
});
test.after(async () => {
  await Promise.all([t.close(), unconfigured.close()]);
});

const body = (slug: string, email = `owner@${slug}.example.com`, extra: Record<string, unknown> = {}) => ({
  organization: { name: `Org ${slug}`, slug },
  owner: { email },
  ...extra,
});
const provision = (payload: unknown, options: { key?: string; idempotencyKey?: string } = {}) =>
  t.platform.post(PATH, payload, { token: options.key ?? KEY, headers: options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : {} });

async function count(sql: string, params: unknown[] = []): Promise<number> {
  return Number((await t.app.pool.query(sql, params)).rows[0].n);
}

test('SVC_PROVISION_KEY_HASHES unset: 503 service_unavailable, whatever the key', async () => {
  for (const token of [undefined, KEY, 'anything']) {
    const res = await unconfigured.platform.post(PATH, body('nope'), token ? { token } : {});
    assert.is(res.status, 503, res.text);
    assert.is(res.body.error.code, 'service_unavailable');
    assert.is(res.body.error.trace_id, res.headers.get('x-request-id'));
  }
  assert.is(Number((await unconfigured.app.pool.query(`select count(*) as n from organizations where slug = 'nope'`)).rows[0].n), 0);
});

test('missing or wrong provisioning key: 401, nothing created', async () => {
  const attempts: Array<Record<string, string>> = [
    {},
    { authorization: `Bearer ${KEY}x` },
    { authorization: 'Bearer wrong' },
    { authorization: `Basic ${KEY}` },
    { authorization: 'Bearer' },
    { authorization: KEY },
  ];
  for (const headers of attempts) {
    const res = await t.platform.post(PATH, body('unauth'), { headers });
    assert.is(res.status, 401, `${JSON.stringify(headers)}: ${res.text}`);
    assert.is(res.body.error.code, 'unauthorized');
    assert.is(res.body.error.trace_id, res.headers.get('x-request-id'));
  }
  // A user token or a workspace API key is not a provisioning key.
  const provisioned = await provision(body('keyholder'));
  assert.is(provisioned.status, 201, provisioned.text);
  const user = await t.platform.post('/v1/auth/exchange', { subject_token: 'demo' });
  for (const token of [provisioned.body.api_key.secret, user.body.access_token]) {
    const res = await provision(body('unauth'), { key: token });
    assert.is(res.status, 401, res.text);
    assert.is(res.body.error.code, 'unauthorized');
  }
  // Authentication comes before validation: an invalid body with a bad key is still 401.
  const invalid = await t.platform.post(PATH, { organization: { slug: 'Bad_Slug' } }, { token: 'wrong' });
  assert.is(invalid.status, 401);
  assert.is(await count(`select count(*) as n from organizations where slug = 'unauth'`), 0);
});

test('valid key: 201 with organization, workspace, owner, one-time API key and owner invite', async () => {
  const res = await provision(body('acme', 'Founder@Acme.Example.com'));
  assert.is(res.status, 201, res.text);
  assert.is(res.headers.get('idempotency-replayed'), null);
  const r = res.body;
  assert.equal(Object.keys(r).sort(), ['api_key', 'created', 'organization', 'owner', 'owner_invite', 'workspace']);
  assert.is(r.created, true);
  assert.equal(Object.keys(r.organization).sort(), ['id', 'name', 'plan', 'slug']);
  assert.match(r.organization.id, UUID);
  assert.equal({ ...r.organization, id: 'x' }, { id: 'x', slug: 'acme', name: 'Org acme', plan: 'free' });
  assert.equal(Object.keys(r.workspace).sort(), ['id', 'name']);
  assert.match(r.workspace.id, UUID);
  assert.is(r.workspace.name, 'Org acme', 'workspace name defaults to the organization name');
  assert.equal(Object.keys(r.owner).sort(), ['email', 'membership_id', 'role', 'user_id']);
  assert.is(r.owner.email, 'founder@acme.example.com');
  assert.is(r.owner.role, 'owner');
  assert.equal(Object.keys(r.api_key).sort(), ['id', 'note', 'scopes', 'secret']);
  assert.match(r.api_key.secret, /^svc_key_[A-Za-z0-9_-]{43}$/);
  assert.type(r.api_key.note, 'string');
  assert.ok(r.api_key.scopes.length > 0);
  for (const scope of r.api_key.scopes) assert.ok((allScopes as string[]).includes(scope), `${scope} is a declared scope`);
  assert.equal(Object.keys(r.owner_invite).sort(), ['expires_at', 'id', 'url']);
  assert.match(r.owner_invite.expires_at, ISO);
  assert.ok(r.owner_invite.url.startsWith('https://console.example.test/'), r.owner_invite.url);
  assert.ok(new URL(r.owner_invite.url).searchParams.get('token'));

  // Rows: org, workspace, owner user + owner membership, the key stored only as its hash.
  const membership = (
    await t.app.pool.query('select m.id, m.role, m.workspace_id, u.email, u.name from memberships m join users u on u.id = m.user_id where m.user_id = $1', [
      r.owner.user_id,
    ])
  ).rows;
  assert.equal(membership, [{ id: r.owner.membership_id, role: 'owner', workspace_id: r.workspace.id, email: 'founder@acme.example.com', name: 'founder' }]);
  const key = (await t.app.pool.query('select workspace_id, token_hash, row_to_json(k)::text as row from api_keys k where id = $1', [r.api_key.id])).rows[0];
  assert.is(key.workspace_id, r.workspace.id);
  assert.is(key.token_hash, sha256Hex(r.api_key.secret));
  assert.not.ok(key.row.includes(r.api_key.secret), 'the secret itself is not stored');
  const inviteToken = new URL(r.owner_invite.url).searchParams.get('token')!;
  const invite = (await t.app.pool.query('select email, role, status, token_hash, expires_at from invitations where id = $1', [r.owner_invite.id])).rows[0];
  assert.equal(
    { ...invite, expires_at: invite.expires_at.toISOString() },
    {
      email: 'founder@acme.example.com',
      role: 'owner',
      status: 'pending',
      token_hash: sha256Hex(inviteToken),
      expires_at: r.owner_invite.expires_at,
    },
  );
  assert.is(
    await count(`select count(*) as n from outbox_emails where workspace_id = $1 and to_address = 'founder@acme.example.com'`, [r.workspace.id]),
    1,
    'the owner invite e-mail is queued',
  );
  assert.is(
    await count(`select count(*) as n from audit_events where workspace_id = $1 and action = 'client.provisioned' and actor_type = 'provisioning_key'`, [
      r.workspace.id,
    ]),
    1,
  );

  // The rotated (second) key works too: keys rotate without downtime.
  const second = await provision(body('acme-two'), { key: ROTATED_KEY });
  assert.is(second.status, 201, second.text);
});

test('the API key is a /v1 bearer for that workspace carrying exactly api_key.scopes', async () => {
  const res = await provision(body('scoped'));
  assert.is(res.status, 201, res.text);
  const api = t.platform.as(res.body.api_key.secret);
  const scopes = new Set<string>(res.body.api_key.scopes);

  const current = await api.get('/v1/workspaces/current');
  assert.is(current.status, 200, current.text);
  assert.is(current.body.id, res.body.workspace.id);
  const jobs = await api.get('/v1/jobs');
  assert.is(jobs.status, 200, jobs.text);
  assert.ok(jobs.body.data.length >= 1, 'the owner-invite e-mail job belongs to this workspace');

  // Every GET route of /openapi.json: allowed exactly when its required scope is in api_key.scopes.
  const openapi = (await t.platform.get('/openapi.json')).body;
  let allowed = 0;
  let denied = 0;
  for (const [template, operations] of Object.entries<Record<string, any>>(openapi.paths)) {
    const op = operations.get;
    if (!op?.['x-required-scope']) continue;
    const path = template.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
    const answer = await api.get(path);
    if (scopes.has(op['x-required-scope'])) {
      // Sent without query parameters: an operation that needs one (counterfactuals) answers 400 after the scope check.
      const needsQuery = answer.status === 400 && answer.body.error.code === 'validation_error' && (op.parameters ?? []).some((p: any) => p.in === 'query');
      // The WebSocket endpoint (101) answers a plain GET that passed its scope check with 426.
      const needsUpgrade = answer.status === 426 && op.responses?.['101'] !== undefined;
      assert.ok(
        [200, 404].includes(answer.status) || needsQuery || needsUpgrade,
        `GET ${template} with ${op['x-required-scope']}: ${answer.status} ${answer.text}`,
      );
      allowed++;
    } else {
      assert.is(answer.status, 403, `GET ${template} needs ${op['x-required-scope']}, which the key lacks: ${answer.text}`);
      assert.is(answer.body.error.code, 'forbidden');
      assert.is(answer.body.error.details.required_scope, op['x-required-scope']);
      denied++;
    }
  }
  assert.ok(allowed > 0 && denied > 0, `both outcomes exercised (${allowed} allowed, ${denied} denied)`);

  // A mutating route outside the key's scopes.
  if (!scopes.has('workspace:admin')) {
    const sa = await api.post('/v1/service-accounts', { name: 'x', scopes: ['jobs:read'] });
    assert.is(sa.status, 403, sa.text);
    assert.is(sa.body.error.code, 'forbidden');
  }
});

test('repeat without Idempotency-Key: same slug and owner is 200 created:false api_key:null; another owner is 409', async () => {
  const first = await provision(body('repeat', 'boss@repeat.example.com'));
  assert.is(first.status, 201, first.text);
  const again = await provision(body('repeat', 'Boss@Repeat.Example.com'));
  assert.is(again.status, 200, again.text);
  assert.is(again.body.created, false);
  assert.is(again.body.api_key, null);
  assert.equal(again.body.organization, first.body.organization);
  assert.equal(again.body.workspace, first.body.workspace);
  assert.equal(again.body.owner, first.body.owner);
  assert.equal(again.body.owner_invite, { id: first.body.owner_invite.id, url: null, expires_at: first.body.owner_invite.expires_at });
  assert.is(await count(`select count(*) as n from api_keys where workspace_id = $1`, [first.body.workspace.id]), 1, 'no second key');
  assert.is(await count(`select count(*) as n from workspaces where organization_id = $1`, [first.body.organization.id]), 1);

  const other = await provision(body('repeat', 'intruder@example.com'));
  assert.is(other.status, 409, other.text);
  assert.is(other.body.error.code, 'conflict');
  assert.is(await count(`select count(*) as n from users where lower(email) = 'intruder@example.com'`), 0, 'the conflicting owner was not created');
});

test('Idempotency-Key: the retry replays the first response byte for byte, one-time secret included', async () => {
  const key = crypto.randomUUID();
  const first = await provision(body('idem'), { idempotencyKey: key });
  assert.is(first.status, 201, first.text);
  assert.is(first.headers.get('idempotency-replayed'), null);
  const retry = await provision(body('idem'), { idempotencyKey: key });
  assert.is(retry.status, 201, retry.text);
  assert.is(retry.headers.get('idempotency-replayed'), 'true');
  assert.is(retry.text, first.text);
  assert.is(retry.headers.get('content-type'), first.headers.get('content-type'));
  assert.is(retry.body.api_key.secret, first.body.api_key.secret);
  assert.is(await count(`select count(*) as n from api_keys where workspace_id = $1`, [first.body.workspace.id]), 1);
  // The replayed secret is the live one.
  assert.is((await t.platform.get('/v1/jobs', { token: retry.body.api_key.secret })).status, 200);

  // Same key, another body: 409; nothing provisioned for it.
  const mismatch = await provision(body('idem-other'), { idempotencyKey: key });
  assert.is(mismatch.status, 409, mismatch.text);
  assert.is(mismatch.body.error.code, 'conflict');
  assert.is(await count(`select count(*) as n from organizations where slug = 'idem-other'`), 0);

  // Another key for the same slug and owner is a plain repeat.
  const repeat = await provision(body('idem'), { idempotencyKey: crypto.randomUUID() });
  assert.is(repeat.status, 200, repeat.text);
  assert.is(repeat.body.created, false);
  assert.is(repeat.body.api_key, null);
});

test('a failed attempt with an Idempotency-Key is not cached: the retry executes again', async () => {
  const key = crypto.randomUUID();
  const invalid = await provision(body('Bad_Slug'), { idempotencyKey: key });
  assert.is(invalid.status, 422, invalid.text);
  const again = await provision(body('Bad_Slug'), { idempotencyKey: key });
  assert.is(again.status, 422, again.text);
  assert.is(again.headers.get('idempotency-replayed'), null);
  const fixed = await provision(body('fixed-slug'), { idempotencyKey: key });
  assert.is(fixed.status, 201, fixed.text);
});

test('validation failures are 422 validation_error with details', async () => {
  const cases: Array<[unknown, string]> = [
    [body('Bad_Slug'), 'organization.slug'],
    [body('-x'), 'organization.slug'],
    [body('has space'), 'organization.slug'],
    [body(''), 'organization.slug'],
    [{ ...body('plan-x'), organization: { name: 'P', slug: 'plan-x', plan: 'platinum' } }, 'organization.plan'],
    [{ organization: { slug: 'noname' }, owner: { email: 'a@b.example.com' } }, 'organization.name'],
    [{ organization: { name: 'N', slug: 'noowner' } }, 'owner'],
    [body('bad-email', 'not-an-email'), 'owner.email'],
    [{ ...body('tz'), organization: { name: 'T', slug: 'tz', timezone: 'Mars/Olympus' } }, 'organization.timezone'],
    [{ ...body('seats'), organization: { name: 'S', slug: 'seats', seats: -1 } }, 'organization.seats'],
    [{ ...body('seats-big'), organization: { name: 'S', slug: 'seats-big', seats: 3_000_000_000 } }, 'organization.seats'],
    [{ ...body('flag'), issue_api_key: 'yes' }, 'issue_api_key'],
  ];
  for (const [payload, field] of cases) {
    const res = await provision(payload);
    assert.is(res.status, 422, `${JSON.stringify(payload)}: ${res.text}`);
    assert.is(res.body.error.code, 'validation_error');
    assert.type(res.body.error.details[field], 'string', `${field} in ${res.text}`);
    assert.is(res.body.error.trace_id, res.headers.get('x-request-id'));
  }
  const malformed = await t.platform.post(PATH, undefined, { token: KEY, raw: '{"organization":', headers: { 'content-type': 'application/json' } });
  assert.ok([400, 422].includes(malformed.status), malformed.text);
  assert.is(malformed.body.error.code, 'validation_error');
  assert.is(
    await count(`select count(*) as n from organizations where slug in ('plan-x', 'noname', 'noowner', 'bad-email', 'tz', 'seats', 'seats-big', 'flag')`),
    0,
  );
});

test('optional fields: plan, seats, timezone, workspace and owner names; issue_api_key and send_owner_invite false', async () => {
  const res = await provision({
    organization: { name: 'Big Corp', slug: 'bigcorp', plan: 'enterprise', seats: 250, timezone: 'Europe/Paris' },
    workspace: { name: 'Operations' },
    owner: { email: 'ceo@bigcorp.example.com', name: 'Chief Executive' },
    issue_api_key: false,
    send_owner_invite: false,
  });
  assert.is(res.status, 201, res.text);
  assert.is(res.body.organization.plan, 'enterprise');
  assert.is(res.body.workspace.name, 'Operations');
  assert.is(res.body.api_key, null);
  assert.is(res.body.owner_invite, null);
  const org = (await t.app.pool.query('select seats, timezone from organizations where id = $1', [res.body.organization.id])).rows[0];
  assert.equal(org, { seats: 250, timezone: 'Europe/Paris' });
  assert.is((await t.app.pool.query('select name from users where id = $1', [res.body.owner.user_id])).rows[0].name, 'Chief Executive');
  assert.is(await count('select count(*) as n from api_keys where workspace_id = $1', [res.body.workspace.id]), 0);
  assert.is(await count('select count(*) as n from invitations where workspace_id = $1', [res.body.workspace.id]), 0);
  assert.is(await count('select count(*) as n from outbox_emails where workspace_id = $1', [res.body.workspace.id]), 0);
  assert.is(await count('select count(*) as n from job_runs where workspace_id = $1', [res.body.workspace.id]), 0);

  // An owner e-mail that already has a user reuses it.
  const second = await provision(body('bigcorp-labs', 'CEO@bigcorp.example.com'));
  assert.is(second.status, 201, second.text);
  assert.is(second.body.owner.user_id, res.body.owner.user_id);
  assert.is(await count(`select count(*) as n from users where lower(email) = 'ceo@bigcorp.example.com'`), 1);
});

test('provisioning is one transaction: a failure at its last step leaves nothing behind', async () => {
  // Fault injection in the database itself: the audit insert, the final statement of the
  // provisioning transaction, fails for this slug only. Everything written before it must roll back.
  await t.app.pool.query(`
    create function test_fail_provisioning() returns trigger language plpgsql as $$
    begin
      if new.action = 'client.provisioned' and new.metadata->>'slug' = 'txn-fail' then
        raise exception 'injected failure';
      end if;
      return new;
    end $$;
    create trigger test_fail_provisioning before insert on audit_events for each row execute function test_fail_provisioning();`);
  const tables = [
    'organizations',
    'workspaces',
    'users',
    'memberships',
    'api_keys',
    'invitations',
    'outbox_emails',
    'job_runs',
    'audit_events',
    'graphile_worker._private_jobs',
  ];
  const snapshot = async () => Promise.all(tables.map((table) => count(`select count(*) as n from ${table}`)));
  const before = await snapshot();
  try {
    const key = crypto.randomUUID();
    const res = await provision(body('txn-fail', 'txn@fail.example.com'), { idempotencyKey: key });
    assert.is(res.status, 500, res.text);
    assert.is(res.body.error.code, 'internal_error');
    assert.not.ok(res.text.includes('injected'), 'the cause is not leaked to the client');
    assert.equal(await snapshot(), before, `row counts of ${tables.join(', ')} unchanged`);

    await t.app.pool.query('drop trigger test_fail_provisioning on audit_events');
    // The failure was not cached and left no slug behind: the retry with the same key provisions.
    const retry = await provision(body('txn-fail', 'txn@fail.example.com'), { idempotencyKey: key });
    assert.is(retry.status, 201, retry.text);
    assert.is(retry.headers.get('idempotency-replayed'), null);
  } finally {
    await t.app.pool.query('drop trigger if exists test_fail_provisioning on audit_events; drop function if exists test_fail_provisioning()');
  }
});

test('concurrent provisioning of one slug creates one organization', async () => {
  const results = await Promise.all([1, 2, 3].map(() => provision(body('race', 'racer@example.com'))));
  const statuses = results.map((r) => r.status).sort();
  assert.equal(statuses, [200, 200, 201], results.map((r) => r.text).join('\n'));
  assert.is(await count(`select count(*) as n from organizations where slug = 'race'`), 1);
  assert.is(new Set(results.map((r) => r.body.workspace.id)).size, 1);
});

test('two provisioned workspaces are isolated for every resource group', async () => {
  // Engine results (issue 6) need a worker to run the engine: an app of its own, so that the row
  // counts the other tests take are not moved by jobs.
  const iso = await startTestApp({ worker: true, env: { SVC_PROVISION_KEY_HASHES: sha256Hex(KEY) } });
  try {
    await isolatedGroups(iso);
  } finally {
    await iso.close();
  }
});

async function isolatedGroups(t: TestApp) {
  const a = await provisionWorkspace(t.platform, KEY, { slug: 'iso-a', ownerEmail: 'owner@iso-a.example.com' });
  const b = await provisionWorkspace(t.platform, KEY, { slug: 'iso-b', ownerEmail: 'owner@iso-b.example.com' });
  assert.is.not(a.workspaceId, b.workspaceId);
  const report = await assertWorkspaceIsolation({
    owner: a.owner,
    intruders: [b.owner, b.apiKey],
    context: { anonymous: t.platform, subjectTokenFor: async (email) => `subject-${email}` },
  });
  const groups = isolationProbes().map((p) => p.group);
  assert.equal(Object.keys(report.checked), groups);
  for (const probe of isolationProbes()) {
    const c = report.checked[probe.group];
    assert.ok(
      c.notFound >= probe.paths('00000000-0000-4000-8000-000000000000').length,
      `${probe.group}: every request answered 404 to B's owner (${JSON.stringify(c)})`,
    );
    if (probe.listPath) assert.ok(c.lists >= 1, `${probe.group}: B's list was checked`);
  }
  // And the other way round, with A's API key as the intruder.
  await assertWorkspaceIsolation({
    owner: b.owner,
    intruders: [a.apiKey],
    context: { anonymous: t.platform, subjectTokenFor: async (email) => `subject-${email}` },
  });
  // Each side's workspace view is its own.
  assert.is((await a.apiKey.api.get('/v1/workspaces/current')).body.id, a.workspaceId);
  assert.is((await b.owner.api.get('/v1/workspaces/current')).body.id, b.workspaceId);

  // The harness itself is not vacuous: an "intruder" of the same workspace is caught.
  for (const probe of isolationProbes()) {
    let caught: unknown = null;
    try {
      await assertWorkspaceIsolation({
        owner: a.owner,
        intruders: [{ label: 'same workspace', api: a.owner.api }],
        context: { anonymous: t.platform, subjectTokenFor: async (email) => `subject-${email}` },
        probes: [probe],
      });
    } catch (err) {
      caught = err;
    }
    assert.ok(caught instanceof Error, `${probe.group}: a same-workspace caller must fail the isolation check`);
  }
}

test.run();
