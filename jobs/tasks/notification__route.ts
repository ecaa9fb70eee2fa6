/**
 * Routes the notifications of one producer's event to the workspace's members (usecases/notifications):
 * the issues an ingest or edit created or escalated to critical, an engine run's findings, an
 * invitation. Producers enqueue it on the transaction of their own write (`enqueueNotifications`),
 * so a committed event always gets its notifications, and a retry sends nothing twice (the
 * notifications' unique key).
 */
import { routeNotifications } from '../../usecases/notifications/deliver.ts';
import { engineRunItems, invitationItem, issueItems } from '../../usecases/notifications/subjects.ts';
import { defineTask } from '../runtime.ts';
import { notificationRoute } from '../queue/notification__route.ts';

export const notificationRouteTask = defineTask({
  ...notificationRoute,
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
