/** Replays an engine run from its frozen inputs and reports whether every stage came out identical. */
import { findEngineRun } from '../../sql/engineRuns.ts';
import { replayEngineRun } from '../../usecases/runEngine.ts';
import { defineTask, PermanentJobError } from '../runtime.ts';
import { engineReplay } from '../queue/engine__replay.ts';

export const engineReplayTask = defineTask({
  ...engineReplay,
  async run({ run_id, workspace_id }, job) {
    const run = await findEngineRun(job.app.pool, workspace_id, run_id);
    if (!run) throw new PermanentJobError(`engine run ${run_id} not found`);
    return replayEngineRun(job.app, run);
  },
});
