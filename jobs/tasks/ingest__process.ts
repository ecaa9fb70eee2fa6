/**
 * Post-ingest work of one ingest request: records the outbound event (`issue.ingested` for a single
 * record, `issue.batch_ingested` for a batch) that webhooks deliver. Idempotent per job run.
 */
import { z } from 'zod';
import { recordOutboundEvent } from '../../sql/outboundEvents.ts';
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
    const existing = await job.app.pool.query<{ result: { outbound_event_id?: string } | null }>('select result from job_runs where id = $1', [job.runId]);
    if (existing.rows[0]?.result?.outbound_event_id) return existing.rows[0].result;
    const eventType = payload.mode === 'event' ? 'issue.ingested' : 'issue.batch_ingested';
    const body =
      payload.mode === 'event'
        ? { issue_id: payload.issue_ids[0] ?? null, created: payload.created === 1 }
        : { issue_ids: payload.issue_ids, accepted: payload.issue_ids.length, created: payload.created, updated: payload.updated, rejected: payload.rejected };
    const event = await recordOutboundEvent(job.app.pool, payload.workspace_id, eventType, body);
    await job.progress(100, 'outbound_event_recorded');
    return { outbound_event_id: event.id, event_type: eventType, issues: payload.issue_ids.length };
  },
});
