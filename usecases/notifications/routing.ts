/**
 * The routing decision for one member and one notification: which channels, and when. Pure: the
 * member's preferences, the item and "now" in, the decision out.
 *
 * - The kind's `notify_on_*` switch must be on (new_issue_ingested: notify_on_new_issue;
 *   pattern_detected and pattern_confirmed: notify_on_pattern_detected; new_prediction and
 *   high_confidence_prediction: notify_on_prediction; recommendation_pushed:
 *   notify_on_recommendation). issue_escalated_critical, member_invited and weekly_digest have none.
 * - Issue kinds need severity at least `min_severity_for_alert` (p1 critical … p4 low); pattern,
 *   prediction and recommendation kinds need the pattern's risk score at least `min_risk_score_for_alert`.
 * - The channels are the kind's ChannelSet; chat also needs `chat_webhook_url`.
 * - In-app is stored at once. E-mail: `realtime` sends at once, `daily` / `weekly` collect into the
 *   digest at the member's local 08:00 (Mondays for weekly), `never` sends no e-mail; the weekly
 *   digest is a digest itself and goes out when produced. Chat goes at once.
 * - Quiet hours (in their own time zone) hold e-mail and chat until they end, digests included.
 */
import type { AlertSeverity, NotificationKind, StoredPreferences } from '../../domain/notificationPreferences.ts';
import type { Recipient } from '../../sql/notificationPreferences.ts';
import type { Severity } from '../../domain/severity.ts';
import { afterQuietHours, nextDigestAt } from './localTime.ts';

export interface NotificationItem {
  kind: NotificationKind;
  subject_type: string;
  subject_id: string;
  title: string;
  body: string;
  link: string | null;
  /** Issue kinds. */
  severity?: Severity;
  /** Pattern, prediction and recommendation kinds: the pattern's risk score. */
  risk_score?: number;
}

export interface Decision {
  in_app: boolean;
  email: { due_at: Date; digest: boolean } | null;
  chat: { due_at: Date } | null;
}

const switchOf: Partial<Record<NotificationKind, keyof StoredPreferences>> = {
  new_issue_ingested: 'notify_on_new_issue',
  pattern_detected: 'notify_on_pattern_detected',
  pattern_confirmed: 'notify_on_pattern_detected',
  new_prediction: 'notify_on_prediction',
  high_confidence_prediction: 'notify_on_prediction',
  recommendation_pushed: 'notify_on_recommendation',
};

const severityRank: Record<Severity, number> = { critical: 1, high: 2, medium: 3, low: 4 };
const alertRank: Record<AlertSeverity, number> = { p1: 1, p2: 2, p3: 3, p4: 4 };

/** Whether the item passes the member's switches and thresholds at all. */
export function wanted(p: StoredPreferences, item: NotificationItem): boolean {
  const toggle = switchOf[item.kind];
  if (toggle && p[toggle] !== true) return false;
  if (item.severity !== undefined && severityRank[item.severity] > alertRank[p.min_severity_for_alert]) return false;
  if (item.risk_score !== undefined && item.risk_score < p.min_risk_score_for_alert) return false;
  return true;
}

/** The member's decision for the item, or null when nothing at all is sent. */
export function decide(recipient: Recipient, item: NotificationItem, now: Date): Decision | null {
  const p = recipient.preferences;
  if (!wanted(p, item)) return null;
  const set = p.events[item.kind];
  let email: Decision['email'] = null;
  if (set.email && p.digest_frequency !== 'never') {
    if (p.digest_frequency === 'realtime' || item.kind === 'weekly_digest') email = { due_at: afterQuietHours(now, p.quiet_hours), digest: false };
    else email = { due_at: afterQuietHours(nextDigestAt(now, p.digest_frequency, recipient.timezone), p.quiet_hours), digest: true };
  }
  const chat = set.chat && p.chat_webhook_url ? { due_at: afterQuietHours(now, p.quiet_hours) } : null;
  if (!set.in_app && !email && !chat) return null;
  return { in_app: set.in_app, email, chat };
}
