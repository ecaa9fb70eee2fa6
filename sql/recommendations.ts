/**
 * Fix recommendations (engine stage 10), one per pattern, and the CUSUM verification of the ones a
 * human recorded as implemented.
 * - A run writes its recommendations: a pattern's recommendation keeps its id across runs (the id of
 *   the run that first proposed it) while its content follows the latest run; recommendations of
 *   patterns the run no longer produces are removed. An implemented recommendation is a human's record
 *   of what was done: runs leave it as it was implemented, and it is never removed.
 * - `proposed -> implemented` (recommendation.implemented) is the only transition; abstained and
 *   implemented ones answer 409.
 * - A verification's move to `regressed` is an event once (recommendation.regressed), and an outbound
 *   event for webhooks.
 * In the lock order of every writer, recommendations come after patterns (and before alerts).
 */
import { prepared, type Queryable } from '../lib/db.ts';
import { AppError } from '../lib/errors.ts';
import type { Provenance } from '../engine/stages/context.ts';
import type { VerifyFixResult } from '../engine/hazard/verifyFix.ts';
import type { Recommendation } from '../engine/stages/10_recommend.ts';
import type { Actor, EventBatch } from './events.ts';
import { recordOutboundEvent } from './outboundEvents.ts';
import { equalityFilters, type ListSource } from './pagination.ts';
import { isUuid } from '../lib/ids.ts';

export const recommendationStatuses = ['proposed', 'abstained', 'implemented'] as const;
export type RecommendationStatus = (typeof recommendationStatuses)[number];

export type StoredRecommendation = Omit<Recommendation, 'id' | 'provenance' | 'status'>;

export interface RecommendationRow extends Record<string, unknown> {
  id: string;
  workspace_id: string;
  pattern_id: string;
  run_id: string;
  status: RecommendationStatus;
  root_cause: string | null;
  confidence: number | null;
  roi: number | null;
  recommendation: StoredRecommendation;
  provenance: Provenance;
  implemented_at: Date | null;
  implemented_by: Actor | null;
  created_at: Date;
  updated_at: Date;
}

export const verdicts = ['insufficient_data', 'holding', 'regressed'] as const;
export type Verdict = (typeof verdicts)[number];

/** What a verification stores: the CUSUM result, or why there is none (no pre-fix rate to compare with). */
export type StoredVerification = { cusum: VerifyFixResult; reason: null } | { cusum: null; reason: string };

export interface VerificationRow {
  recommendation_id: string;
  workspace_id: string;
  pattern_id: string;
  run_id: string | null;
  verdict: Verdict;
  verification: StoredVerification;
  provenance: Record<string, unknown>;
  as_of: Date;
  regressed_at: Date | null;
  computed_at: Date;
}

/** Writes one run's recommendations (see the header); returns how many were written and kept. */
export async function applyRecommendations(
  db: Queryable,
  workspaceId: string,
  runId: string,
  recommendations: Recommendation[],
): Promise<{ written: number; implemented_kept: number }> {
  const existing = new Map(
    (await db.query<RecommendationRow>('select * from recommendations where workspace_id = $1 order by id for update', [workspaceId])).rows.map((r) => [
      r.pattern_id,
      r,
    ]),
  );
  const produced = new Set(recommendations.map((r) => r.pattern_id));
  const stale = [...existing.values()].filter((r) => r.status !== 'implemented' && !produced.has(r.pattern_id)).map((r) => r.id);
  if (stale.length) await db.query('delete from recommendations where id = any($1::uuid[])', [stale]);
  const writes = recommendations
    .filter((r) => existing.get(r.pattern_id)?.status !== 'implemented')
    .map(({ id, status, provenance, ...recommendation }) => ({
      id: existing.get(recommendation.pattern_id)?.id ?? id,
      pattern_id: recommendation.pattern_id,
      status,
      root_cause: recommendation.root_cause,
      confidence: recommendation.business_case?.confidence ?? null,
      roi: recommendation.business_case?.roi ?? null,
      recommendation,
      provenance,
    }));
  await db.query(
    `insert into recommendations (id, workspace_id, pattern_id, run_id, status, root_cause, confidence, roi, recommendation, provenance)
     select r.id, $1, r.pattern_id, $2, r.status, r.root_cause, r.confidence, r.roi, r.recommendation, r.provenance
       from jsonb_to_recordset($3::jsonb) as r(id uuid, pattern_id uuid, status text, root_cause text, confidence double precision, roi double precision, recommendation jsonb, provenance jsonb)
     on conflict (id) do update set run_id = excluded.run_id, status = excluded.status, root_cause = excluded.root_cause, confidence = excluded.confidence,
       roi = excluded.roi, recommendation = excluded.recommendation, provenance = excluded.provenance, updated_at = now()`,
    [workspaceId, runId, JSON.stringify(writes)],
  );
  return { written: writes.length, implemented_kept: [...existing.values()].filter((r) => r.status === 'implemented').length };
}

export async function findRecommendation(db: Queryable, workspaceId: string, id: string, options: { lock?: boolean } = {}): Promise<RecommendationRow | null> {
  if (!isUuid(id)) return null;
  const { rows } = await db.query<RecommendationRow>(`select * from recommendations where workspace_id = $1 and id = $2${options.lock ? ' for update' : ''}`, [
    workspaceId,
    id,
  ]);
  return rows[0] ?? null;
}

/** The recommendation of a pattern (its latest, or the implemented one). */
export async function recommendationOfPattern(db: Queryable, workspaceId: string, patternId: string): Promise<RecommendationRow | null> {
  const { rows } = await db.query<RecommendationRow>('select * from recommendations where workspace_id = $1 and pattern_id = $2', [workspaceId, patternId]);
  return rows[0] ?? null;
}

// Every ingest request that re-ingests issues runs it: prepared (lib/db.ts).
const implementedOfIssues = prepared(
  'recommendations_implemented_of_issues',
  `select distinct r.id from recommendations r join issues i on i.workspace_id = r.workspace_id and i.pattern_id = r.pattern_id
    where r.workspace_id = $1 and r.status = 'implemented' and i.id = any($2::uuid[]) order by r.id`,
);
/** Implemented recommendations of the workspace, optionally only those of the patterns of these issues. */
export async function implementedRecommendationIds(db: Queryable, workspaceId: string, issueIds?: string[]): Promise<string[]> {
  const { rows } = issueIds
    ? await db.query<{ id: string }>(implementedOfIssues([workspaceId, issueIds]))
    : await db.query<{ id: string }>(`select id from recommendations where workspace_id = $1 and status = 'implemented' order by id`, [workspaceId]);
  return rows.map((r) => r.id);
}

/** Every implemented recommendation of every workspace (the daily sweep). */
export async function allImplementedRecommendations(db: Queryable): Promise<Array<{ id: string; workspace_id: string }>> {
  const { rows } = await db.query<{ id: string; workspace_id: string }>(
    `select id, workspace_id from recommendations where status = 'implemented' order by workspace_id, id`,
  );
  return rows;
}

/** proposed -> implemented, with the date the fix went in; the row locked first, the event in the batch. */
export async function markImplemented(db: Queryable, events: EventBatch, actor: Actor, id: string, implementedAt: Date): Promise<RecommendationRow> {
  const current = await findRecommendation(db, events.workspaceId, id, { lock: true });
  if (!current) throw new AppError('not_found', 'Recommendation not found');
  if (current.status !== 'proposed') {
    const why =
      current.status === 'abstained'
        ? 'the engine abstained: there is no fix to implement'
        : `it was already recorded as implemented at ${current.implemented_at!.toISOString()}`;
    throw new AppError('conflict', `The recommendation is ${current.status}; ${why}`, { status: current.status });
  }
  const { rows } = await db.query<RecommendationRow>(
    `update recommendations set status = 'implemented', implemented_at = $2, implemented_by = $3, updated_at = $4 where id = $1 returning *`,
    [id, implementedAt, JSON.stringify(actor), events.recordedAt],
  );
  events.add(actor, [
    {
      aggregateType: 'recommendation',
      aggregateId: id,
      eventType: 'recommendation.implemented',
      payload: { pattern_id: current.pattern_id, implemented_at: implementedAt.toISOString() },
    },
  ]);
  return rows[0];
}

export async function findVerification(db: Queryable, workspaceId: string, recommendationId: string): Promise<VerificationRow | null> {
  const { rows } = await db.query<VerificationRow>('select * from recommendation_verifications where workspace_id = $1 and recommendation_id = $2', [
    workspaceId,
    recommendationId,
  ]);
  return rows[0] ?? null;
}

/**
 * Stores a verification; the first move to `regressed` is an event. The caller holds the
 * recommendation's lock (findRecommendation with `lock`), so two verifications of it run one after
 * the other.
 */
export async function saveVerification(
  db: Queryable,
  events: EventBatch,
  actor: Actor,
  recommendation: RecommendationRow,
  result: { verdict: Verdict; verification: StoredVerification; provenance: Record<string, unknown>; asOf: Date },
): Promise<{ row: VerificationRow; regressedNow: boolean }> {
  const previous = await findVerification(db, events.workspaceId, recommendation.id);
  const regressedNow = result.verdict === 'regressed' && previous?.verdict !== 'regressed';
  const { rows } = await db.query<VerificationRow>(
    `insert into recommendation_verifications (recommendation_id, workspace_id, pattern_id, run_id, verdict, verification, provenance, as_of, regressed_at, computed_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, case when $5 = 'regressed' then $9::timestamptz end, $9)
     on conflict (recommendation_id) do update set run_id = excluded.run_id, verdict = excluded.verdict, verification = excluded.verification,
       provenance = excluded.provenance, as_of = excluded.as_of, computed_at = excluded.computed_at,
       regressed_at = case when excluded.verdict = 'regressed' then coalesce(recommendation_verifications.regressed_at, excluded.regressed_at) end
     returning *`,
    [
      recommendation.id,
      events.workspaceId,
      recommendation.pattern_id,
      recommendation.run_id,
      result.verdict,
      JSON.stringify(result.verification),
      JSON.stringify(result.provenance),
      result.asOf,
      events.recordedAt,
    ],
  );
  if (regressedNow) {
    const cusum = result.verification.cusum;
    const payload = {
      pattern_id: recommendation.pattern_id,
      implemented_at: recommendation.implemented_at!.toISOString(),
      signal_at: cusum?.signal_at ?? null,
      periods_observed: cusum?.periods_observed ?? null,
    };
    events.add(actor, [{ aggregateType: 'recommendation', aggregateId: recommendation.id, eventType: 'recommendation.regressed', payload }]);
    await recordOutboundEvent(db, events.workspaceId, 'recommendation.regressed', { recommendation_id: recommendation.id, ...payload });
  }
  return { row: rows[0], regressedNow };
}

/** GET /v1/recommendations. */
export function recommendationList(workspaceId: string, f: { status?: string; pattern_id?: string }): ListSource {
  return {
    ...equalityFilters({ workspace_id: workspaceId, status: f.status, pattern_id: f.pattern_id }),
    select: '*',
    from: 'recommendations',
    sortColumns: {
      roi: { expr: "coalesce(roi, '-infinity'::double precision)", type: 'double precision' },
      created_at: { expr: 'created_at', type: 'timestamptz' },
    },
    idExpr: 'id',
  };
}
