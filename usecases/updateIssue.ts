/**
 * Changing an issue (PATCH /v1/issues/{id}, closing it, supplying a review item's missing narrative):
 * the issue row is locked first (404 when absent), the rule of domain/issueUpdate.ts decides what
 * changes (409 on a status the workflow forbids), and sql/issues.ts stores the events in the caller's batch.
 */
import type { AppContext } from '../lib/context.ts';
import type { Queryable } from '../lib/db.ts';
import { issueUpdate, type IssuePatch } from '../domain/issueUpdate.ts';
import { enqueueNotifications } from '../jobs/queue/notification__route.ts';
import { withEventBatch, type Actor, type EventBatch } from '../sql/events.ts';
import type { IssueRow } from '../sql/issueProjection.ts';
import { findIssue, lockIssue, storeIssueUpdate } from '../sql/issues.ts';

export async function updateIssue(db: Queryable, events: EventBatch, actor: Actor, id: string, patch: IssuePatch): Promise<IssueRow> {
  const current = await lockIssue(db, events.workspaceId, id);
  const update = issueUpdate(current, patch, events.recordedAt);
  return update ? storeIssueUpdate(db, events, actor, current, update) : current;
}

/**
 * PATCH /v1/issues/{id} and POST /v1/issues/{id}/close, in their own transaction: an issue raised to
 * `critical` is routed to the members as an escalation, committed with the change.
 */
export async function changeIssue(app: AppContext, workspaceId: string, actor: Actor, id: string, patch: IssuePatch): Promise<IssueRow> {
  return withEventBatch(app.pool, workspaceId, async (client, events) => {
    const before = patch.severity === 'critical' ? await findIssue(client, workspaceId, id) : null;
    const row = await updateIssue(client, events, actor, id, patch);
    if (before && before.severity !== 'critical')
      await enqueueNotifications(client, { source: 'issues', workspace_id: workspaceId, created: [], escalated: [row.id] });
    return row;
  });
}
