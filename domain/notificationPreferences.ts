/**
 * Notification preferences of a member: the stored document, its defaults (the spec's table and
 * nine-kind matrix), PUT (replace) and PATCH (merge) validation and application, and the derived
 * `email_enabled` / `chat_enabled` (CONTRACT.md: any kind with `email`; any kind with `chat` and a
 * `chat_webhook_url`), computed on every read and never stored. Pure; stored by
 * sql/notificationPreferences.ts, changed by usecases/notificationPreferences.ts.
 */
import { z } from 'zod';

export const notificationKinds = [
  'high_confidence_prediction',
  'issue_escalated_critical',
  'member_invited',
  'new_issue_ingested',
  'new_prediction',
  'pattern_confirmed',
  'pattern_detected',
  'recommendation_pushed',
  'weekly_digest',
] as const;
export type NotificationKind = (typeof notificationKinds)[number];
export const channels = ['email', 'in_app', 'chat'] as const;
export type Channel = (typeof channels)[number];
export type ChannelSet = Record<Channel, boolean>;

const set = (email: boolean, in_app: boolean, chat: boolean): ChannelSet => ({ email, in_app, chat });
export const defaultEvents: Record<NotificationKind, ChannelSet> = {
  high_confidence_prediction: set(true, true, true),
  issue_escalated_critical: set(true, true, true),
  member_invited: set(true, true, false),
  new_issue_ingested: set(true, true, false),
  new_prediction: set(false, true, false),
  pattern_confirmed: set(false, true, false),
  pattern_detected: set(false, true, false),
  recommendation_pushed: set(false, true, false),
  weekly_digest: set(true, false, false),
};

export const digestFrequencies = ['realtime', 'daily', 'weekly', 'never'] as const;
export const alertSeverities = ['p1', 'p2', 'p3', 'p4'] as const;
export type AlertSeverity = (typeof alertSeverities)[number];

export interface QuietHours {
  start: string;
  end: string;
  timezone: string;
}

/** What is stored (everything but the ids, the timestamp and the two derived flags). */
export interface StoredPreferences {
  digest_frequency: (typeof digestFrequencies)[number];
  collab_enabled: boolean;
  pager_enabled: boolean;
  events: Record<NotificationKind, ChannelSet>;
  min_risk_score_for_alert: number;
  min_severity_for_alert: AlertSeverity;
  notify_on_new_issue: boolean;
  notify_on_pattern_detected: boolean;
  notify_on_prediction: boolean;
  notify_on_recommendation: boolean;
  notify_on_report_ready: boolean;
  quiet_hours: QuietHours | null;
  chat_webhook_url: string | null;
  collab_webhook_url: string | null;
}

export const defaultPreferences: StoredPreferences = {
  digest_frequency: 'daily',
  collab_enabled: false,
  pager_enabled: false,
  events: defaultEvents,
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
};

const HH_MM = /^([01]\d|2[0-3]):[0-5]\d$/;

/** An IANA zone name that this runtime knows (`Europe/Paris`, `UTC`); offsets like `+02:00` are not names. */
export function isTimeZoneName(value: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(value)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

const bool = z.boolean({ error: 'must be a boolean' });
const webhookUrl = z
  .string({ error: 'must be a URL or null' })
  .max(2048, 'must be at most 2048 characters')
  .refine((v) => {
    try {
      const url = new URL(v);
      return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
    } catch {
      return false;
    }
  }, 'must be an absolute http or https URL')
  .nullable();

const text = z.string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a string') });
const quietHoursSchema = z
  .strictObject(
    {
      start: text.regex(HH_MM, 'must be HH:MM (00:00 to 23:59)'),
      end: text.regex(HH_MM, 'must be HH:MM (00:00 to 23:59)'),
      timezone: text.refine(isTimeZoneName, 'must be an IANA time zone name, e.g. Europe/Paris'),
    },
    { error: (i) => (i.code === 'unrecognized_keys' ? 'has unknown fields' : 'must be an object {start, end, timezone} or null') },
  )
  .refine((q) => q.start !== q.end, { message: 'must differ from start', path: ['end'] })
  .nullable();

const channelSetSchema = z.strictObject(
  { email: bool.optional(), in_app: bool.optional(), chat: bool.optional() },
  {
    error: (i) => (i.code === 'unrecognized_keys' ? `has unknown fields; the channels are ${channels.join(', ')}` : 'must be an object {email, in_app, chat}'),
  },
);
const eventsSchema = z.strictObject(
  Object.fromEntries(notificationKinds.map((k) => [k, channelSetSchema.optional()])) as Record<NotificationKind, z.ZodOptional<typeof channelSetSchema>>,
  {
    error: (i) =>
      i.code === 'unrecognized_keys' ? `has unknown event kinds; the kinds are ${notificationKinds.join(', ')}` : 'must be an object keyed by event kind',
  },
);

/**
 * The request body of PUT and PATCH: every field optional. The read-only fields of the resource
 * (`user_id`, `updated_at`, `email_enabled`, `chat_enabled`, `chat_signing_secret`) are accepted and ignored, so that a
 * client can send back what it read; any other unknown field is refused.
 */
export const preferencesInputSchema = z.strictObject(
  {
    user_id: z.unknown().optional().describe('Read-only: accepted and ignored on input'),
    updated_at: z.unknown().optional().describe('Read-only: accepted and ignored on input'),
    email_enabled: z.unknown().optional().describe('Read-only: accepted and ignored on input'),
    chat_enabled: z.unknown().optional().describe('Read-only: accepted and ignored on input'),
    chat_signing_secret: z.unknown().optional().describe('Read-only: accepted and ignored on input'),
    digest_frequency: z.enum(digestFrequencies, { error: `must be one of ${digestFrequencies.join(', ')}` }).optional(),
    collab_enabled: bool.optional(),
    pager_enabled: bool.optional(),
    events: eventsSchema.optional(),
    min_risk_score_for_alert: z
      .number({ error: 'must be an integer from 0 to 100' })
      .int('must be an integer from 0 to 100')
      .min(0, 'must be an integer from 0 to 100')
      .max(100, 'must be an integer from 0 to 100')
      .optional(),
    min_severity_for_alert: z.enum(alertSeverities, { error: `must be one of ${alertSeverities.join(', ')}` }).optional(),
    notify_on_new_issue: bool.optional(),
    notify_on_pattern_detected: bool.optional(),
    notify_on_prediction: bool.optional(),
    notify_on_recommendation: bool.optional(),
    notify_on_report_ready: bool.optional(),
    quiet_hours: quietHoursSchema.optional(),
    chat_webhook_url: webhookUrl.optional(),
    collab_webhook_url: webhookUrl.optional(),
  },
  { error: (i) => (i.code === 'unrecognized_keys' ? 'has unknown fields' : 'must be a JSON object') },
);
export type PreferencesInput = z.infer<typeof preferencesInputSchema>;

const settable = Object.keys(defaultPreferences) as Array<keyof StoredPreferences>;

/**
 * PUT replaces: what the body leaves out takes its default (an event kind left out gets its row of
 * the default matrix; a channel left out of a kind's set is false, the ChannelSet default).
 * PATCH merges into `current`: event kinds and their channels one by one; `quiet_hours` as a whole.
 */
export function applyPreferences(current: StoredPreferences, input: PreferencesInput, mode: 'replace' | 'merge'): StoredPreferences {
  const base = mode === 'replace' ? defaultPreferences : current;
  const next = { ...base } as Record<string, unknown>;
  for (const key of settable) {
    if (key === 'events' || input[key] === undefined) continue;
    next[key] = input[key];
  }
  const events = { ...base.events };
  for (const kind of notificationKinds) {
    const given = input.events?.[kind];
    if (!given) continue;
    events[kind] =
      mode === 'replace'
        ? { email: given.email ?? false, in_app: given.in_app ?? false, chat: given.chat ?? false }
        : { ...events[kind], ...Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) };
  }
  next.events = events;
  return next as unknown as StoredPreferences;
}

export const emailEnabled = (p: StoredPreferences) => notificationKinds.some((k) => p.events[k].email);
export const chatEnabled = (p: StoredPreferences) => p.chat_webhook_url !== null && notificationKinds.some((k) => p.events[k].chat);

/** A stored document, completed with the defaults of fields added after it was saved. */
export function completedPreferences(stored: Partial<StoredPreferences>): StoredPreferences {
  return { ...defaultPreferences, ...stored, events: { ...defaultEvents, ...stored.events } };
}
