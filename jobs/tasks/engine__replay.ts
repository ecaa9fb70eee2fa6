/** Replays an engine run from its frozen inputs and reports whether every stage came out identical. */
import { z } from 'zod';
import { findEngineRun } from '../../sql/engineRuns.ts';
import { replayEngineRun } from '../engineRun.ts';
import { defineTask, PermanentJobError } from '../runtime.ts';

export const engineReplay = defineTask({
  name: 'engine__replay',
  payload: z.object({ run_id: z.uuid(), workspace_id: z.uuid() }),
  maxAttempts: 2,
  // Replays of one run share one job (key engine_replay:<run>) while it waits: a burst of requests runs it once.
  coalescing: true,
  async run({ run_id, workspace_id }, job) {
    const run = await findEngineRun(job.app.pool, workspace_id, run_id);
    if (!run) throw new PermanentJobError(`engine run ${run_id} not found`);
    return replayEngineRun(job.app, run);
  },
});
