/**
 * A report's generation (jobs/tasks/report__generate.ts).
 */
import { z } from 'zod';
import { defineJob } from '../runtime.ts';

export const reportGenerate = defineJob({
  name: 'report__generate',
  payload: z.object({ report_id: z.uuid(), workspace_id: z.uuid() }),
  maxAttempts: 3,
});
