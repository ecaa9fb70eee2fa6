/** Daily (cron) sweep: one recommendation__verify job per implemented fix of every workspace. */
import { z } from 'zod';
import { withTransaction } from '../../lib/db.ts';
import { allImplementedRecommendations } from '../../sql/recommendations.ts';
import { defineTask } from '../runtime.ts';
import { enqueueVerification } from '../queue/recommendation__verify.ts';

export const recommendationVerifyAllTask = defineTask({
  name: 'recommendation__verify_all',
  payload: z.object({}).loose(),
  maxAttempts: 3,
  run: (_payload, job) =>
    withTransaction(job.app.pool, async (client) => {
      const implemented = await allImplementedRecommendations(client);
      let enqueued = 0;
      for (const r of implemented) if ((await enqueueVerification(client, r.workspace_id, r.id)).created) enqueued++;
      return { implemented: implemented.length, enqueued };
    }),
});
