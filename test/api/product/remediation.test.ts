/**
 * Remediation: CAPs (rule 3's dedupe, also under concurrent identical POSTs; rule 1's optimistic
 * concurrency, also under concurrent PATCHes; the status workflow and its 409s), reviews (opened by
 * submitting, decided exactly once, also under concurrent decisions, moving the CAP), permissions,
 * CSRF and 404 texts, the tenant audit log (a row per change, in the change's transaction; limit
 * default and clamping) and the audit rows of source, upload and membership changes.
 */
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { allowlist } from '../../../api/product/allowlist.ts';
import { findTenant } from '../../../sql/tenants.ts';
import { withTenant } from '../../../sql/tenant/schema.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { ingestRecords, recordsCsv, syntheticRecords, trainedTenant, uploadFile } from '../../helpers/onboarding.ts';
import { createTenantUser, liveTenant, productClient, staffLogin, tenantLogin, type ProductClient } from '../../helpers/product.ts';

const VERSION_MOVED = 'This CAP changed since you loaded it — refresh and retry.';
const ALREADY_DECIDED = 'This review has already been decided.';

let t: TestApp;
let staff: Awaited<ReturnType<typeof staffLogin>>;
let tenantId: string;
let slug: string;
let schema: string;
let analyst: ProductClient;
let analystId: string;
let admin: ProductClient;
let viewer: ProductClient;
let patternId: string;

test.before(async () => {
  t = await startTestApp({ worker: true });
  staff = await staffLogin(t);
  const { tenant, user } = await liveTenant(t, staff, { roleProfile: 'analyst' });
  tenantId = tenant.id;
  slug = tenant.slug;
  schema = (await findTenant(t.app.pool, tenant.id))!.schema_name;
  analystId = user.id;
  analyst = await tenantLogin(t, slug, user.email, user.password);
  const a = await createTenantUser(t, tenantId, { roleProfile: 'admin' });
  admin = await tenantLogin(t, slug, a.email, a.password);
  const v = await createTenantUser(t, tenantId, { roleProfile: 'viewer' });
  viewer = await tenantLogin(t, slug, v.email, v.password);
  await trainedTenant(t, staff, tenantId);
  const snapshot = await admin.get('/insights/snapshot');
  patternId = snapshot.body.patterns[0].id;
});
test.after(async () => t.close());

const sql = <T = any>(text: string, params: unknown[] = []) => withTenant(t.app.pool, schema, async (db) => (await db.query(text, params)).rows as T[]);
const auditOf = (resourceId: string) =>
  sql<{ action: string; actor_id: string; metadata: any }>('select action, actor_id, metadata from audit_log where resource_id = $1 order by seq', [
    resourceId,
  ]);
const newCap = (body: Record<string, unknown> = {}) =>
  analyst.post('/remediation/caps', { target_type: 'other', target_id: `asset-${randomUUID().slice(0, 8)}`, title: 'Replace worn seals', ...body });

test('POST /remediation/caps creates a draft CAP on an engine pattern, with its audit row', async () => {
  const res = await analyst.post('/remediation/caps', {
    target_type: 'pattern',
    target_id: patternId,
    title: 'Stop the seal leaks',
    problem_statement: 'Pump seals leak after 200 hours.',
    owner_user_id: analystId,
    due_date: '2027-03-31',
  });
  assert.is(res.status, 201, res.text);
  assert.equal(
    { ...res.body, id: undefined, created_at: undefined, updated_at: undefined },
    {
      id: undefined,
      version: 1,
      status: 'draft',
      next_statuses: ['submitted', 'cancelled'],
      title: 'Stop the seal leaks',
      problem_statement: 'Pump seals leak after 200 hours.',
      target_type: 'pattern',
      target_id: patternId,
      owner_user_id: analystId,
      due_date: '2027-03-31',
      created_by: analystId,
      created_at: undefined,
      updated_at: undefined,
    },
  );
  const audit = await auditOf(res.body.id);
  assert.equal(
    audit.map((a) => [a.action, a.actor_id]),
    [['cap_created', analystId]],
  );

  const listed = await viewer.get(`/remediation/caps?target_type=pattern&target_id=${patternId}`);
  assert.is(listed.status, 200);
  assert.equal(
    listed.body.map((c: { id: string }) => c.id),
    [res.body.id],
  );
  assert.equal((await viewer.get('/remediation/caps?target_type=source')).body, []);
  const badFilter = await viewer.get('/remediation/caps?target_type=machine');
  assert.is(badFilter.status, 422);
  assert.equal(badFilter.body.detail[0].loc, ['query', 'target_type']);
});

test('POST validates targets, owner and body (422)', async () => {
  const unknownPattern = await newCap({ target_type: 'pattern', target_id: randomUUID() });
  assert.is(unknownPattern.status, 422);
  assert.match(unknownPattern.body.detail, /^Unknown pattern '.+' in this workspace\.$/);
  assert.is((await newCap({ target_type: 'source', target_id: 'nope' })).status, 422);
  const owner = await newCap({ owner_user_id: randomUUID() });
  assert.is(owner.status, 422);
  assert.match(owner.body.detail, /is not an active user of this workspace/);
  const missing = await analyst.post('/remediation/caps', { target_type: 'other', target_id: 'x' });
  assert.is(missing.status, 422);
  assert.equal(
    missing.body.detail.map((d: { loc: string[] }) => d.loc),
    [['body', 'title']],
  );
  assert.is((await newCap({ due_date: '31/03/2027' })).status, 422);
  assert.is((await newCap({ extra: 1 })).status, 422);
  const source = (await analyst.post('/sources', { name: 'CAP target source', kind: 'api' })).body;
  assert.is((await newCap({ target_type: 'source', target_id: source.id })).status, 201);
});

test('rule 3: an open CAP with the same problem statement (or title) is answered unchanged, without a row or audit entry', async () => {
  const target = { target_type: 'other', target_id: 'line-7' };
  const first = await analyst.post('/remediation/caps', { ...target, title: 'Recalibrate torque', problem_statement: 'Bolts under-torqued.' });
  assert.is(first.status, 201);
  const again = await admin.post('/remediation/caps', { ...target, title: 'Another title', problem_statement: 'Bolts under-torqued.' });
  assert.is(again.status, 200);
  assert.equal(again.body, first.body, 'the existing CAP, unchanged');
  const titleOnly = await analyst.post('/remediation/caps', { ...target, title: 'Recalibrate torque' });
  assert.is(titleOnly.status, 201, 'no problem statement: compared by title with CAPs that have none');
  assert.is((await analyst.post('/remediation/caps', { ...target, title: 'Recalibrate torque' })).body.id, titleOnly.body.id);
  const elsewhere = await analyst.post('/remediation/caps', {
    target_type: 'other',
    target_id: 'line-8',
    title: 'x',
    problem_statement: 'Bolts under-torqued.',
  });
  assert.is(elsewhere.status, 201, 'another target is another CAP');
  assert.is((await sql('select count(*)::int as n from caps where target_id = $1', ['line-7']))[0].n, 2);
  assert.is((await auditOf(first.body.id)).length, 1, 'no audit entry for the deduplicated POST');
  const other = await analyst.post('/remediation/caps', { ...target, title: 'Other plan' });
  const intoDuplicate = await analyst.patch(`/remediation/caps/${other.body.id}`, { expected_version: 1, title: 'Recalibrate torque' });
  assert.is(intoDuplicate.status, 409);
  assert.is(intoDuplicate.body.detail, 'Another open CAP on this target has the same problem statement (or, without one, the same title).');

  // A terminal CAP no longer deduplicates.
  const cancelled = await analyst.patch(`/remediation/caps/${first.body.id}`, { expected_version: 1, status: 'cancelled' });
  assert.is(cancelled.status, 200, cancelled.text);
  const fresh = await analyst.post('/remediation/caps', { ...target, title: 'Recalibrate torque', problem_statement: 'Bolts under-torqued.' });
  assert.is(fresh.status, 201);
  assert.is.not(fresh.body.id, first.body.id);
});

test('rule 3 under concurrent identical POSTs: exactly one row and one audit entry', async () => {
  const body = { target_type: 'other', target_id: `press-${randomUUID().slice(0, 6)}`, title: 'Guard the press', problem_statement: 'Hands near the die.' };
  const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? analyst : admin).post('/remediation/caps', body)));
  assert.equal(answers.map((a) => a.status).sort(), [200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
  assert.is(new Set(answers.map((a) => a.body.id)).size, 1);
  assert.is((await sql('select count(*)::int as n from caps where target_id = $1', [body.target_id]))[0].n, 1);
  assert.is((await auditOf(answers[0].body.id)).length, 1);
});

test('rule 1: PATCH applies only on the stored version, which grows on every change; exact 409 text', async () => {
  const cap = (await newCap({ problem_statement: 'Worn.' })).body;
  const edited = await analyst.patch(`/remediation/caps/${cap.id}`, { expected_version: 1, title: 'Replace all worn seals', due_date: '2027-01-15' });
  assert.is(edited.status, 200, edited.text);
  assert.equal([edited.body.version, edited.body.title, edited.body.due_date, edited.body.status], [2, 'Replace all worn seals', '2027-01-15', 'draft']);
  const stale = await analyst.patch(`/remediation/caps/${cap.id}`, { expected_version: 1, status: 'submitted' });
  assert.is(stale.status, 409);
  assert.is(stale.text, JSON.stringify({ detail: VERSION_MOVED }));
  const cleared = await analyst.patch(`/remediation/caps/${cap.id}`, { expected_version: 2, problem_statement: null, due_date: null });
  assert.equal([cleared.body.version, cleared.body.problem_statement, cleared.body.due_date], [3, null, null]);
  const audit = await auditOf(cap.id);
  assert.equal(
    audit.map((a) => a.action),
    ['cap_created', 'cap_updated', 'cap_updated'],
  );
  assert.equal(audit[1].metadata, {
    version: 2,
    changes: { title: { from: 'Replace worn seals', to: 'Replace all worn seals' }, due_date: { from: null, to: '2027-01-15' } },
  });

  const nothing = await analyst.patch(`/remediation/caps/${cap.id}`, { expected_version: 3 });
  assert.is(nothing.status, 422);
  for (const id of [randomUUID(), 'not-a-uuid']) {
    const missing = await analyst.patch(`/remediation/caps/${id}`, { expected_version: 1, status: 'submitted' });
    assert.is(missing.status, 404);
    assert.equal(missing.body, { detail: 'CAP not found.' });
  }
});

test('rule 1 under concurrent PATCHes of one version: exactly one wins', async () => {
  const cap = (await newCap()).body;
  const answers = await Promise.all(
    Array.from({ length: 8 }, (_, i) => (i % 2 ? analyst : admin).patch(`/remediation/caps/${cap.id}`, { expected_version: 1, title: `Title ${i}` })),
  );
  const winners = answers.filter((a) => a.status === 200);
  assert.is(winners.length, 1, answers.map((a) => a.status).join(','));
  for (const loser of answers.filter((a) => a.status !== 200)) assert.is(loser.text, JSON.stringify({ detail: VERSION_MOVED }));
  const [stored] = await sql('select version, title from caps where id = $1', [cap.id]);
  assert.equal(stored, { version: 2, title: winners[0].body.title });
  assert.is((await auditOf(cap.id)).filter((a) => a.action === 'cap_updated').length, 1);
});

test('workflow: invalid moves are 409 with a clear text; submitting opens a review; approval and the rest of the way to closed', async () => {
  const cap = (await newCap()).body;
  const path = `/remediation/caps/${cap.id}`;
  const skip = await analyst.patch(path, { expected_version: 1, status: 'verified' });
  assert.is(skip.status, 409);
  assert.is(skip.body.detail, "A CAP cannot move from 'draft' to 'verified'; from 'draft' it can move to 'submitted', 'cancelled'.");
  const selfApprove = await analyst.patch(path, { expected_version: 1, status: 'approved' });
  assert.is(selfApprove.status, 409);
  assert.is(selfApprove.body.detail, "A CAP becomes 'approved' only by a decision on its review.");

  const submitted = await analyst.patch(path, { expected_version: 1, status: 'submitted' });
  assert.equal([submitted.status, submitted.body.status, submitted.body.version, submitted.body.next_statuses], [200, 'submitted', 2, []]);
  const reviews = await viewer.get(`/remediation/reviews?target_type=other&target_id=${cap.target_id}`);
  assert.is(reviews.status, 200);
  assert.is(reviews.body.length, 1);
  const review = reviews.body[0];
  assert.equal([review.cap_id, review.cap_version, review.decision, review.requested_by, review.decided_at], [cap.id, 2, null, analystId, null]);
  const whileSubmitted = await analyst.patch(path, { expected_version: 2, status: 'cancelled' });
  assert.is(whileSubmitted.status, 409);
  assert.is(whileSubmitted.body.detail, "This CAP is 'submitted': only a decision on its review moves it.");

  const decided = await admin.patch(`/remediation/reviews/${review.id}`, { decision: 'approved', comment: 'Go ahead.' });
  assert.is(decided.status, 200, decided.text);
  assert.equal(
    [decided.body.review.decision, decided.body.review.comment, decided.body.cap.status, decided.body.cap.version],
    ['approved', 'Go ahead.', 'approved', 3],
  );
  const twice = await admin.patch(`/remediation/reviews/${review.id}`, { decision: 'rejected' });
  assert.is(twice.status, 409);
  assert.is(twice.text, JSON.stringify({ detail: ALREADY_DECIDED }));

  let version = 3;
  for (const status of ['in_progress', 'verified', 'in_progress', 'verified', 'closed']) {
    const moved = await analyst.patch(path, { expected_version: version, status });
    assert.is(moved.status, 200, `${status}: ${moved.text}`);
    assert.is(moved.body.version, ++version);
  }
  const final = await analyst.patch(path, { expected_version: version, title: 'Too late' });
  assert.is(final.status, 409);
  assert.is(final.body.detail, "This CAP is 'closed', a final status; it can no longer change.");
  assert.equal(
    (await auditOf(cap.id)).map((a) => a.action),
    ['cap_created', 'cap_updated', 'cap_updated', 'cap_updated', 'cap_updated', 'cap_updated', 'cap_updated', 'cap_updated'],
  );
  assert.equal(
    (await auditOf(review.id)).map((a) => a.action),
    ['review_requested', 'review_decided'],
  );
});

test('reviews: concurrent decisions, exactly one wins; rejection is final for the CAP; 404 and 422', async () => {
  const cap = (await newCap()).body;
  await analyst.patch(`/remediation/caps/${cap.id}`, { expected_version: 1, status: 'submitted' });
  const [review] = (await viewer.get(`/remediation/reviews?target_id=${cap.target_id}`)).body;
  const answers = await Promise.all(
    Array.from({ length: 8 }, (_, i) => (i % 2 ? analyst : admin).patch(`/remediation/reviews/${review.id}`, { decision: i % 3 ? 'rejected' : 'approved' })),
  );
  const winners = answers.filter((a) => a.status === 200);
  assert.is(winners.length, 1, answers.map((a) => a.status).join(','));
  for (const loser of answers.filter((a) => a.status !== 200)) assert.is(loser.text, JSON.stringify({ detail: ALREADY_DECIDED }));
  const [stored] = await sql('select status, version from caps where id = $1', [cap.id]);
  assert.equal(stored, { status: winners[0].body.review.decision, version: 3 });
  assert.is((await auditOf(review.id)).filter((a) => a.action === 'review_decided').length, 1);

  const other = (await newCap()).body;
  await analyst.patch(`/remediation/caps/${other.id}`, { expected_version: 1, status: 'submitted' });
  const [pending] = (await viewer.get(`/remediation/reviews?target_id=${other.target_id}`)).body;
  const rejected = await admin.patch(`/remediation/reviews/${pending.id}`, { decision: 'rejected' });
  assert.equal([rejected.body.cap.status, rejected.body.cap.next_statuses], ['rejected', []]);
  assert.is((await analyst.patch(`/remediation/caps/${other.id}`, { expected_version: 3, status: 'draft' })).status, 409);

  for (const id of [randomUUID(), 'nope']) {
    const missing = await admin.patch(`/remediation/reviews/${id}`, { decision: 'approved' });
    assert.is(missing.status, 404);
    assert.equal(missing.body, { detail: 'Review not found.' });
  }
  assert.is((await admin.patch(`/remediation/reviews/${pending.id}`, { decision: 'maybe' })).status, 422);
});

test('permissions (exact 403 text), CSRF on every mutating route, 401 without a session', async () => {
  const cap = (await newCap()).body;
  const denied = async (res: Promise<{ status: number; body: any }>, permission: string) => {
    const r = await res;
    assert.is(r.status, 403);
    assert.equal(r.body, { detail: `Missing required permission '${permission}'.` });
  };
  await denied(viewer.post('/remediation/caps', { target_type: 'other', target_id: 'v', title: 'v' }), 'caps.write');
  await denied(viewer.patch(`/remediation/caps/${cap.id}`, { expected_version: 1, title: 'v' }), 'caps.write');
  await denied(viewer.patch(`/remediation/reviews/${randomUUID()}`, { decision: 'approved' }), 'reviews.write');
  await denied(viewer.get('/remediation/export.xlsx'), 'exports.create');
  await denied(viewer.get('/remediation/audit-log'), 'audit.read');
  await denied(analyst.get('/remediation/audit-log'), 'audit.read');
  const noCsrf = { noCsrf: true };
  for (const res of [
    await analyst.post('/remediation/caps', { target_type: 'other', target_id: 'c', title: 'c' }, noCsrf),
    await analyst.patch(`/remediation/caps/${cap.id}`, { expected_version: 1, title: 'c' }, noCsrf),
    await admin.patch(`/remediation/reviews/${randomUUID()}`, { decision: 'approved' }, noCsrf),
  ]) {
    assert.is(res.status, 403);
    assert.equal(res.body, { detail: 'CSRF token missing or mismatched.' });
  }
  const anonymous = productClient(t);
  for (const path of ['/remediation/caps', '/remediation/reviews', '/remediation/audit-log', '/remediation/export.xlsx']) {
    const res = await anonymous.get(path);
    assert.is(res.status, 401, path);
    assert.equal(res.body, { detail: 'No tenant session.' });
  }
  assert.equal((await sql('select version, title from caps where id = $1', [cap.id]))[0], { version: 1, title: cap.title });
});

test('GET /remediation/audit-log: most recent first, limit default 50 and clamped to 1..200', async () => {
  await sql(
    `insert into audit_log (action, actor_type, metadata, occurred_at)
     select 'bulk_probe', 'system', jsonb_build_object('n', n), now() - interval '1 day' + n * interval '1 second' from generate_series(1, 260) n`,
  );
  const first = await newCap();
  const latest = await admin.get('/remediation/audit-log?limit=1');
  assert.is(latest.status, 200);
  assert.equal([latest.body.length, latest.body[0].action, latest.body[0].resource_id], [1, 'cap_created', first.body.id]);
  assert.is((await admin.get('/remediation/audit-log')).body.length, 50);
  assert.is((await admin.get('/remediation/audit-log?limit=0')).body.length, 1);
  assert.is((await admin.get('/remediation/audit-log?limit=-5')).body.length, 1);
  const clamped = await admin.get('/remediation/audit-log?limit=5000');
  assert.is(clamped.body.length, 200);
  const times = clamped.body.map((e: { occurred_at: string }) => Date.parse(e.occurred_at));
  assert.equal(
    times,
    [...times].sort((a, b) => b - a),
    'most recent first',
  );
  for (const bad of ['abc', '1.5', '']) {
    const res = await admin.get(`/remediation/audit-log?limit=${bad}`);
    assert.is(res.status, 422, bad);
    assert.equal(res.body.detail[0].loc, ['query', 'limit']);
  }
  // Rows of one transaction come back in reverse order of writing.
  const cap = (await newCap()).body;
  await analyst.patch(`/remediation/caps/${cap.id}`, { expected_version: 1, status: 'submitted' });
  const recent = (await admin.get('/remediation/audit-log?limit=2')).body;
  assert.equal(
    recent.map((e: { action: string }) => e.action),
    ['review_requested', 'cap_updated'],
  );
});

test('source, upload and membership changes write their audit rows', async () => {
  const source = (await analyst.post('/sources', { name: 'Audited uploads', kind: 'file_upload' })).body;
  assert.equal(
    (await auditOf(source.id)).map((a) => [a.action, a.actor_id, a.metadata.kind]),
    [['source_created', analystId, 'file_upload']],
  );

  const upload = await uploadFile(analyst, `/sources/${source.id}/upload`, 'a.csv', recordsCsv(syntheticRecords(6, 41, 2, 'audited')));
  assert.is(upload.body.status, 'committed', upload.text);
  assert.equal(
    (await auditOf(upload.body.id)).map((a) => [a.action, a.actor_id]),
    [
      ['upload_received', analystId],
      ['upload_committed', analystId],
    ],
  );
  const failed = await uploadFile(analyst, `/sources/${source.id}/upload`, 'bad.csv', 'title\r\nx\r\n');
  assert.equal(
    (await auditOf(failed.body.id)).map((a) => a.action),
    ['upload_failed'],
  );

  const dataset = await ingestRecords(staff, tenantId, syntheticRecords(4, 42, 1, 'staff'));
  assert.equal(
    (await auditOf(dataset.upload_id)).map((a) => [a.action, a.actor_id]),
    [
      ['upload_received', staff.staff.id],
      ['upload_committed', staff.staff.id],
    ],
  );
  const seeded = await staff.post(`/admin/tenants/${tenantId}/sources/seed`, {
    sources: [
      { name: 'Seeded API', kind: 'api' },
      { name: 'Audited uploads', kind: 'api' },
    ],
  });
  const seededApi = seeded.body.find((s: { name: string }) => s.name === 'Seeded API');
  assert.equal(
    (await auditOf(seededApi.id)).map((a) => [a.action, a.actor_id]),
    [['source_created', staff.staff.id]],
  );
  assert.is((await auditOf(source.id)).length, 1, 'an existing name is not re-created');

  const invited = await staff.post(`/admin/tenants/${tenantId}/invite`, { email: 'new.member@client.test', role_profile: 'viewer' });
  assert.is(invited.status, 201, invited.text);
  assert.equal(
    (await auditOf(invited.body.id)).map((a) => [a.action, a.actor_id, a.metadata.role_profile]),
    [['invitation_created', staff.staff.id, 'viewer']],
  );
});

test('the seven remediation operations are allowlisted and in /openapi.json with their permissions (51 operations in all)', async () => {
  const spec = (await t.product.get('/openapi.json')).body;
  const operations = {
    'get /remediation/caps': 'caps.read',
    'post /remediation/caps': 'caps.write',
    'patch /remediation/caps/{cap_id}': 'caps.write',
    'get /remediation/reviews': 'reviews.read',
    'patch /remediation/reviews/{review_id}': 'reviews.write',
    'get /remediation/audit-log': 'audit.read',
    'get /remediation/export.xlsx': 'exports.create',
  };
  for (const [operation, permission] of Object.entries(operations)) {
    const [method, path] = operation.split(' ');
    assert.is(spec.paths[path]?.[method]?.['x-required-permission'], permission, operation);
  }
  assert.ok(spec.paths['/remediation/export.xlsx'].get.responses['200'].content['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet']);
  const groups: Record<string, number> = {};
  for (const op of allowlist) groups[op.group] = (groups[op.group] ?? 0) + 1;
  assert.equal(groups, { authentication: 12, onboarding: 18, insights: 1, members: 1, sources: 3, remediation: 7, observability: 6, health: 3 });
  assert.is(
    allowlist.length,
    51,
    'see docs/decisions.md: the spec says 44, its own tables name 42, plus 4 password-reset operations and 5 staff console operations (jobs, outbox)',
  );
});

test.run();
