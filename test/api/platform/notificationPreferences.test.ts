import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestApp, demoToken, type TestApp } from '../../helpers/app.ts';
import { assertError, assertValidation } from '../../helpers/errors.ts';
import type { Client } from '../../helpers/http.ts';
import { serviceAccountToken } from '../../helpers/identities.ts';
import { addMember } from '../../helpers/members.ts';

let t: TestApp;
let owner: Client;

test.before(async () => {
  t = await startTestApp();
  owner = t.platform.as(await demoToken(t));
});
test.after(async () => t?.close());

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const defaultMatrix = {
  high_confidence_prediction: { email: true, in_app: true, chat: true },
  issue_escalated_critical: { email: true, in_app: true, chat: true },
  member_invited: { email: true, in_app: true, chat: false },
  new_issue_ingested: { email: true, in_app: true, chat: false },
  new_prediction: { email: false, in_app: true, chat: false },
  pattern_confirmed: { email: false, in_app: true, chat: false },
  pattern_detected: { email: false, in_app: true, chat: false },
  recommendation_pushed: { email: false, in_app: true, chat: false },
  weekly_digest: { email: true, in_app: false, chat: false },
};

test('GET answers the defaults field by field, the full matrix, user_id and updated_at, and saves nothing', async () => {
  const res = await owner.get('/v1/me/notifications');
  assert.is(res.status, 200, res.text);
  const { updated_at, ...rest } = res.body;
  assert.match(updated_at, ISO);
  assert.equal(rest, {
    user_id: t.demo.userId,
    digest_frequency: 'daily',
    email_enabled: true,
    chat_enabled: false,
    collab_enabled: false,
    pager_enabled: false,
    events: defaultMatrix,
    min_risk_score_for_alert: 70,
    min_severity_for_alert: 'p2',
    notify_on_new_issue: true,
    notify_on_pattern_detected: true,
    notify_on_prediction: true,
    notify_on_recommendation: true,
    notify_on_report_ready: true,
    quiet_hours: null,
    chat_webhook_url: null,
    collab_webhook_url: null,
  });
  const stored = await t.app.pool.query('select count(*)::int as n from notification_preferences');
  assert.is(stored.rows[0].n, 0);
  assert.is((await owner.get('/v1/me/notifications')).body.updated_at, updated_at, 'defaults keep their timestamp');
});

test('PATCH merges per kind and channel and stores; PUT replaces, fields left out take their defaults', async () => {
  const member = t.platform.as((await addMember(t.app, t.demo.workspaceId, 'prefs@example.com')).token);
  const patched = await member.patch('/v1/me/notifications', {
    digest_frequency: 'realtime',
    events: { new_prediction: { email: true }, weekly_digest: { email: false } },
    quiet_hours: { start: '22:00', end: '07:00', timezone: 'Europe/Paris' },
    min_risk_score_for_alert: 0,
  });
  assert.is(patched.status, 200, patched.text);
  assert.is(patched.body.digest_frequency, 'realtime');
  assert.equal(patched.body.events.new_prediction, { email: true, in_app: true, chat: false });
  assert.equal(patched.body.events.weekly_digest, { email: false, in_app: false, chat: false });
  assert.equal(patched.body.events.pattern_detected, defaultMatrix.pattern_detected);
  assert.equal(patched.body.quiet_hours, { start: '22:00', end: '07:00', timezone: 'Europe/Paris' });
  assert.is(patched.body.min_risk_score_for_alert, 0);
  assert.equal(await member.get('/v1/me/notifications').then((r) => r.body), patched.body);

  const again = await member.patch('/v1/me/notifications', { min_severity_for_alert: 'p4' });
  assert.is(again.body.digest_frequency, 'realtime', 'a merge keeps what it does not name');
  assert.is(again.body.min_severity_for_alert, 'p4');
  assert.ok(new Date(again.body.updated_at) >= new Date(patched.body.updated_at));

  const replaced = await member.put('/v1/me/notifications', { events: { new_prediction: { chat: true } }, chat_webhook_url: 'https://chat.example.com/hook' });
  assert.is(replaced.status, 200, replaced.text);
  assert.is(replaced.body.digest_frequency, 'daily');
  assert.is(replaced.body.quiet_hours, null);
  assert.is(replaced.body.min_severity_for_alert, 'p2');
  assert.equal(replaced.body.events.new_prediction, { email: false, in_app: false, chat: true }, 'a channel left out of a kind is false');
  assert.equal(replaced.body.events.weekly_digest, defaultMatrix.weekly_digest, 'a kind left out takes its default row');
  assert.is(replaced.body.chat_enabled, true);
  assert.match(replaced.body.chat_signing_secret, /^whsec_/);

  // The owner's preferences are their own.
  assert.is((await owner.get('/v1/me/notifications')).body.digest_frequency, 'daily');
});

test('email_enabled and chat_enabled are derived from the matrix on every read', async () => {
  const member = t.platform.as((await addMember(t.app, t.demo.workspaceId, 'derived@example.com')).token);
  const noEmail = Object.fromEntries(Object.keys(defaultMatrix).map((k) => [k, { email: false, in_app: true, chat: true }]));
  let res = await member.put('/v1/me/notifications', { events: noEmail });
  assert.is(res.body.email_enabled, false);
  assert.is(res.body.chat_enabled, false, 'chat needs a chat_webhook_url');
  res = await member.patch('/v1/me/notifications', { chat_webhook_url: 'https://chat.example.com/x' });
  assert.is(res.body.chat_enabled, true);
  res = await member.patch('/v1/me/notifications', { events: { member_invited: { email: true } } });
  assert.is(res.body.email_enabled, true);
  // Sending the derived fields back changes nothing.
  res = await member.put('/v1/me/notifications', { ...res.body, email_enabled: false, chat_enabled: false });
  assert.is(res.status, 200, res.text);
  assert.is(res.body.email_enabled, true);
  assert.is(res.body.chat_enabled, true);
});

test('validation: every field, with envelope details per field', async () => {
  assertValidation(await owner.patch('/v1/me/notifications', { quiet_hours: { start: '7:00', end: '24:00', timezone: 'Mars/Olympus' } }), {
    'quiet_hours.start': 'must be HH:MM (00:00 to 23:59)',
    'quiet_hours.end': 'must be HH:MM (00:00 to 23:59)',
    'quiet_hours.timezone': 'must be an IANA time zone name, e.g. Europe/Paris',
  });
  assertValidation(await owner.patch('/v1/me/notifications', { quiet_hours: { start: '22:00', end: '22:00', timezone: 'UTC' } }), {
    'quiet_hours.end': 'must differ from start',
  });
  assertValidation(await owner.patch('/v1/me/notifications', { quiet_hours: { start: '22:00', end: '07:00', timezone: '+02:00' } }), {
    'quiet_hours.timezone': 'must be an IANA time zone name, e.g. Europe/Paris',
  });
  assertValidation(await owner.patch('/v1/me/notifications', { quiet_hours: { start: '22:00' } }), {
    'quiet_hours.end': 'is required',
    'quiet_hours.timezone': 'is required',
  });
  assertValidation(await owner.put('/v1/me/notifications', { min_risk_score_for_alert: 101, min_severity_for_alert: 'p5', digest_frequency: 'hourly' }), {
    min_risk_score_for_alert: 'must be an integer from 0 to 100',
    min_severity_for_alert: 'must be one of p1, p2, p3, p4',
    digest_frequency: 'must be one of realtime, daily, weekly, never',
  });
  assertValidation(await owner.put('/v1/me/notifications', { min_risk_score_for_alert: 50.5 }), {
    min_risk_score_for_alert: 'must be an integer from 0 to 100',
  });
  assertValidation(await owner.patch('/v1/me/notifications', { chat_webhook_url: 'ftp://x.example.com', collab_webhook_url: 'not a url' }), {
    chat_webhook_url: 'must be an absolute http or https URL',
    collab_webhook_url: 'must be an absolute http or https URL',
  });
  assertValidation(await owner.patch('/v1/me/notifications', { events: { new_issue_ingested: { email: 'yes', sms: true } } }), {
    'events.new_issue_ingested': 'has unknown fields; the channels are email, in_app, chat',
    'events.new_issue_ingested.email': 'must be a boolean',
  });
  assertValidation(await owner.patch('/v1/me/notifications', { events: { pager_alarm: { email: true } } }), {
    events: `has unknown event kinds; the kinds are ${Object.keys(defaultMatrix).join(', ')}`,
  });
  assertValidation(await owner.patch('/v1/me/notifications', { notify_on_new_issue: 'true', colour: 'blue' }), {
    body: 'has unknown fields',
    notify_on_new_issue: 'must be a boolean',
  });
  assertValidation(await owner.put('/v1/me/notifications', []), { body: 'must be a JSON object' });
  // Nothing was stored by the refused requests.
  assert.is((await owner.get('/v1/me/notifications')).body.digest_frequency, 'daily');
});

test('webhook URLs go through the outbound guard when stored (link-local and metadata refused)', async () => {
  const res = await owner.patch('/v1/me/notifications', {
    chat_webhook_url: 'http://169.254.169.254/latest/meta-data',
    collab_webhook_url: 'http://10.0.0.8/hook',
  });
  assert.is(res.status, 400, res.text);
  assert.equal(Object.keys(res.body.error.details).sort(), ['chat_webhook_url', 'collab_webhook_url']);
  assert.match(res.body.error.details.chat_webhook_url, /^is refused: /);
  assert.is((await owner.get('/v1/me/notifications')).body.chat_webhook_url, null);
});

test('non-user tokens have no preferences or inbox (404); without the scope 403; no token 401', async () => {
  const sa = await serviceAccountToken(owner, ['notifications:read', 'notifications:write']);
  assertError(await t.platform.get('/v1/me/notifications', { token: sa }), 404, 'not_found');
  assertError(await t.platform.get('/v1/me/notifications/unread-count', { token: sa }), 404, 'not_found');
  assertError(await t.platform.patch('/v1/me/notifications', { digest_frequency: 'never' }, { token: sa }), 404, 'not_found');
  const noScope = await serviceAccountToken(owner, ['issues:read']);
  assertError(await t.platform.get('/v1/me/notifications/inbox', { token: noScope }), 403, 'forbidden');
  assertError(await t.platform.get('/v1/me/notifications'), 401, 'unauthorized');
});

test.run();
