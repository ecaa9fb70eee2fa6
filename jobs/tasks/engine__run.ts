/** Runs an engine run recorded by POST /v1/engine/runs (one queue per workspace: never two at once). */
import { executeEngineRun } from '../../usecases/runEngine.ts';
import { defineTask } from '../runtime.ts';
import { engineRun } from '../queue/engine__run.ts';

export const engineRunTask = defineTask({
  ...engineRun,
  async run({ run_id, workspace_id }, job) {
    const { summary, run } = await executeEngineRun(job.app, run_id, workspace_id, (p) => job.progress(p.percent, p.stage), job.signal);
    return { run_id, output_digest: run.output_digest, ...summary };
  },
});
