/**
 * Post-ingest work of one ingest request: records the outbound event (`issue.ingested` for a single
 * record, `issue.batch_ingested` for a batch) that webhooks deliver. Exactly one event per job run:
 * the event row carries the run's id under a unique index, so a retry finds the one recorded.
 */
import { z } from 'zod';
import { recordJobOutboundEvent } from '../../sql/outboundEvents.ts';
import { defineTask } from '../runtime.ts';

export const ingestProcess = defineTask({
  name: 'ingest__process',
  payload: z.object({
    workspace_id: z.uuid(),
    mode: z.enum(['event', 'batch']),
    issue_ids: z.array(z.uuid()),
    created: z.number().int().min(0),
    updated: z.number().int().min(0),
    rejected: z.number().int().min(0),
  }),
  maxAttempts: 5,
  async run(payload, job) {
    const eventType = payload.mode === 'event' ? 'issue.ingested' : 'issue.batch_ingested';
    const body =
      payload.mode === 'event'
        ? { issue_id: payload.issue_ids[0] ?? null, created: payload.created === 1 }
        : { issue_ids: payload.issue_ids, accepted: payload.issue_ids.length, created: payload.created, updated: payload.updated, rejected: payload.rejected };
    const event = await recordJobOutboundEvent(job.app.pool, job.runId, payload.workspace_id, eventType, body);
    return { outbound_event_id: event.id, event_type: eventType, issues: payload.issue_ids.length };
  },
});
