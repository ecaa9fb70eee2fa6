/**
 * The caller's notification preferences (GET; PUT replaces, PATCH merges: both answer the stored
 * preferences), the in-app inbox (newest first), marking read, and the unread count (one row read by
 * primary key: cheap enough to be polled every 30 s by every user). Users only: a service account
 * or API key has no preferences or inbox (404 not_found).
 */
import { z } from 'zod';
import { AppError } from '../../../lib/errors.ts';
import { chatSigningSecret } from '../../../usecases/notifications/chat.ts';
import type { KeyRing } from '../../../lib/keyRing.ts';
import {
  alertSeverities,
  channels,
  chatEnabled,
  digestFrequencies,
  emailEnabled,
  notificationKinds,
  preferencesInputSchema,
} from '../../../domain/notificationPreferences.ts';
import { findPreferences, type MemberPreferences } from '../../../sql/notificationPreferences.ts';
import { inboxList, unreadCount, type NotificationRow } from '../../../sql/notifications.ts';
import { markNotificationsRead } from '../../../usecases/notifications/markRead.ts';
import { changePreferences, notAMember } from '../../../usecases/notifications/preferences.ts';
import { queryBoolean, reply } from '../../http/routes.ts';
import { listQuery, listResponse, paginate } from '../pagination.ts';
import type { Principal } from '../principal.ts';
import { platformRoute } from '../route.ts';

const channelSetSchema = z.object(Object.fromEntries(channels.map((c) => [c, z.boolean()])) as Record<(typeof channels)[number], z.ZodBoolean>);
const preferencesSchema = z.object({
  user_id: z.string(),
  updated_at: z.string(),
  digest_frequency: z.enum(digestFrequencies),
  email_enabled: z.boolean().describe('Derived on every read: true when any event kind has email'),
  chat_enabled: z.boolean().describe('Derived on every read: true when any event kind has chat and chat_webhook_url is set'),
  collab_enabled: z.boolean(),
  pager_enabled: z.boolean(),
  events: z.object(
    Object.fromEntries(notificationKinds.map((k) => [k, channelSetSchema])) as Record<(typeof notificationKinds)[number], typeof channelSetSchema>,
  ),
  min_risk_score_for_alert: z.number().int().min(0).max(100),
  min_severity_for_alert: z.enum(alertSeverities),
  notify_on_new_issue: z.boolean(),
  notify_on_pattern_detected: z.boolean(),
  notify_on_prediction: z.boolean(),
  notify_on_recommendation: z.boolean(),
  notify_on_report_ready: z.boolean(),
  quiet_hours: z.object({ start: z.string(), end: z.string(), timezone: z.string() }).nullable(),
  chat_webhook_url: z.string().nullable(),
  collab_webhook_url: z.string().nullable(),
  chat_signing_secret: z
    .string()
    .optional()
    .describe('Present once chat_webhook_url is set: the secret that signs chat POSTs to it (CONTRACT.md outbound headers)'),
});

const inboxItemSchema = z.object({
  id: z.string(),
  kind: z.enum(notificationKinds),
  title: z.string(),
  body: z.string(),
  link: z.string().nullable(),
  subject: z.object({ type: z.string(), id: z.string() }),
  read: z.boolean(),
  read_at: z.string().nullable(),
  created_at: z.string(),
});

const readBodySchema = z.union(
  [
    z.strictObject({
      ids: z
        .array(z.uuid({ error: 'must be a notification id' }), { error: 'must be an array of notification ids' })
        .min(1, 'must not be empty')
        .max(500, 'must hold at most 500 ids'),
    }),
    z.strictObject({ all: z.literal(true, { error: 'must be true' }) }),
  ],
  { error: 'must be {ids: [...]} or {all: true}' },
);

function userOf(principal: Principal): string {
  if (!principal.userId) throw new AppError('not_found', 'Notifications belong to users; this token has no preferences or inbox');
  return principal.userId;
}

function present(keys: KeyRing, workspaceId: string, member: MemberPreferences): z.infer<typeof preferencesSchema> {
  const p = member.preferences;
  const out: z.infer<typeof preferencesSchema> = {
    user_id: member.user_id,
    updated_at: member.updated_at.toISOString(),
    digest_frequency: p.digest_frequency,
    email_enabled: emailEnabled(p),
    chat_enabled: chatEnabled(p),
    collab_enabled: p.collab_enabled,
    pager_enabled: p.pager_enabled,
    events: p.events,
    min_risk_score_for_alert: p.min_risk_score_for_alert,
    min_severity_for_alert: p.min_severity_for_alert,
    notify_on_new_issue: p.notify_on_new_issue,
    notify_on_pattern_detected: p.notify_on_pattern_detected,
    notify_on_prediction: p.notify_on_prediction,
    notify_on_recommendation: p.notify_on_recommendation,
    notify_on_report_ready: p.notify_on_report_ready,
    quiet_hours: p.quiet_hours,
    chat_webhook_url: p.chat_webhook_url,
    collab_webhook_url: p.collab_webhook_url,
  };
  if (p.chat_webhook_url) out.chat_signing_secret = chatSigningSecret(keys, workspaceId, member.user_id);
  return out;
}

function writeRoute(method: 'put' | 'patch') {
  return platformRoute({
    method,
    path: '/v1/me/notifications',
    operationId: method === 'put' ? 'replaceNotificationPreferences' : 'updateNotificationPreferences',
    summary: method === 'put' ? 'Replace your notification preferences (fields left out take their defaults)' : 'Change some of your notification preferences',
    description:
      method === 'put'
        ? 'Every field is optional and a field left out takes its default; an event kind left out gets its default row of the matrix, a channel left out of a kind is false. ' +
          'Read-only fields (user_id, updated_at, email_enabled, chat_enabled, chat_signing_secret) are accepted and ignored.'
        : 'Merges into the stored preferences: event kinds and their channels one by one, quiet_hours as a whole (null removes them).',
    tags: ['notifications'],
    scope: 'notifications:write',
    body: preferencesInputSchema,
    responses: { 200: { description: 'The stored preferences', schema: preferencesSchema } },
    handler: async ({ body, principal, app }) =>
      reply.ok(
        present(
          app.secrets.chatSigningKey,
          principal.workspaceId,
          await changePreferences(app, principal.workspaceId, userOf(principal), body, method === 'put' ? 'replace' : 'merge'),
        ),
      ),
  });
}

export const notificationRoutes = [
  platformRoute({
    method: 'get',
    path: '/v1/me/notifications',
    operationId: 'getNotificationPreferences',
    summary: 'Your notification preferences (the defaults until you save; reading never saves)',
    tags: ['notifications'],
    scope: 'notifications:read',
    responses: { 200: { description: 'The preferences', schema: preferencesSchema } },
    handler: async ({ principal, app }) => {
      const member = await findPreferences(app.pool, principal.workspaceId, userOf(principal));
      if (!member) throw notAMember();
      return reply.ok(present(app.secrets.chatSigningKey, principal.workspaceId, member));
    },
  }),
  writeRoute('put'),
  writeRoute('patch'),
  platformRoute({
    method: 'get',
    path: '/v1/me/notifications/unread-count',
    operationId: 'getUnreadNotificationCount',
    summary: 'How many in-app notifications you have not read (poll every 30 seconds)',
    tags: ['notifications'],
    scope: 'notifications:read',
    responses: { 200: { description: 'The count', schema: z.object({ count: z.number().int() }) } },
    handler: async ({ principal, app }) => reply.ok({ count: await unreadCount(app.pool, principal.workspaceId, userOf(principal)) }),
  }),
  platformRoute({
    method: 'get',
    path: '/v1/me/notifications/inbox',
    operationId: 'listInAppNotifications',
    summary: 'Your in-app notifications, newest first',
    tags: ['notifications'],
    scope: 'notifications:read',
    query: listQuery({ unread: queryBoolean.optional().describe('true: only unread; false: only read') }, ['created_at'], '-created_at'),
    responses: { 200: { description: 'A page of notifications', schema: listResponse(inboxItemSchema) } },
    handler: async ({ query, principal, app }) => {
      return reply.ok(
        await paginate(app.pool, inboxList(principal.workspaceId, userOf(principal), query), { query, cursorKey: app.secrets.cursorKey }, (row) => {
          const n = row as unknown as NotificationRow;
          return {
            id: n.id,
            kind: n.kind as (typeof notificationKinds)[number],
            title: n.title,
            body: n.body,
            link: n.link,
            subject: { type: n.subject_type, id: n.subject_id },
            read: n.read_at !== null,
            read_at: n.read_at?.toISOString() ?? null,
            created_at: n.created_at.toISOString(),
          };
        }),
      );
    },
  }),
  platformRoute({
    method: 'post',
    path: '/v1/me/notifications/inbox/read',
    operationId: 'markNotificationsRead',
    summary: 'Mark in-app notifications read: {ids: [...]} or {all: true}',
    description: 'Ids that are not yours, unknown or already read change nothing. Answers how many changed and the new unread count.',
    tags: ['notifications'],
    scope: 'notifications:write',
    body: readBodySchema,
    responses: { 200: { description: 'Marked', schema: z.object({ marked: z.number().int(), unread_count: z.number().int() }) } },
    handler: async ({ body, principal, app }) =>
      reply.ok(await markNotificationsRead(app, principal.workspaceId, userOf(principal), 'all' in body ? 'all' : body.ids)),
  }),
];
