/**
 * One-time secrets are stored as little as possible (issue 18): a cached idempotent response that
 * holds a token, API key or invite URL is encrypted and still replays byte for byte; a delivered
 * e-mail's body (with its invite or reset link) is erased; undelivered bodies are purged after a day
 * and every outbox row after 30; a mail kept for lack of SMTP is never written to the log.
 */
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mailSendTask } from '../../../jobs/tasks/mail__send.ts';
import type { Logger } from '../../../lib/logger.ts';
import { purgeExpired } from '../../../sql/maintenance.ts';
import { insertOutboxEmail } from '../../../sql/outbox.ts';
import { demoToken, eventually, startTestApp, type TestApp } from '../../helpers/app.ts';
import type { Client } from '../../helpers/http.ts';
import { provisioningKey } from '../../helpers/identities.ts';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp.ts';

const prov = provisioningKey();
let t: TestApp;
let smtp: SmtpSink;
let api: Client;
test.before(async () => {
  smtp = await startSmtpSink();
  t = await startTestApp({ worker: true, env: { ...prov.env, SMTP_URL: smtp.url } });
  api = t.platform.as(await demoToken(t));
});
test.after(async () => {
  await t.close();
  await smtp.close();
});

const cachedBodies = async () =>
  (await t.app.pool.query<{ response_body: string }>(`select response_body from idempotency_keys where state = 'completed'`)).rows.map((r) => r.response_body);

test('a provisioning response is cached encrypted and replayed byte for byte, secret included', async () => {
  const key = randomUUID();
  const payload = { organization: { name: 'Secretive', slug: 'secretive' }, owner: { email: 'owner@secretive.example' } };
  const first = await t.platform.post('/v1/provisioning/clients', payload, { token: prov.key, headers: { 'idempotency-key': key } });
  assert.is(first.status, 201, first.text);
  const secret = first.body.api_key.secret as string;
  const inviteUrl = first.body.owner_invite.url as string;
  const bodies = await cachedBodies();
  assert.ok(bodies.length >= 1);
  for (const body of bodies) {
    assert.not.ok(body.includes(secret), 'the API key is not stored in clear');
    assert.not.ok(body.includes(inviteUrl), 'the invite URL is not stored in clear');
  }
  const replay = await t.platform.post('/v1/provisioning/clients', payload, { token: prov.key, headers: { 'idempotency-key': key } });
  assert.is(replay.status, 201);
  assert.is(replay.headers.get('idempotency-replayed'), 'true');
  assert.is(replay.text, first.text);
});

test('a service-account token in a cached response is not stored in clear', async () => {
  const account = await api.post('/v1/service-accounts', { name: `secrets-${randomUUID().slice(0, 8)}`, scopes: ['issues:read'] });
  const key = randomUUID();
  const created = await api.post(
    `/v1/service-accounts/${account.body.id}/tokens`,
    { name: 'ci', expires_at: '2030-01-01T00:00:00Z' },
    { headers: { 'idempotency-key': key } },
  );
  assert.is(created.status, 201, created.text);
  for (const body of await cachedBodies()) assert.not.ok(body.includes(created.body.token));
  const replay = await api.post(
    `/v1/service-accounts/${account.body.id}/tokens`,
    { name: 'ci', expires_at: '2030-01-01T00:00:00Z' },
    { headers: { 'idempotency-key': key } },
  );
  assert.is(replay.text, created.text);
});

test('a delivered e-mail keeps no body; old and undelivered rows are purged', async () => {
  const { rows: before } = await t.app.pool.query(`select id from outbox_emails where to_address = 'owner@secretive.example'`);
  assert.is(before.length, 1);
  const mail = await smtp.waitFor((m) => m.to.includes('owner@secretive.example'));
  assert.match(mail.text, /https?:\/\//, 'the e-mail itself carries the link');
  const row = await eventually(async () => {
    const { rows } = await t.app.pool.query(`select status, text_body, html_body from outbox_emails where id = $1`, [before[0].id]);
    return rows[0].status === 'sent' ? rows[0] : undefined;
  });
  assert.is(row.text_body, '[erased after delivery]');
  assert.is(row.html_body, null);

  await t.app.pool.query(
    `insert into outbox_emails (to_address, subject, text_body, status, created_at) values
       ('old@x.test', 's', 'link', 'sent', now() - interval '31 days'),
       ('undelivered@x.test', 's', 'link', 'logged', now() - interval '2 days'),
       ('fresh@x.test', 's', 'link', 'logged', now())`,
  );
  // Issue 26: text messages carry one-time codes; none is kept past a day.
  await t.app.pool.query(
    `insert into outbox_sms (to_number, body, status, created_at) values
       ('+15550000001', 'Your code is 123456', 'logged', now() - interval '25 hours'),
       ('+15550000002', 'Your code is 654321', 'logged', now())`,
  );
  const purged = await purgeExpired(t.app.pool);
  assert.ok(purged.outbox_emails >= 2);
  assert.equal(
    (await t.app.pool.query('select to_number from outbox_sms order by to_number')).rows.map((r) => r.to_number),
    ['+15550000002'],
    'a text message older than a day was kept',
  );
  const { rows } = await t.app.pool.query(`select to_address from outbox_emails where to_address like '%@x.test' order by to_address`);
  assert.equal(
    rows.map((r) => r.to_address),
    ['fresh@x.test'],
  );
});

test('without SMTP a message is kept in the outbox and its body never reaches the log', async () => {
  const lines: string[] = [];
  const capture: Logger = {
    debug: (msg, fields) => lines.push(JSON.stringify({ msg, ...fields })),
    info: (msg, fields) => lines.push(JSON.stringify({ msg, ...fields })),
    warn: (msg, fields) => lines.push(JSON.stringify({ msg, ...fields })),
    error: (msg, fields) => lines.push(JSON.stringify({ msg, ...fields })),
    child: () => capture,
  };
  const link = `https://console.example/accept?token=${randomUUID()}`;
  // Written without enqueueing: this test runs the task itself, with no SMTP and a capturing log.
  const mail = await insertOutboxEmail(t.app.pool, { to: 'nosmtp@x.test', subject: 'Invite', text: `Join: ${link}` });
  const app = { ...t.app, logger: capture, config: { ...t.app.config, SMTP_URL: undefined } };
  const result = await mailSendTask.run(
    { outbox_email_id: mail.id },
    { app, runId: randomUUID(), attempt: 1, maxAttempts: 8, workspaceId: null, tenantId: null, progress: async () => {}, signal: new AbortController().signal },
  );
  assert.equal(result, { status: 'logged' });
  assert.ok(lines.length >= 1);
  for (const line of lines) assert.not.ok(line.includes(link) || line.includes('Join:'), line);
  const { rows } = await t.app.pool.query(`select status, text_body from outbox_emails where id = $1`, [mail.id]);
  assert.equal(rows[0], { status: 'logged', text_body: `Join: ${link}` }, 'kept for a developer until the purge');
});

test.run();
