/**
 * One sync of an `http_pull` connector (jobs/tasks/connector__sync.ts).
 */
import { z } from 'zod';
import { defineJob } from '../runtime.ts';

export const connectorSync = defineJob({
  name: 'connector__sync',
  payload: z.object({ workspace_id: z.uuid(), connector_id: z.uuid() }),
  coalescing: true,
  maxAttempts: 1,
});
