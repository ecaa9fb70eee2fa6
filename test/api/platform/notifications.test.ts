/**
 * Notifications end to end: producers (ingest, PATCH escalation, invitations) → routing per member
 * → in-app inbox and unread count, e-mail through the mail job to a real SMTP sink, chat to a real
 * receiver (signature checked with the standardwebhooks package), digests and quiet hours under an
 * injected clock.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { dispatchDueDeliveries } from '../../../usecases/notifications/deliver.ts';
import { notificationRouteTask } from '../../../jobs/tasks/notification__route.ts';
import { produceWeeklyDigests } from '../../../jobs/tasks/notification__weekly_digest.ts';
import { demoToken, eventually, startTestApp, type TestApp } from '../../helpers/app.ts';
import { TestClock } from '../../helpers/clock.ts';
import { assertValidation, fresh } from '../../helpers/errors.ts';
import type { Client } from '../../helpers/http.ts';
import { addMember, type TestMember } from '../../helpers/members.ts';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp.ts';

// Thursday 2026-01-15, 10:00 UTC.
const clock = new TestClock('2026-01-15T10:00:00Z');
let t: TestApp;
let smtp: SmtpSink;
let owner: Client;
let chat: { url: string; received: Array<{ headers: http.IncomingHttpHeaders; body: string }>; status: number; close(): Promise<void> };

async function startChatReceiver() {
  const received: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];
  const state = { status: 200 };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(state.status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    get status() {
      return state.status;
    },
    set status(v: number) {
      state.status = v;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

test.before(async () => {
  smtp = await startSmtpSink();
  chat = await startChatReceiver();
  t = await startTestApp({ clock, worker: true, env: { SMTP_URL: smtp.url } });
  owner = t.platform.as(await demoToken(t));
});
test.after(async () => {
  await t?.close();
  await smtp?.close();
  await chat?.close();
});

const count = async (sql: string, params: unknown[] = []) => (await t.app.pool.query(sql, params)).rows[0].n as number;
const notificationsOf = (userId: string, kind: string) =>
  count(`select count(*)::int as n from notifications where user_id = $1 and kind = $2`, [userId, kind]);
const ingest = (record: Record<string, unknown>) => owner.post('/v1/ingest/events', { source: 'tests', narrative: 'disk full on node', ...record }, fresh());
/** Moves the injected clock; the owner signs in again (access tokens live 72 hours of that clock). */
async function moveClock(iso: string) {
  clock.set(iso);
  owner = t.platform.as(await demoToken(t));
}
const waitFor = (what: string, check: () => Promise<boolean>) => eventually(async () => ((await check()) ? true : undefined), 15_000, what);

let realtime: TestMember;
let daily: TestMember;

test('a new high issue: in-app for everyone, e-mail at once (realtime) or in the digest (daily); medium notifies nobody', async () => {
  realtime = await addMember(t.app, t.demo.workspaceId, 'realtime@example.com');
  daily = await addMember(t.app, t.demo.workspaceId, 'daily@example.com');
  assert.is((await t.platform.patch('/v1/me/notifications', { digest_frequency: 'realtime' }, { token: realtime.token })).status, 200);

  const res = await ingest({ external_id: 'n-1', title: 'Checkout down', severity: 'high' });
  assert.is(res.status, 202, res.text);
  const issueId = res.body.issue_id;
  await waitFor(
    'notifications',
    async () => (await notificationsOf(daily.userId, 'new_issue_ingested')) === 1 && (await notificationsOf(realtime.userId, 'new_issue_ingested')) === 1,
  );

  const mail = await smtp.waitFor((m) => m.to.includes('realtime@example.com'));
  assert.is(mail.subject, '[svc] New high issue: Checkout down');
  assert.match(mail.text, 'A high issue was ingested from tests: "Checkout down".');
  assert.match(mail.text, `/platform/issues/${issueId}`);
  // The HTML part as delivered (the outbox erases a sent message's bodies, so the row may already be blank).
  assert.match(mail.html, '<p>A high issue was ingested from tests: &quot;Checkout down&quot;.</p>');
  assert.is(smtp.messages.filter((m) => m.to.includes('daily@example.com')).length, 0, 'daily: waits for the digest');
  assert.is(await count(`select count(*)::int as n from notification_deliveries where user_id = $1 and status = 'pending' and digest`, [daily.userId]), 1);

  const member = t.platform.as(daily.token);
  assert.equal((await member.get('/v1/me/notifications/unread-count')).body, { count: 1 });
  const inbox = await member.get('/v1/me/notifications/inbox');
  assert.is(inbox.status, 200, inbox.text);
  assert.is(inbox.body.data.length, 1);
  assert.equal(
    { ...inbox.body.data[0], id: undefined, created_at: undefined },
    {
      id: undefined,
      kind: 'new_issue_ingested',
      title: 'New high issue: Checkout down',
      body: 'A high issue was ingested from tests: "Checkout down".',
      link: `${t.config.APP_URL}/platform/issues/${issueId}`,
      subject: { type: 'issue', id: issueId },
      read: false,
      read_at: null,
      created_at: undefined,
    },
  );

  // A medium issue passes nobody's default p2 threshold.
  await ingest({ external_id: 'n-2', title: 'Slow page', severity: 'medium' });
  await ingest({ external_id: 'n-3', title: 'Payments failing', severity: 'critical' });
  await waitFor('the critical issue', async () => (await notificationsOf(daily.userId, 'new_issue_ingested')) === 2);
  assert.is(await count(`select count(*)::int as n from notifications n join issues i on i.id::text = n.subject_id where i.title = 'Slow page'`), 0);
});

test('once per member, kind and subject: routing the same event again sends nothing', async () => {
  const before = await count('select count(*)::int as n from notifications');
  const mails = await count('select count(*)::int as n from outbox_emails');
  const issueIds = (await t.app.pool.query(`select id from issues where workspace_id = $1`, [t.demo.workspaceId])).rows.map((r) => r.id);
  // What a retried job does: the task runs again with the same payload.
  const again = await notificationRouteTask.run({ source: 'issues', workspace_id: t.demo.workspaceId, created: issueIds, escalated: [] }, {
    app: t.app,
  } as never);
  assert.equal(again, { notifications: 0, deliveries: 0 });
  assert.is(await count('select count(*)::int as n from notifications'), before);
  assert.is(await count('select count(*)::int as n from outbox_emails'), mails);
  // The database refuses a duplicate outright.
  const dup = await t.app.pool
    .query(
      `insert into notifications (workspace_id, user_id, kind, subject_type, subject_id, title, body, in_app) select workspace_id, user_id, kind, subject_type, subject_id, title, body, in_app from notifications limit 1`,
    )
    .catch((err) => err);
  assert.is(dup.code, '23505');
});

test("inbox: mark some read, then all; unread-count follows; others' ids change nothing; bad bodies 400", async () => {
  const member = t.platform.as(daily.token);
  const inbox = (await member.get('/v1/me/notifications/inbox')).body.data;
  assert.is(inbox.length, 2);
  assert.ok(new Date(inbox[0].created_at) >= new Date(inbox[1].created_at), 'newest first');
  const foreign = (await t.platform.get('/v1/me/notifications/inbox', { token: realtime.token })).body.data[0].id;
  let res = await member.post('/v1/me/notifications/inbox/read', { ids: [inbox[0].id, foreign] });
  assert.equal(res.body, { marked: 1, unread_count: 1 });
  res = await member.post('/v1/me/notifications/inbox/read', { ids: [inbox[0].id] });
  assert.equal(res.body, { marked: 0, unread_count: 1 }, 'already read');
  assert.equal(
    (await member.get('/v1/me/notifications/inbox?unread=true')).body.data.map((n: { id: string }) => n.id),
    [inbox[1].id],
  );
  res = await member.post('/v1/me/notifications/inbox/read', { all: true });
  assert.equal(res.body, { marked: 1, unread_count: 0 });
  assert.equal((await member.get('/v1/me/notifications/unread-count')).body, { count: 0 });
  assert.equal((await t.platform.get('/v1/me/notifications/unread-count', { token: realtime.token })).body, { count: 2 }, "the other member's stay unread");
  assertValidation(await member.post('/v1/me/notifications/inbox/read', { ids: ['nope'] }), { 'ids.0': 'must be a notification id' });
  assertValidation(await member.post('/v1/me/notifications/inbox/read', { all: false }), { body: 'must be {ids: [...]} or {all: true}' });
});

test("daily digest: one e-mail with both issues at the member's local 08:00, not before", async () => {
  assert.is(await dispatchDueDeliveries(t.app), 0, 'nothing is due at 10:00');
  clock.set('2026-01-16T07:59:00Z');
  assert.is(await dispatchDueDeliveries(t.app), 0);
  clock.set('2026-01-16T08:00:00Z');
  assert.ok((await dispatchDueDeliveries(t.app)) >= 2);
  const digest = await smtp.waitFor((m) => m.to.includes('daily@example.com'));
  assert.is(digest.subject, '[svc] Your svc digest: 2 notifications');
  assert.match(digest.text, '- New high issue: Checkout down');
  assert.match(digest.text, '- New critical issue: Payments failing');
  await new Promise((r) => setTimeout(r, 300));
  assert.is(smtp.messages.filter((m) => m.to.includes('daily@example.com')).length, 1, 'one digest e-mail');
  assert.is(await dispatchDueDeliveries(t.app), 0, 'sent once');
});

test('quiet hours: held across midnight, sent when they end', async () => {
  await moveClock('2026-01-16T23:30:00Z'); // Friday 18:30 in New York
  const night = await addMember(t.app, t.demo.workspaceId, 'night@example.com');
  const res = await t.platform.patch(
    '/v1/me/notifications',
    { digest_frequency: 'realtime', quiet_hours: { start: '18:00', end: '07:30', timezone: 'America/New_York' } },
    { token: night.token },
  );
  assert.is(res.status, 200, res.text);
  await ingest({ external_id: 'n-4', title: 'Night outage', severity: 'critical' });
  await waitFor('the held notification', async () => (await notificationsOf(night.userId, 'new_issue_ingested')) === 1);
  const held = await t.app.pool.query(`select status, due_at from notification_deliveries where user_id = $1`, [night.userId]);
  assert.equal(
    held.rows.map((r) => [r.status, r.due_at.toISOString()]),
    [['pending', '2026-01-17T12:30:00.000Z']],
  );
  assert.equal((await t.platform.get('/v1/me/notifications/unread-count', { token: night.token })).body, { count: 1 }, 'in-app is not held');
  clock.set('2026-01-17T12:29:00Z');
  await dispatchDueDeliveries(t.app);
  assert.is(smtp.messages.filter((m) => m.to.includes('night@example.com')).length, 0);
  clock.set('2026-01-17T12:30:00Z');
  await dispatchDueDeliveries(t.app);
  const mail = await smtp.waitFor((m) => m.to.includes('night@example.com'));
  assert.is(mail.subject, '[svc] New critical issue: Night outage');
});

test('escalation to critical (PATCH) goes to chat as a signed POST; a failing receiver is retried', async () => {
  await moveClock('2026-01-19T15:00:00Z');
  const chatter = await addMember(t.app, t.demo.workspaceId, 'chatter@example.com');
  const prefs = await t.platform.patch('/v1/me/notifications', { chat_webhook_url: chat.url }, { token: chatter.token });
  assert.is(prefs.status, 200, prefs.text);
  const secret = prefs.body.chat_signing_secret as string;

  const created = await owner.post('/v1/issues', { title: 'Latency creeping up', severity: 'high' });
  assert.is(created.status, 201, created.text);
  chat.status = 503; // the first attempt fails
  const patched = await owner.patch(`/v1/issues/${created.body.id}`, { severity: 'critical' });
  assert.is(patched.status, 200, patched.text);
  await waitFor('the first chat attempt', async () => chat.received.length >= 1);
  chat.status = 200;
  // graphile-worker retries after its backoff (e^1 s).
  await waitFor(
    'the chat delivery',
    async () =>
      (await count(`select count(*)::int as n from notification_deliveries where user_id = $1 and channel = 'chat' and status = 'sent'`, [chatter.userId])) ===
      1,
  );
  const last = chat.received.at(-1)!;
  // The Standard Webhooks signature of exactly these bytes (signed at the service's clock, so compared, not time-checked).
  const timestamp = new Date(Number(last.headers['webhook-timestamp']) * 1000);
  assert.is(last.headers['webhook-signature'], new Webhook(secret).sign(last.headers['webhook-id'] as string, timestamp, last.body));
  const payload = JSON.parse(last.body);
  assert.is(payload.type, 'notification.issue_escalated_critical');
  assert.is(payload.workspace_id, t.demo.workspaceId);
  assert.is(payload.data.title, 'Issue escalated to critical: Latency creeping up');
  assert.equal(payload.data.subject, { type: 'issue', id: created.body.id });
  assert.ok(last.headers['x-svc-signature']);
  // Escalated once: lowering and raising again notifies no one again.
  await owner.patch(`/v1/issues/${created.body.id}`, { severity: 'high' });
  await owner.patch(`/v1/issues/${created.body.id}`, { severity: 'critical' });
  await new Promise((r) => setTimeout(r, 1000));
  assert.is(await notificationsOf(chatter.userId, 'issue_escalated_critical'), 1);
  assert.is(chat.received.filter((r) => r.body.includes('issue_escalated_critical')).length, 2, 'one failed attempt, one success');
});

test('member_invited: owners and admins hear of an invitation, not the inviter or plain members', async () => {
  const admin = await addMember(t.app, t.demo.workspaceId, 'admin@example.com', 'admin');
  await t.platform.patch('/v1/me/notifications', { digest_frequency: 'realtime' }, { token: admin.token });
  const res = await owner.post('/v1/invitations', { email: `new-${randomUUID().slice(0, 6)}@example.com`, role: 'member' });
  assert.is(res.status, 201, res.text);
  await waitFor('the admin notification', async () => (await notificationsOf(admin.userId, 'member_invited')) === 1);
  assert.is(await notificationsOf(t.demo.userId, 'member_invited'), 0, 'the inviter');
  assert.is(await notificationsOf(daily.userId, 'member_invited'), 0, 'a member');
  const mail = await smtp.waitFor((m) => m.to.includes('admin@example.com') && m.subject.includes('was invited'));
  assert.match(mail.subject, /\[svc\] new-.*@example\.com was invited as member/);
});

test('weekly digest: produced once per member and local week, from Monday 08:00 in their time zone', async () => {
  const tokyo = await addMember(t.app, t.demo.workspaceId, 'tokyo@example.com');
  await t.platform.patch('/v1/me/notifications', { quiet_hours: { start: '23:00', end: '06:00', timezone: 'Asia/Tokyo' } }, { token: tokyo.token });
  const weeklyOf = (userId: string) =>
    t.app.pool
      .query(`select subject_id from notifications where user_id = $1 and kind = 'weekly_digest' order by subject_id`, [userId])
      .then((r) => r.rows.map((x) => x.subject_id));
  const before = await weeklyOf(tokyo.userId);
  clock.set('2026-01-25T22:59:00Z'); // Monday 07:59 in Tokyo, Sunday in UTC
  await produceWeeklyDigests(t.app);
  assert.equal(await weeklyOf(tokyo.userId), before);
  clock.set('2026-01-25T23:00:00Z'); // Monday 08:00 in Tokyo
  await produceWeeklyDigests(t.app);
  await produceWeeklyDigests(t.app);
  assert.equal(await weeklyOf(tokyo.userId), [...before, 'week:2026-01-26'].sort());
  assert.ok(!(await weeklyOf(daily.userId)).includes('week:2026-01-26'), 'still last week in UTC');
  const mail = await smtp.waitFor((m) => m.to.includes('tokyo@example.com') && m.subject.includes('week of 2026-01-26'));
  assert.match(mail.text, /In the last 7 days: \d+ new issues/);
});

test.run();
