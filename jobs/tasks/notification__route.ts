/**
 * Routes the notifications of one producer's event to the workspace's members (jobs/notifications):
 * the issues an ingest or edit created or escalated to critical, an engine run's findings, an
 * invitation. Producers enqueue it on the transaction of their own write (`enqueueNotifications`),
 * so a committed event always gets its notifications, and a retry sends nothing twice (the
 * notifications' unique key).
 */
import { z } from 'zod';
import type { Queryable } from '../../lib/db.ts';
import { routeNotifications } from '../notifications/deliver.ts';
import { engineRunItems, invitationItem, issueItems } from '../notifications/subjects.ts';
import { defineTask, enqueueJob } from '../runtime.ts';

const source = z.discriminatedUnion('source', [
  z.object({ source: z.literal('issues'), workspace_id: z.uuid(), created: z.array(z.uuid()), escalated: z.array(z.uuid()) }),
  z.object({ source: z.literal('engine_run'), workspace_id: z.uuid(), run_id: z.uuid() }),
  z.object({ source: z.literal('invitation'), workspace_id: z.uuid(), invitation_id: z.uuid() }),
]);
export type NotificationSource = z.infer<typeof source>;

export const notificationRoute = defineTask({
  name: 'notification__route',
  payload: source,
  maxAttempts: 8,
  async run(payload, job) {
    const { app } = job;
    const workspaceId = payload.workspace_id;
    switch (payload.source) {
      case 'issues':
        return routeNotifications(app, workspaceId, await issueItems(app, app.pool, workspaceId, payload.created, payload.escalated));
      case 'engine_run':
        return routeNotifications(app, workspaceId, await engineRunItems(app, app.pool, workspaceId, payload.run_id));
      case 'invitation': {
        const found = await invitationItem(app, app.pool, workspaceId, payload.invitation_id);
        if (!found) return { notifications: 0, deliveries: 0 };
        // Those who manage membership hear of it, except the inviter and the invited person.
        return routeNotifications(app, workspaceId, [found.item], {
          roles: ['owner', 'admin'],
          excludeUserIds: found.invitedBy ? [found.invitedBy] : [],
          excludeEmails: [found.email],
        });
      }
    }
  },
});

/** The ingest results that notify: created issues (new_issue_ingested), re-ingests that made one critical. */
export function notifiable(results: Array<{ issue_id: string; created: boolean; escalated: boolean }>): { created: string[]; escalated: string[] } {
  return { created: results.filter((r) => r.created).map((r) => r.issue_id), escalated: results.filter((r) => r.escalated).map((r) => r.issue_id) };
}

/** Enqueues the routing of a producer's notifications on the producer's transaction. */
export async function enqueueNotifications(db: Queryable, payload: NotificationSource): Promise<void> {
  if (payload.source === 'issues' && !payload.created.length && !payload.escalated.length) return;
  await enqueueJob(db, notificationRoute, payload, { workspaceId: payload.workspace_id });
}
