/**
 * Fix recommendations (engine stage 10) and the proof that a fix held: list, get, record that a fix
 * was implemented (proposed -> implemented, with its date; 409 from abstained or implemented; an
 * event, and a verification job in the same transaction) and the latest CUSUM verification.
 */
import { z } from 'zod';
import { AppError } from '../../../lib/errors.ts';
import { VERIFICATION_PERIOD_DAYS } from '../../../jobs/queue/recommendation__verify.ts';
import { implementRecommendation } from '../../../usecases/implementRecommendation.ts';
import { findRecommendation, findVerification, recommendationStatuses, verdicts, type RecommendationRow } from '../../../sql/recommendations.ts';
import { reply } from '../../http/routes.ts';
import { listQuery, listResponse, paginate } from '../pagination.ts';
import { estimateSchema, provenanceSchema } from '../patterns/hazard/schemas.ts';
import { actorOf } from '../principal.ts';
import { platformRoute } from '../route.ts';
import { recommendationList } from '../../../sql/recommendations.ts';

const recommendationSchema = z.object({
  id: z.string().describe('Stable for the pattern across engine runs'),
  pattern_id: z.string(),
  run_id: z.string().describe('The latest run that wrote it (for an implemented one: the run before it was implemented)'),
  status: z.enum(recommendationStatuses),
  abstain_reason: z
    .enum(['root_cause_abstained', 'no_playbook', 'not_fitted', 'dormant'])
    .nullable()
    .describe('dormant: the pattern has gone silent for longer than its recurrence model allows, so there is no forecast to build a business case on'),
  root_cause: z.string().nullable(),
  playbook: z.object({ title: z.string(), steps: z.array(z.string()), effort_hours: z.number(), expected_reduction: z.number() }).nullable(),
  business_case: z
    .object({
      currency: z.string(),
      horizon_days: z.number().int(),
      avoided_cost: estimateSchema,
      fix_cost: z.number(),
      roi: z.number().nullable().describe('(avoided - fix) / fix'),
      payback_days: z.number().nullable(),
      confidence: z.number(),
    })
    .nullable(),
  implemented_at: z.string().nullable(),
  implemented_by: z.object({ type: z.string(), id: z.string().nullable() }).nullable(),
  provenance: provenanceSchema,
  created_at: z.string(),
  updated_at: z.string(),
});

const toRecommendation = (r: RecommendationRow): z.infer<typeof recommendationSchema> => ({
  id: r.id,
  pattern_id: r.pattern_id,
  run_id: r.run_id,
  status: r.status,
  abstain_reason: r.recommendation.abstain_reason,
  root_cause: r.recommendation.root_cause,
  playbook: r.recommendation.playbook,
  business_case: r.recommendation.business_case,
  implemented_at: r.implemented_at?.toISOString() ?? null,
  implemented_by: r.implemented_by,
  provenance: r.provenance as unknown as Record<string, unknown>,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
});

const verificationSchema = z.object({
  recommendation_id: z.string(),
  pattern_id: z.string(),
  implemented_at: z.string(),
  status: z.enum(['pending', ...verdicts]).describe('pending until the first verification job has run'),
  reason: z.string().nullable().describe('Why there is no CUSUM (insufficient_data without a pre-fix rate), or what is pending'),
  period_days: z.number().int(),
  periods_observed: z.number().int().describe('Complete periods since the fix'),
  cusum: z
    .object({
      counts: z.array(z.number().int()).describe('Occurrences per period since the fix'),
      path: z.array(z.number()).describe('CUSUM statistic after each period'),
      k: z.number().describe("Lucas' reference value from the pre-fix and target rates"),
      k_used: z.number(),
      h: z.number().describe('Decision interval'),
      in_control_rate: z.number().describe('Target rate after the fix, per period'),
      out_of_control_rate: z.number().describe('Pre-fix rate, per period'),
      target_arl0: z.number(),
      arl0: z.number().nullable().describe('In-control average run length (periods between false alarms); null when beyond floating point (above 1e308)'),
      arl1: z.number().describe('Average run length at the pre-fix rate (periods to detect a regression)'),
      min_periods: z.number().int().describe('Periods needed before holding can be said'),
      signal_period: z.number().int().nullable(),
      signal_at: z.string().nullable(),
      assumption: z.string(),
    })
    .nullable(),
  as_of: z.string().nullable(),
  computed_at: z.string().nullable(),
  regressed_at: z.string().nullable(),
  provenance: provenanceSchema.nullable(),
});

const idParams = z.object({ id: z.string() });

export const recommendationRoutes = [
  platformRoute({
    method: 'get',
    path: '/v1/recommendations',
    operationId: 'listRecommendations',
    summary: 'Fix recommendations, best return on investment first',
    tags: ['recommendations'],
    scope: 'recommendations:read',
    query: listQuery(
      {
        status: z.enum(recommendationStatuses, { error: `must be one of ${recommendationStatuses.join(', ')}` }).optional(),
        pattern_id: z.uuid({ error: 'must be a pattern id' }).optional(),
      },
      ['roi', 'created_at'],
      '-roi',
    ),
    responses: { 200: { description: 'A page of recommendations', schema: listResponse(recommendationSchema) } },
    handler: async ({ query, principal, app }) => {
      const page = await paginate(app.pool, recommendationList(principal.workspaceId, query), { query, cursorKey: app.secrets.cursorKey }, (r) =>
        toRecommendation(r as RecommendationRow),
      );
      return reply.ok(page);
    },
  }),
  platformRoute({
    method: 'get',
    path: '/v1/recommendations/{id}',
    operationId: 'getRecommendation',
    summary: 'One recommendation with its business case',
    tags: ['recommendations'],
    scope: 'recommendations:read',
    params: idParams,
    responses: { 200: { description: 'The recommendation', schema: recommendationSchema }, 404: { description: 'Not found' } },
    handler: async ({ params, principal, app }) => {
      const row = await findRecommendation(app.pool, principal.workspaceId, params.id);
      if (!row) throw new AppError('not_found', 'Recommendation not found');
      return reply.ok(toRecommendation(row));
    },
  }),
  platformRoute({
    method: 'post',
    path: '/v1/recommendations/{id}/implemented',
    operationId: 'markRecommendationImplemented',
    summary: 'Record that the recommended fix was implemented, and when',
    description:
      'proposed -> implemented (event recommendation.implemented) and a verification job (`verification_job_id`), in one transaction. ' +
      '409 `conflict` when the recommendation abstained or was already implemented. `implemented_at` must not be in the future.',
    tags: ['recommendations'],
    scope: 'recommendations:write',
    params: idParams,
    body: z.object({
      implemented_at: z
        .union([z.iso.datetime({ offset: true }), z.iso.date()], {
          error: (issue) => (issue.input === undefined ? 'is required' : 'must be an ISO 8601 timestamp or date'),
        })
        .describe('When the fix went into production'),
    }),
    responses: {
      200: { description: 'The implemented recommendation', schema: recommendationSchema.extend({ verification_job_id: z.string() }) },
      404: { description: 'Not found' },
      409: { description: '`conflict`: abstained or already implemented' },
    },
    handler: async ({ params, body, principal, app }) => {
      const { row, verificationJobId } = await implementRecommendation(
        app,
        principal.workspaceId,
        actorOf(principal),
        params.id,
        new Date(body.implemented_at),
      );
      return reply.ok({ ...toRecommendation(row), verification_job_id: verificationJobId });
    },
  }),
  platformRoute({
    method: 'get',
    path: '/v1/recommendations/{id}/verification',
    operationId: 'getRecommendationVerification',
    summary: 'Did the fix hold? Poisson CUSUM of the weekly occurrences since the fix against the pre-fix rate',
    description:
      '`insufficient_data`, `holding` or `regressed` with the CUSUM path, k, h and the run-length assumption; `pending` until the first ' +
      'verification job has run. 409 `conflict` when no fix has been recorded (POST …/implemented first).',
    tags: ['recommendations'],
    scope: 'recommendations:read',
    params: idParams,
    responses: {
      200: { description: 'The verification', schema: verificationSchema },
      404: { description: 'Not found' },
      409: { description: 'No fix recorded' },
    },
    handler: async ({ params, principal, app }) => {
      const rec = await findRecommendation(app.pool, principal.workspaceId, params.id);
      if (!rec) throw new AppError('not_found', 'Recommendation not found');
      if (rec.status !== 'implemented') {
        throw new AppError(
          'conflict',
          `The recommendation is ${rec.status}: no fix has been recorded to verify; POST /v1/recommendations/${rec.id}/implemented first`,
          { status: rec.status },
        );
      }
      const base = {
        recommendation_id: rec.id,
        pattern_id: rec.pattern_id,
        implemented_at: rec.implemented_at!.toISOString(),
        period_days: VERIFICATION_PERIOD_DAYS,
      };
      const v = await findVerification(app.pool, principal.workspaceId, rec.id);
      if (!v) {
        return reply.ok({
          ...base,
          status: 'pending' as const,
          reason: 'The first verification job has not run yet',
          periods_observed: 0,
          cusum: null,
          as_of: null,
          computed_at: null,
          regressed_at: null,
          provenance: null,
        });
      }
      const c = v.verification.cusum;
      return reply.ok({
        ...base,
        status: v.verdict,
        reason: v.verification.reason,
        periods_observed: c?.periods_observed ?? 0,
        cusum: c && {
          counts: c.counts,
          path: c.path,
          k: c.k,
          k_used: c.k_used,
          h: c.h,
          in_control_rate: c.in_control_rate,
          out_of_control_rate: c.out_of_control_rate,
          target_arl0: c.target_arl0,
          arl0: Number.isFinite(c.arl0) ? c.arl0 : null,
          arl1: c.arl1,
          min_periods: c.min_periods,
          signal_period: c.signal_period,
          signal_at: c.signal_at,
          assumption: c.assumption,
        },
        as_of: v.as_of.toISOString(),
        computed_at: v.computed_at.toISOString(),
        regressed_at: v.regressed_at?.toISOString() ?? null,
        provenance: v.provenance,
      });
    },
  }),
];
