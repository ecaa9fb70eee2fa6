/**
 * Changing an issue (PATCH /v1/issues/{id}, closing it, supplying a review item's missing narrative):
 * the issue row is locked first (404 when absent), the rule of domain/issueUpdate.ts decides what
 * changes (409 on a status the workflow forbids), and sql/issues.ts stores the events in the caller's batch.
 */
import type { Queryable } from '../lib/db.ts';
import { issueUpdate, type IssuePatch } from '../domain/issueUpdate.ts';
import type { Actor, EventBatch } from '../sql/events.ts';
import type { IssueRow } from '../sql/issueProjection.ts';
import { lockIssue, storeIssueUpdate } from '../sql/issues.ts';

export async function updateIssue(db: Queryable, events: EventBatch, actor: Actor, id: string, patch: IssuePatch): Promise<IssueRow> {
  const current = await lockIssue(db, events.workspaceId, id);
  const update = issueUpdate(current, patch, events.recordedAt);
  return update ? storeIssueUpdate(db, events, actor, current, update) : current;
}
