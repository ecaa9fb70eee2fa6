/**
 * POST /v1/recommendations/{id}/implemented: a proposed recommendation becomes implemented as of the
 * date the fix went into production (not in the future), and the verification of that fix is queued
 * with the change.
 */
import type { AppContext } from '../lib/context.ts';
import { AppError } from '../lib/errors.ts';
import { enqueueVerification } from '../jobs/queue/recommendation__verify.ts';
import { withEventBatch, type Actor } from '../sql/events.ts';
import { markImplemented, type RecommendationRow } from '../sql/recommendations.ts';

export async function implementRecommendation(
  app: AppContext,
  workspaceId: string,
  actor: Actor,
  id: string,
  implementedAt: Date,
): Promise<{ row: RecommendationRow; verificationJobId: string }> {
  if (implementedAt > app.clock.now()) throw new AppError('validation_error', 'Request validation failed', { implemented_at: 'must not be in the future' });
  return withEventBatch(app.pool, workspaceId, async (client, events) => {
    const row = await markImplemented(client, events, actor, id, implementedAt);
    const { job } = await enqueueVerification(client, workspaceId, row.id);
    return { row, verificationJobId: job.id };
  });
}
