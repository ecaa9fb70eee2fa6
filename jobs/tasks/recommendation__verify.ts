/**
 * Verifies that an implemented fix held: a Poisson CUSUM (engine/hazard/verifyFix.ts) on the weekly
 * occurrence counts of the recommendation's pattern since the fix, in control at the rate the
 * playbook promises (pre-fix rate × (1 - expected_reduction)), signalling a return to the pre-fix
 * rate. The result is stored; the first move to `regressed` is an event (sql/recommendations.ts).
 *
 * Enqueued when a fix is recorded, by each engine run (pattern membership changes), by ingest of an
 * issue of the pattern, and by the daily sweep. The job key is per recommendation and coalescing: a
 * burst of enqueues while one verification waits gives that one job.
 */
import { z } from 'zod';
import type { Queryable } from '../../lib/db.ts';
import { preFixRate, verifyFix } from '../../engine/hazard/verifyFix.ts';
import { withEventBatch, type Actor } from '../../sql/events.ts';
import { patternOccurrences } from '../../sql/issues.ts';
import {
  findRecommendation,
  implementedRecommendationIds,
  saveVerification,
  type RecommendationRow,
  type StoredVerification,
  type Verdict,
} from '../../sql/recommendations.ts';
import { defineTask, enqueueJob } from '../runtime.ts';

/** Length of a counting period of the CUSUM. */
export const VERIFICATION_PERIOD_DAYS = 7;
const SYSTEM: Actor = { type: 'system', id: null };

export const recommendationVerify = defineTask({
  name: 'recommendation__verify',
  payload: z.object({ workspace_id: z.uuid(), recommendation_id: z.uuid() }),
  maxAttempts: 5,
  coalescing: true,
  async run({ workspace_id, recommendation_id }, job) {
    const asOf = job.app.clock.now();
    return withEventBatch(job.app.pool, workspace_id, async (client, events) => {
      const recommendation = await findRecommendation(client, workspace_id, recommendation_id, { lock: true });
      if (recommendation?.status !== 'implemented') return { recommendation_id, skipped: 'not an implemented recommendation' };
      const rows = await patternOccurrences(client, workspace_id, recommendation.pattern_id);
      const { verdict, verification } = verify(
        recommendation,
        rows.map((r) => r.occurred_at.toISOString()),
        asOf,
      );
      const provenance = {
        stage: 'verify',
        run_id: recommendation.run_id,
        config_versions: recommendation.provenance.config_versions,
        recommendation_id,
        issue_ids: rows.map((r) => r.id),
      };
      const { regressedNow } = await saveVerification(client, events, SYSTEM, recommendation, { verdict, verification, provenance, asOf });
      return { recommendation_id, verdict, periods_observed: verification.cusum?.periods_observed ?? 0, regressed_now: regressedNow };
    });
  },
});

function verify(recommendation: RecommendationRow, occurrences: string[], asOf: Date): { verdict: Verdict; verification: StoredVerification } {
  const fixedAt = recommendation.implemented_at!.toISOString();
  const before = preFixRate(occurrences, fixedAt, VERIFICATION_PERIOD_DAYS);
  if (before === null) {
    return {
      verdict: 'insufficient_data',
      verification: { cusum: null, reason: 'Fewer than two occurrences before the fix: there is no pre-fix rate to compare with.' },
    };
  }
  const reduction = recommendation.recommendation.playbook!.expected_reduction;
  const cusum = verifyFix({
    occurrences,
    fixedAt,
    asOf: asOf.toISOString(),
    periodDays: VERIFICATION_PERIOD_DAYS,
    preFixRate: before,
    targetRate: before * (1 - reduction),
  });
  return { verdict: cusum.verdict, verification: { cusum, reason: null } };
}

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
