/** The routing decision and its wall-clock arithmetic: pure, with fixed instants (no clock). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { afterQuietHours, inQuietHours, instantAt, nextDigestAt, weekOf } from '../../usecases/notifications/localTime.ts';
import { decide, type NotificationItem } from '../../usecases/notifications/routing.ts';
import { applyPreferences, defaultPreferences, type StoredPreferences } from '../../domain/notificationPreferences.ts';
import type { Recipient } from '../../sql/notificationPreferences.ts';

const at = (iso: string) => new Date(iso);
const iso = (d: Date | undefined) => d?.toISOString();
const NY = 'America/New_York';
const nightNY = { start: '22:00', end: '07:00', timezone: NY };

test('local instants: a normal day, a skipped time (spring forward), a doubled time (fall back)', () => {
  assert.is(iso(instantAt({ year: 2026, month: 1, day: 15 }, '08:00', 'Europe/Paris')), '2026-01-15T07:00:00.000Z');
  assert.is(iso(instantAt({ year: 2026, month: 7, day: 15 }, '08:00', 'Europe/Paris')), '2026-07-15T06:00:00.000Z');
  // 2026-03-08 02:30 does not exist in New York: the clock jumps from 02:00 EST to 03:00 EDT.
  assert.is(iso(instantAt({ year: 2026, month: 3, day: 8 }, '02:30', NY)), '2026-03-08T07:30:00.000Z');
  // 2026-11-01 01:30 happens twice in New York: the first (EDT) is taken.
  assert.is(iso(instantAt({ year: 2026, month: 11, day: 1 }, '01:30', NY)), '2026-11-01T05:30:00.000Z');
  assert.is(iso(instantAt({ year: 2026, month: 5, day: 1 }, '08:00', 'Asia/Kolkata')), '2026-05-01T02:30:00.000Z');
});

test('quiet hours across midnight: before, inside on both sides of midnight, at the end', () => {
  assert.is(inQuietHours(at('2026-01-15T02:59:00Z'), nightNY), false); // 21:59 EST
  assert.is(inQuietHours(at('2026-01-15T03:00:00Z'), nightNY), true); // 22:00 EST
  assert.is(inQuietHours(at('2026-01-15T06:00:00Z'), nightNY), true); // 01:00 EST next day
  assert.is(inQuietHours(at('2026-01-15T12:00:00Z'), nightNY), false); // 07:00 EST: the end is not quiet
  // Held until 07:00 local the next morning, from before midnight and from after it.
  assert.is(iso(afterQuietHours(at('2026-01-15T04:30:00Z'), nightNY)), '2026-01-15T12:00:00.000Z');
  assert.is(iso(afterQuietHours(at('2026-01-15T09:00:00Z'), nightNY)), '2026-01-15T12:00:00.000Z');
  assert.is(iso(afterQuietHours(at('2026-01-15T15:00:00Z'), nightNY)), '2026-01-15T15:00:00.000Z', 'outside quiet hours: at once');
  // A window inside one day.
  const lunch = { start: '12:00', end: '13:30', timezone: 'UTC' };
  assert.is(iso(afterQuietHours(at('2026-01-15T12:10:00Z'), lunch)), '2026-01-15T13:30:00.000Z');
  assert.is(iso(afterQuietHours(at('2026-01-15T11:59:00Z'), lunch)), '2026-01-15T11:59:00.000Z');
});

test('quiet hours across a DST change: the night the clocks move is an hour shorter or longer', () => {
  // 2026-03-07 23:30 EST; quiet hours end at 07:00 EDT on 2026-03-08 = 11:00Z (not 12:00Z).
  assert.is(iso(afterQuietHours(at('2026-03-08T04:30:00Z'), nightNY)), '2026-03-08T11:00:00.000Z');
  // 2026-10-31 23:30 EDT; quiet hours end at 07:00 EST on 2026-11-01 = 12:00Z.
  assert.is(iso(afterQuietHours(at('2026-11-01T03:30:00Z'), nightNY)), '2026-11-01T12:00:00.000Z');
  // Quiet hours ending inside the skipped hour (02:30) end when the clock jumps past it (03:30 EDT).
  const shortNight = { start: '23:00', end: '02:30', timezone: NY };
  assert.is(iso(afterQuietHours(at('2026-03-08T05:00:00Z'), shortNight)), '2026-03-08T07:30:00.000Z');
});

test('digest times: the next local 08:00, the next Monday 08:00, and the week a time belongs to', () => {
  assert.is(iso(nextDigestAt(at('2026-01-15T06:00:00Z'), 'daily', 'Europe/Paris')), '2026-01-15T07:00:00.000Z');
  assert.is(iso(nextDigestAt(at('2026-01-15T07:00:00Z'), 'daily', 'Europe/Paris')), '2026-01-16T07:00:00.000Z', 'strictly after');
  // 2026-01-15 is a Thursday; the next Monday is the 19th.
  assert.is(iso(nextDigestAt(at('2026-01-15T06:00:00Z'), 'weekly', 'Europe/Paris')), '2026-01-19T07:00:00.000Z');
  assert.is(iso(nextDigestAt(at('2026-01-19T06:59:00Z'), 'weekly', 'Europe/Paris')), '2026-01-19T07:00:00.000Z');
  assert.is(iso(nextDigestAt(at('2026-01-19T07:00:00Z'), 'weekly', 'Europe/Paris')), '2026-01-26T07:00:00.000Z');
  // The Sunday night of a Monday in Tokyo is already that Monday there.
  assert.equal(weekOf(at('2026-01-18T23:30:00Z'), 'Asia/Tokyo').monday, '2026-01-19');
  assert.equal(weekOf(at('2026-01-18T23:30:00Z'), 'UTC').monday, '2026-01-12');
  // Across the spring-forward weekend the digest is at 08:00 EDT.
  assert.is(iso(nextDigestAt(at('2026-03-07T14:00:00Z'), 'daily', NY)), '2026-03-08T12:00:00.000Z'); // 09:00 EST -> 08:00 EDT
  assert.is(iso(nextDigestAt(at('2026-03-08T13:00:00Z'), 'daily', NY)), '2026-03-09T12:00:00.000Z');
});

const recipient = (changes: Parameters<typeof applyPreferences>[1] = {}, timezone = 'UTC'): Recipient => ({
  user_id: 'u',
  email: 'u@example.com',
  role: 'member',
  preferences: applyPreferences(defaultPreferences, changes, 'merge') as StoredPreferences,
  timezone,
});
const issue = (severity: 'critical' | 'high' | 'medium' | 'low'): NotificationItem => ({
  kind: 'new_issue_ingested',
  subject_type: 'issue',
  subject_id: 'i',
  title: 't',
  body: 'b',
  link: null,
  severity,
});
const pattern = (risk: number): NotificationItem => ({
  kind: 'pattern_detected',
  subject_type: 'pattern',
  subject_id: 'p',
  title: 't',
  body: 'b',
  link: null,
  risk_score: risk,
});
const NOW = at('2026-01-15T10:00:00Z'); // a Thursday, 10:00 UTC

test('decisions: defaults (daily digest e-mail + in-app), severity and risk thresholds, switches', () => {
  assert.equal(decide(recipient(), issue('high'), NOW), { in_app: true, email: { due_at: at('2026-01-16T08:00:00Z'), digest: true }, chat: null });
  assert.is(decide(recipient(), issue('medium'), NOW), null, 'p2 lets critical and high through');
  assert.ok(decide(recipient({ min_severity_for_alert: 'p4' }), issue('low'), NOW));
  assert.is(decide(recipient({ min_severity_for_alert: 'p1' }), issue('high'), NOW), null);
  assert.is(decide(recipient({ notify_on_new_issue: false }), issue('critical'), NOW), null);
  assert.equal(decide(recipient(), pattern(70), NOW), { in_app: true, email: null, chat: null });
  assert.is(decide(recipient(), pattern(69), NOW), null);
  assert.ok(decide(recipient({ min_risk_score_for_alert: 0 }), pattern(0), NOW));
  assert.is(decide(recipient({ notify_on_pattern_detected: false }), pattern(100), NOW), null);
  const confirmed = { ...pattern(90), kind: 'pattern_confirmed' as const };
  assert.is(decide(recipient({ notify_on_pattern_detected: false }), confirmed, NOW), null);
  const prediction = { ...pattern(90), kind: 'high_confidence_prediction' as const };
  assert.is(decide(recipient({ notify_on_prediction: false }), prediction, NOW), null);
  const recommendation = { ...pattern(90), kind: 'recommendation_pushed' as const };
  assert.is(decide(recipient({ notify_on_recommendation: false }), recommendation, NOW), null);
  // Escalation has no switch; no channel at all means no notification.
  const escalated = { ...issue('critical'), kind: 'issue_escalated_critical' as const };
  assert.ok(decide(recipient({ notify_on_new_issue: false }), escalated, NOW));
  assert.is(decide(recipient({ events: { new_issue_ingested: { email: false, in_app: false } } }), issue('critical'), NOW), null);
});

test('decisions: digest frequency, chat needs a URL, quiet hours hold e-mail and chat but not in-app', () => {
  assert.equal(decide(recipient({ digest_frequency: 'realtime' }), issue('high'), NOW)!.email, { due_at: NOW, digest: false });
  assert.equal(decide(recipient({ digest_frequency: 'weekly' }), issue('high'), NOW)!.email, { due_at: at('2026-01-19T08:00:00Z'), digest: true });
  assert.is(decide(recipient({ digest_frequency: 'never' }), issue('high'), NOW)!.email, null);
  const digestKind: NotificationItem = { kind: 'weekly_digest', subject_type: 'week', subject_id: 'week:2026-01-12', title: 't', body: 'b', link: null };
  assert.equal(
    decide(recipient(), digestKind, NOW),
    { in_app: false, email: { due_at: NOW, digest: false }, chat: null },
    'the weekly digest is not batched again',
  );
  assert.is(decide(recipient({ digest_frequency: 'never' }), digestKind, NOW), null);
  const escalated = { ...issue('critical'), kind: 'issue_escalated_critical' as const };
  assert.is(decide(recipient(), escalated, NOW)!.chat, null, 'no chat_webhook_url: no chat');
  const withChat = recipient({ chat_webhook_url: 'https://chat.example.com/h', digest_frequency: 'realtime' });
  assert.equal(decide(withChat, escalated, NOW), { in_app: true, email: { due_at: NOW, digest: false }, chat: { due_at: NOW } });
  const quiet = recipient({
    chat_webhook_url: 'https://chat.example.com/h',
    digest_frequency: 'realtime',
    quiet_hours: { start: '09:00', end: '17:00', timezone: 'Europe/London' },
  });
  const held = at('2026-01-15T17:00:00Z');
  assert.equal(decide(quiet, escalated, NOW), { in_app: true, email: { due_at: held, digest: false }, chat: { due_at: held } });
  // A daily digest whose time falls in quiet hours waits for their end.
  const lateDigest = recipient({ quiet_hours: { start: '06:00', end: '09:15', timezone: 'UTC' } });
  assert.equal(decide(lateDigest, issue('high'), NOW)!.email, { due_at: at('2026-01-16T09:15:00Z'), digest: true });
  // The digest goes out at the member's local 08:00.
  assert.equal(decide(recipient({}, 'Asia/Tokyo'), issue('high'), NOW)!.email, { due_at: at('2026-01-15T23:00:00Z'), digest: true });
});

test.run();
