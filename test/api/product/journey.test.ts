/**
 * The whole onboarding journey over real HTTP with real cookies: seed staff, create and provision a
 * tenant, upload (CSV and XLSX), commit, train, activate, invite (the mail goes through a real SMTP
 * sink and the test follows its link), accept, go live, tenant login, snapshot, members, sources,
 * impersonation and logout.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { recordsCsv, recordsXlsx, syntheticRecords, uploadFile, waitForTrainJob } from '../../helpers/onboarding.ts';
import { productClient, seedStaff, staffLogin, type ProductClient } from '../../helpers/product.ts';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp.ts';

let t: TestApp;
let smtp: SmtpSink;
test.before(async () => {
  smtp = await startSmtpSink();
  t = await startTestApp({ worker: true, env: { SMTP_URL: smtp.url, APP_URL: 'https://console.example.test' } });
});
test.after(async () => {
  await t.close();
  await smtp.close();
});

test('a tenant goes from draft to live and its user reads insights', async () => {
  // Staff seeded by the operator script's function, then signed in.
  const credentials = await seedStaff(t, { email: 'onboarder@svc.test', name: 'Olga Onboarder' });
  const staff: ProductClient = await staffLogin(t, credentials);
  assert.ok(staff.cookies.get('svc_admin_session'));

  const created = await staff.post('/admin/tenants', { slug: 'acme-works', company: 'Acme Works', industry: 'manufacturing' });
  assert.is(created.status, 201, created.text);
  const tenantId = created.body.id as string;
  const base = `/admin/tenants/${tenantId}`;

  // Provision: the job creates the schema, applies the tenant migrations and seeds the profiles.
  const provision = await staff.post(`${base}/provision`);
  assert.is(provision.status, 202, provision.text);
  for (let i = 0; i < 400; i++) {
    const status = await staff.get(`${base}/provision/status`);
    if (status.body.status === 'succeeded') break;
    assert.is.not(status.body.status, 'failed', status.text);
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.is((await staff.get(base)).body.lifecycle_state, 'onboarding');

  // Historical data in two files: a CSV, then an XLSX whose records update two and add the rest.
  const records = syntheticRecords(150, 11, 4);
  const csv = await uploadFile(staff, `${base}/ingest/upload`, 'history-2023.csv', recordsCsv(records.slice(0, 100)));
  assert.is(csv.status, 201, csv.text);
  assert.is(csv.body.status, 'uploaded');
  assert.is(csv.body.format, 'csv');
  assert.is(csv.body.row_count, 100);
  const first = await staff.post(`${base}/ingest/commit`, { upload_id: csv.body.id });
  assert.is(first.status, 201, first.text);
  assert.is(first.body.version, 1);
  assert.is(first.body.record_count, 100);

  const changed = records.slice(98, 150).map((r, i) => (i < 2 ? { ...r, title: `${r.title} (revised)` } : r));
  const xlsx = await uploadFile(staff, `${base}/ingest/upload`, 'history-2024.xlsx', await recordsXlsx(changed));
  assert.is(xlsx.status, 201, xlsx.text);
  assert.is(xlsx.body.status, 'uploaded', xlsx.body.error_detail);
  assert.is(xlsx.body.format, 'xlsx');
  const second = await staff.post(`${base}/ingest/commit`, { upload_id: xlsx.body.id });
  assert.is(second.status, 201, second.text);
  assert.equal([second.body.version, second.body.record_count, second.body.records_added, second.body.records_updated], [2, 150, 50, 2]);

  // Settings, then training on dataset version 2.
  const config = await staff.put(`${base}/training-config`, { k_max: 12, bootstrap_samples: 5 });
  assert.is(config.status, 200, config.text);
  assert.equal([config.body.config.k_max, config.body.config.bootstrap_samples], [12, 5]);
  const policy = await staff.put(`${base}/data-policy`, { retention_days: 3650, redact_pii: true });
  assert.is(policy.status, 200, policy.text);
  assert.equal([policy.body.retention_days, policy.body.redact_pii], [3650, true]);
  const seeded = await staff.post(`${base}/sources/seed`);
  assert.is(seeded.status, 200, seeded.text);
  assert.equal(
    seeded.body.map((s: { name: string; kind: string }) => [s.name, s.kind]),
    [['Historical import', 'file_upload']],
  );

  assert.equal((await staff.get(`${base}/train/status`)).body, { status: 'not_started', progress: 0, error_detail: null });
  const train = await staff.post(`${base}/train`);
  assert.is(train.status, 202, train.text);
  assert.is(train.body.status, 'queued');
  const job = await waitForTrainJob(t, tenantId);
  assert.is(job.status, 'succeeded', job.error_detail ?? '');
  assert.equal((await staff.get(`${base}/train/status`)).body, { status: 'succeeded', progress: 100, error_detail: null });

  const checkpoints = await staff.get(`${base}/checkpoints`);
  assert.is(checkpoints.body.length, 1);
  const checkpoint = checkpoints.body[0];
  assert.is(checkpoint.dataset_version, 2);
  assert.is(checkpoint.active, false);
  assert.is(checkpoint.metrics.records, 150);
  assert.ok(checkpoint.metrics.patterns >= 2, JSON.stringify(checkpoint.metrics));
  const activated = await staff.post(`${base}/checkpoints/${checkpoint.id}/activate`);
  assert.is(activated.status, 200, activated.text);
  assert.is(activated.body.active, true);

  // Invite: the mail arrives through SMTP with the accept link.
  const invite = await staff.post(`${base}/invite`, { email: 'Dana.Lead@Acme.test', role_profile: 'admin', full_name: 'Dana Lead' });
  assert.is(invite.status, 201, invite.text);
  assert.is(invite.body.status, 'pending');
  assert.is(invite.body.email, 'dana.lead@acme.test');
  const mail = await smtp.waitFor((m) => m.to.includes('dana.lead@acme.test'));
  const link = /https:\/\/console\.example\.test\/accept-invite\?workspace=([^&\s]+)&token=([A-Za-z0-9_-]+)/.exec(mail.text);
  assert.ok(link, mail.text);
  assert.is(link![1], 'acme-works');
  assert.not.ok(invite.text.includes(link![2]), 'the token is only in the e-mail');

  // Not live yet: go-live lists nothing missing now, so accept first, then go live.
  const user = productClient(t);
  const accepted = await user.post('/accept-invite', { workspace: link![1], token: link![2], password: 'a long tenant password' });
  assert.is(accepted.status, 200, accepted.text);
  assert.is(accepted.body.email, 'dana.lead@acme.test');
  assert.is(accepted.body.full_name, 'Dana Lead');
  assert.ok(user.cookies.get('svc_tenant_session')?.startsWith('acme-works:'));
  assert.ok(user.cookies.get('svc_csrf'));
  const invitations = await staff.get(`${base}/invitations`);
  assert.is(invitations.body[0].status, 'accepted');

  const live = await staff.post(`${base}/go-live`);
  assert.is(live.status, 200, live.text);
  assert.is(live.body.lifecycle_state, 'live');
  assert.equal(
    (await productClient(t).get('/workspaces')).body.map((w: { client_id: string }) => w.client_id),
    ['acme-works'],
  );

  // The tenant user signs in with the password chosen at acceptance.
  const tenantUser = productClient(t);
  const login = await tenantUser.post('/login', { workspace: 'acme-works', email: 'dana.lead@acme.test', password: 'a long tenant password' });
  assert.is(login.status, 200, login.text);
  assert.ok(login.body.permissions.includes('sources.manage'));

  const snapshot = await tenantUser.get('/insights/snapshot');
  assert.is(snapshot.status, 200, snapshot.text);
  assert.is(snapshot.body.dataset_version, 2);
  assert.is(snapshot.body.model_version, checkpoint.model_version);
  assert.is(snapshot.body.checkpoint_id, checkpoint.id);
  assert.is(snapshot.body.patterns.length, checkpoint.metrics.patterns);
  const top = snapshot.body.patterns[0];
  assert.ok(top.size >= 3 && top.risk_score >= 0 && top.risk_score <= 100 && top.top_terms.length > 0, JSON.stringify(top));
  const risks = snapshot.body.patterns.map((p: { risk_score: number }) => p.risk_score);
  assert.equal(
    risks,
    [...risks].sort((a, b) => b - a),
  );

  const members = await tenantUser.get('/members');
  assert.is(members.status, 200);
  assert.equal(
    members.body.map((m: { email: string; roles: unknown }) => [m.email, m.roles]),
    [['dana.lead@acme.test', [{ profile: 'admin', label: 'Admin' }]]],
  );

  const sources = await tenantUser.get('/sources');
  assert.equal(
    sources.body.map((s: { name: string }) => s.name),
    ['Historical import'],
  );
  const webhook = await tenantUser.post('/sources', { name: 'Pager alerts', kind: 'webhook' });
  assert.is(webhook.status, 201, webhook.text);
  const fileSource = sources.body[0];
  const more = syntheticRecords(20, 99, 4, 'field-reports');
  const uploaded = await uploadFile(tenantUser, `/sources/${fileSource.id}/upload`, 'field.csv', recordsCsv(more));
  assert.is(uploaded.status, 201, uploaded.text);
  assert.is(uploaded.body.status, 'committed');
  assert.is(uploaded.body.source_id, fileSource.id);
  const wrongKind = await uploadFile(tenantUser, `/sources/${webhook.body.id}/upload`, 'field.csv', recordsCsv(more));
  assert.is(wrongKind.status, 409);
  assert.equal(wrongKind.body, { detail: "Source is kind 'webhook', not file_upload." });

  // The snapshot stays on the active model although a third dataset version now exists.
  assert.is((await tenantUser.get('/insights/snapshot')).body.dataset_version, 2);

  // Impersonation: staff get a real tenant session of the earliest active user, keeping theirs.
  const impersonated = await staff.post(`${base}/impersonate`);
  assert.is(impersonated.status, 200, impersonated.text);
  assert.ok(staff.cookies.get('svc_admin_session'));
  assert.ok(staff.cookies.get('svc_tenant_session')?.startsWith('acme-works:'));
  assert.is((await staff.get('/me')).body.email, 'dana.lead@acme.test');
  assert.is((await staff.get('/admin/me')).body.email, 'onboarder@svc.test');

  // Logout revokes the tenant session.
  const logout = await tenantUser.post('/logout');
  assert.is(logout.status, 204, logout.text);
  assert.is((await tenantUser.get('/insights/snapshot')).status, 401);
  assert.is((await user.get('/me')).status, 200, 'the session minted at acceptance is another session');
});

test.run();
