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
import type { z } from 'zod';
import { preFixRate, verifyFix } from '../engine/hazard/verifyFix.ts';
import { withEventBatch, type Actor } from '../sql/events.ts';
import { patternOccurrences } from '../sql/issues.ts';
import { findRecommendation, saveVerification, type RecommendationRow, type StoredVerification, type Verdict } from '../sql/recommendations.ts';
import type { JobContext } from '../jobs/runtime.ts';
import { type recommendationVerify, VERIFICATION_PERIOD_DAYS } from '../jobs/queue/recommendation__verify.ts';

const SYSTEM: Actor = { type: 'system', id: null };

export async function verifyImplementedFix({ workspace_id, recommendation_id }: z.output<(typeof recommendationVerify)['payload']>, job: JobContext) {
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
}

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
