/**
 * The routing of one producer's notifications (jobs/tasks/notification__route.ts): producers enqueue
 * it on the transaction of their own write (`enqueueNotifications`), so a committed event always gets
 * its notifications.
 */
import { z } from 'zod';
import type { Queryable } from '../../lib/db.ts';
import { defineJob, enqueueJob } from '../runtime.ts';

const source = z.discriminatedUnion('source', [
  z.object({ source: z.literal('issues'), workspace_id: z.uuid(), created: z.array(z.uuid()), escalated: z.array(z.uuid()) }),
  z.object({ source: z.literal('engine_run'), workspace_id: z.uuid(), run_id: z.uuid() }),
  z.object({ source: z.literal('invitation'), workspace_id: z.uuid(), invitation_id: z.uuid() }),
]);
export type NotificationSource = z.infer<typeof source>;

export const notificationRoute = defineJob({
  name: 'notification__route',
  payload: source,
  maxAttempts: 8,
  returnsResult: true,
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
