/**
 * An engine run (jobs/tasks/engine__run.ts): runs of one workspace share the queue `engineQueue`,
 * so they run one at a time, in order.
 */
import { z } from 'zod';
import { defineJob } from '../runtime.ts';

export const engineRun = defineJob({
  name: 'engine__run',
  payload: z.object({ run_id: z.uuid(), workspace_id: z.uuid() }),
  maxAttempts: 3,
});

export const engineQueue = (workspaceId: string) => `engine:${workspaceId}`;
