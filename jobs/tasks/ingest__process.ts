/**
 * Post-ingest work of one ingest request: records the outbound event (`issue.ingested` for a single
 * record, `issue.batch_ingested` for a batch) that webhooks deliver and, in the same transaction,
 * enqueues the routing of its notifications (new issues, re-ingests that became critical). Exactly one
 * event per job run: the event row carries the run's id under a unique index, so a retry finds the one
 * recorded and enqueues nothing again.
 *
 * The ingest request enqueues this one job only (the issue ids travel once, not again in a routing job
 * of their own); `notify` says which of `issue_ids` were re-ingested rather than created and which
 * re-ingests escalated to critical. Jobs enqueued before `notify` existed had their routing job
 * enqueued by the request itself and route nothing here.
 */
import { withTransaction } from '../../lib/db.ts';
import { recordJobOutboundEvent } from '../../sql/outboundEvents.ts';
import { defineTask } from '../runtime.ts';
import { enqueueNotifications } from '../queue/notification__route.ts';
import { ingestProcess } from '../queue/ingest__process.ts';

export const ingestProcessTask = defineTask({
  ...ingestProcess,
  async run(payload, job) {
    const eventType = payload.mode === 'event' ? 'issue.ingested' : 'issue.batch_ingested';
    const body =
      payload.mode === 'event'
        ? { issue_id: payload.issue_ids[0] ?? null, created: payload.created === 1 }
        : { issue_ids: payload.issue_ids, accepted: payload.issue_ids.length, created: payload.created, updated: payload.updated, rejected: payload.rejected };
    const event = await withTransaction(job.app.pool, async (client) => {
      const recorded = await recordJobOutboundEvent(client, job.runId, payload.workspace_id, eventType, body);
      if (recorded.created && payload.notify) {
        const reingested = new Set(payload.notify.reingested);
        const created = [...new Set(payload.issue_ids)].filter((id) => !reingested.has(id));
        await enqueueNotifications(client, { source: 'issues', workspace_id: payload.workspace_id, created, escalated: payload.notify.escalated });
      }
      return recorded;
    });
    return { outbound_event_id: event.id, event_type: eventType, issues: payload.issue_ids.length };
  },
});
