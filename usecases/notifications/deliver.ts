/**
 * Routing notifications to members and handing what is due to the channels, in one transaction:
 * the notification rows (unique per member, kind and subject: a retry inserts nothing and so sends
 * nothing), their deliveries, and for what is due now the outbox e-mail with its `mail__send` job
 * or the `notification__chat` job. What is not due yet (quiet hours, digests) waits in
 * `notification_deliveries` for the `notification__dispatch` cron task.
 */
import type { AppContext } from '../../lib/context.ts';
import { withTransactionRetry, type Queryable } from '../../lib/db.ts';
import { workspaceRecipients, type Recipient } from '../../sql/notificationPreferences.ts';
import {
  insertDeliveries,
  insertNotifications,
  lockDueDeliveries,
  markDeliveries,
  type DueDelivery,
  type NewDelivery,
  type NotificationRow,
} from '../../sql/notifications.ts';
import { enqueueJob } from '../../jobs/runtime.ts';
import { queueMail } from '../../jobs/queue/mail__send.ts';
import { notificationChat } from '../../jobs/queue/notification__chat.ts';
import { digestMail, notificationMail } from './emails.ts';
import { decide, type Decision, type NotificationItem } from './routing.ts';

export interface RecipientFilter {
  /** Only these members. */
  userIds?: string[];
  /** Only members with one of these roles. */
  roles?: string[];
  /** Never these users (the member who caused the event). */
  excludeUserIds?: string[];
  /** Never these addresses (the invited person, when already a member). */
  excludeEmails?: string[];
}

function selected(recipients: Recipient[], filter: RecipientFilter): Recipient[] {
  const excludedEmails = new Set((filter.excludeEmails ?? []).map((e) => e.toLowerCase()));
  return recipients.filter(
    (r) =>
      (!filter.userIds || filter.userIds.includes(r.user_id)) &&
      (!filter.roles || filter.roles.includes(r.role)) &&
      !filter.excludeUserIds?.includes(r.user_id) &&
      !excludedEmails.has(r.email.toLowerCase()),
  );
}

const keyOf = (userId: string, kind: string, subjectId: string) => `${userId}\u0000${kind}\u0000${subjectId}`;

/** Routes the items to every (selected) member of the workspace; returns how many notifications were new. */
export async function routeNotifications(
  app: AppContext,
  workspaceId: string,
  items: NotificationItem[],
  filter: RecipientFilter = {},
): Promise<{ notifications: number; deliveries: number }> {
  if (!items.length) return { notifications: 0, deliveries: 0 };
  const now = app.clock.now();
  return withTransactionRetry(app.pool, async (client) => {
    const recipients = selected(await workspaceRecipients(client, workspaceId), filter);
    const decisions = new Map<string, Decision>();
    const rows = [];
    for (const recipient of recipients) {
      for (const item of items) {
        const decision = decide(recipient, item, now);
        if (!decision) continue;
        decisions.set(keyOf(recipient.user_id, item.kind, item.subject_id), decision);
        rows.push({
          user_id: recipient.user_id,
          kind: item.kind,
          subject_type: item.subject_type,
          subject_id: item.subject_id,
          title: item.title,
          body: item.body,
          link: item.link,
          in_app: decision.in_app,
        });
      }
    }
    const inserted = await insertNotifications(client, workspaceId, now, rows);
    const deliveries: NewDelivery[] = [];
    for (const n of inserted) {
      const decision = decisions.get(keyOf(n.user_id, n.kind, n.subject_id))!;
      if (decision.email)
        deliveries.push({ notification_id: n.id, user_id: n.user_id, channel: 'email', digest: decision.email.digest, due_at: decision.email.due_at });
      if (decision.chat) deliveries.push({ notification_id: n.id, user_id: n.user_id, channel: 'chat', digest: false, due_at: decision.chat.due_at });
    }
    const written = await insertDeliveries(client, workspaceId, deliveries);
    const byNotification = new Map(inserted.map((n) => [n.id, n]));
    const emails = new Map(recipients.map((r) => [r.user_id, r.email]));
    const idOf = new Map(written.map((w) => [`${w.notification_id}:${w.channel}`, w.id]));
    const dueNow = deliveries
      .filter((d) => idOf.has(`${d.notification_id}:${d.channel}`))
      .map((d) => ({ ...d, id: idOf.get(`${d.notification_id}:${d.channel}`)! }))
      .filter((d) => d.due_at.getTime() <= now.getTime() && !d.digest)
      .map((d): DueDelivery => {
        const notification = byNotification.get(d.notification_id)!;
        return {
          id: d.id,
          workspace_id: workspaceId,
          user_id: d.user_id,
          email: emails.get(d.user_id)!,
          channel: d.channel,
          digest: false,
          due_at: d.due_at,
          notification,
        };
      });
    await handOver(client, dueNow);
    return { notifications: inserted.length, deliveries: written.length };
  });
}

/**
 * Hands due deliveries to their channel on the caller's transaction: one e-mail per notification,
 * one digest e-mail per member for digest deliveries, one chat job per chat delivery.
 */
async function handOver(db: Queryable, due: DueDelivery[]): Promise<void> {
  const digests = new Map<string, DueDelivery[]>();
  const sent: string[] = [];
  const queued: string[] = [];
  for (const d of due) {
    if (d.channel === 'chat') {
      await enqueueJob(db, notificationChat, { delivery_id: d.id }, { workspaceId: d.workspace_id });
      queued.push(d.id);
    } else if (d.digest) {
      const key = `${d.workspace_id}:${d.user_id}`;
      digests.set(key, [...(digests.get(key) ?? []), d]);
    } else {
      await queueMail(db, { to: d.email, ...notificationMail(d.notification), workspaceId: d.workspace_id });
      sent.push(d.id);
    }
  }
  for (const group of digests.values()) {
    const notifications: NotificationRow[] = group.map((d) => d.notification).sort((a, b) => a.created_at.getTime() - b.created_at.getTime());
    await queueMail(db, { to: group[0].email, ...digestMail(notifications), workspaceId: group[0].workspace_id });
    sent.push(...group.map((d) => d.id));
  }
  await markDeliveries(db, sent, 'sent');
  await markDeliveries(db, queued, 'queued');
}

const DISPATCH_BATCH = 500;

/** Sends every delivery due at the clock's now (held by quiet hours, or a digest whose time came). */
export async function dispatchDueDeliveries(app: AppContext): Promise<number> {
  const now = app.clock.now();
  let total = 0;
  for (;;) {
    const count = await withTransactionRetry(app.pool, async (client) => {
      const due = await lockDueDeliveries(client, now, DISPATCH_BATCH);
      await handOver(client, due);
      return due.length;
    });
    total += count;
    if (count < DISPATCH_BATCH) return total;
  }
}
