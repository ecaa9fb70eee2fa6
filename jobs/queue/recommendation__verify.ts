/**
 * The verification of an implemented fix (jobs/tasks/recommendation__verify.ts): one coalescing job
 * per recommendation (`verificationKey`), enqueued when a fix is recorded, by each engine run, by
 * ingest of an issue of its pattern, and by the daily sweep.
 */
import { z } from 'zod';
import type { Queryable } from '../../lib/db.ts';
import { implementedRecommendationIds } from '../../sql/recommendations.ts';
import { defineJob, enqueueJob } from '../runtime.ts';

/** Length of a counting period of the CUSUM. */
export const VERIFICATION_PERIOD_DAYS = 7;

export const recommendationVerify = defineJob({
  name: 'recommendation__verify',
  payload: z.object({ workspace_id: z.uuid(), recommendation_id: z.uuid() }),
  maxAttempts: 5,
  coalescing: true,
});

export const verificationKey = (recommendationId: string) => `recommendation__verify:${recommendationId}`;

/** Enqueues a verification of one recommendation on `db` (a queued one for it is reused). */
export function enqueueVerification(db: Queryable, workspaceId: string, recommendationId: string) {
  return enqueueJob(
    db,
    recommendationVerify,
    { workspace_id: workspaceId, recommendation_id: recommendationId },
    { workspaceId, jobKey: verificationKey(recommendationId), retryTerminal: true },
  );
}

/** Enqueues verifications of the workspace's implemented fixes (only of the patterns of `issueIds` when given). */
export async function enqueueVerifications(db: Queryable, workspaceId: string, issueIds?: string[]): Promise<number> {
  if (issueIds && !issueIds.length) return 0;
  const ids = await implementedRecommendationIds(db, workspaceId, issueIds);
  for (const id of ids) await enqueueVerification(db, workspaceId, id);
  return ids.length;
}
