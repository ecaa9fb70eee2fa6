/**
 * The post-ingest job (jobs/tasks/ingest__process.ts), enqueued by usecases/ingestRecords.ts on the
 * transaction of the records it follows.
 */
import { z } from 'zod';
import { defineJob } from '../runtime.ts';

export const ingestProcess = defineJob({
  name: 'ingest__process',
  payload: z.object({
    workspace_id: z.uuid(),
    mode: z.enum(['event', 'batch']),
    issue_ids: z.array(z.uuid()),
    created: z.number().int().min(0),
    updated: z.number().int().min(0),
    rejected: z.number().int().min(0),
    notify: z.object({ reingested: z.array(z.uuid()), escalated: z.array(z.uuid()) }).optional(),
  }),
  maxAttempts: 5,
  // A batch's 500 issue ids are stored once, in the run row (docs/decisions.md, issue 32).
  inputByReference: true,
  // One per ingest request: its result is recorded without holding the worker's slot (issue 32).
  returnsResult: true,
});
