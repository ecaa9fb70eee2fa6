/**
 * A replay of a stored engine run (jobs/tasks/engine__replay.ts).
 */
import { z } from 'zod';
import { defineJob } from '../runtime.ts';

export const engineReplay = defineJob({
  name: 'engine__replay',
  payload: z.object({ run_id: z.uuid(), workspace_id: z.uuid() }),
  maxAttempts: 2,
  // Replays of one run share one job (key engine_replay:<run>) while it waits: a burst of requests runs it once.
  coalescing: true,
});
