/** Events for the outside world (issue.ingested, issue.batch_ingested, …); webhooks deliver them. */
import type { Queryable } from '../lib/db.ts';

export async function recordOutboundEvent(db: Queryable, workspaceId: string, eventType: string, payload: Record<string, unknown>): Promise<{ id: string }> {
  const { rows } = await db.query<{ id: string }>(
    'insert into outbound_events (workspace_id, event_type, payload) values ($1, $2, $3) returning id',
    [workspaceId, eventType, JSON.stringify(payload)],
  );
  return rows[0];
}
