/** Runs an engine run recorded by POST /v1/engine/runs (one queue per workspace: never two at once). */
import { z } from 'zod';
import { executeEngineRun } from '../engineRun.ts';
import { defineTask } from '../runtime.ts';

export const engineRun = defineTask({
  name: 'engine__run',
  payload: z.object({ run_id: z.uuid(), workspace_id: z.uuid() }),
  maxAttempts: 3,
  async run({ run_id, workspace_id }, job) {
    const { summary, run } = await executeEngineRun(job.app, run_id, workspace_id, (p) => job.progress(p.percent, p.stage), job.signal);
    return { run_id, output_digest: run.output_digest, ...summary };
  },
});

export const engineQueue = (workspaceId: string) => `engine:${workspaceId}`;
