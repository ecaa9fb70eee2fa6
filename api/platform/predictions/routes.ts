/**
 * Predictions (engine stage 9): the latest projection of every fitted pattern's hazard (a
 * prediction's id names one run's projection: the next run replaces it) and each run's
 * rolling-origin backtest.
 */
import { z } from 'zod';
import { AppError } from '../../../lib/errors.ts';
import type { BacktestScores } from '../../../engine/stages/09_predict.ts';
import { findPrediction, type BacktestRow, type PredictionRow } from '../../../sql/predictions.ts';
import { reply } from '../../http/routes.ts';
import { predictionList } from '../../../sql/listFilters.ts';
import { predictionFilters } from '../listFilters.ts';
import { listQuery, listResponse, paginate } from '../pagination.ts';
import { estimateSchema, provenanceSchema } from '../patterns/hazard/schemas.ts';
import { platformRoute } from '../route.ts';
import { backtestList } from '../../../sql/predictions.ts';

const predictionSchema = z.object({
  id: z.string(),
  pattern_id: z.string(),
  run_id: z.string(),
  model: z.enum(['weibull', 'exponential']),
  horizon_days: z.number().int(),
  p_recurrence: estimateSchema.describe('P(at least one occurrence within horizon_days of as_of | time since the last occurrence)'),
  expected_time_to_next_days: estimateSchema.describe('Mean residual life: expected days from as_of to the next occurrence (interval of that mean)'),
  since_last_days: z.number(),
  last_occurrence_at: z.string(),
  as_of: z.string(),
  interval_level: z.number(),
  provenance: provenanceSchema,
  created_at: z.string(),
});

const toPrediction = (r: PredictionRow): z.infer<typeof predictionSchema> => {
  const p = r.prediction;
  return {
    id: r.id,
    pattern_id: r.pattern_id,
    run_id: r.run_id,
    model: p.model,
    horizon_days: p.horizon_days,
    p_recurrence: p.p_recurrence,
    expected_time_to_next_days: p.expected_time_to_next_days,
    since_last_days: p.since_last_days,
    last_occurrence_at: p.last_occurrence_at,
    as_of: p.as_of,
    interval_level: p.interval_level,
    provenance: r.provenance as unknown as Record<string, unknown>,
    created_at: r.created_at.toISOString(),
  };
};

const scoresSchema = z
  .object({
    n_scored: z.number().int().describe('Forecasts scored (pattern × origin)'),
    n_patterns: z.number().int(),
    base_rate: z.number().describe('Observed frequency of recurrence within the horizon'),
    brier: z.number(),
    brier_reference: z.number().describe('Brier score of always forecasting base_rate'),
    skill: z.number().nullable().describe('1 - brier / brier_reference: above 0 beats the base rate'),
    coverage: z.number().nullable().describe('Share of actual counts inside their predictive interval'),
    calibration: z.array(
      z.object({ lower: z.number(), upper: z.number(), count: z.number().int(), mean_forecast: z.number().nullable(), observed_rate: z.number().nullable() }),
    ),
  })
  .nullable();

const backtestSchema = z.object({
  run_id: z.string(),
  as_of: z.string(),
  horizon_days: z.number().int(),
  interval_level: z.number(),
  origins: z.array(
    z.object({ origin_at: z.string(), fully_observed: z.boolean().describe('Only origins whose whole horizon is observed are scored'), scores: scoresSchema }),
  ),
  overall: scoresSchema,
  by_history: z.array(z.object({ min_gaps: z.number().int(), scores: scoresSchema })),
  provenance: provenanceSchema,
  created_at: z.string(),
});

const toScores = (s: BacktestScores | null): z.infer<typeof scoresSchema> =>
  s && {
    n_scored: s.n_scored,
    n_patterns: s.n_patterns,
    base_rate: s.base_rate,
    brier: s.brier,
    brier_reference: s.brier_reference,
    skill: s.skill,
    coverage: s.coverage,
    calibration: s.calibration.map((b) => ({ lower: b.lower, upper: b.upper, count: b.count, mean_forecast: b.mean_forecast, observed_rate: b.observed_rate })),
  };

const toBacktest = (r: BacktestRow): z.infer<typeof backtestSchema> => ({
  run_id: r.run_id,
  as_of: r.as_of.toISOString(),
  horizon_days: r.backtest.horizon_days,
  interval_level: r.backtest.interval_level,
  origins: r.backtest.origins.map((o) => ({ origin_at: o.origin_at, fully_observed: o.fully_observed, scores: toScores(o.scores) })),
  overall: toScores(r.backtest.overall),
  by_history: r.backtest.by_history.map((g) => ({ min_gaps: g.min_gaps, scores: toScores(g.scores) })),
  provenance: r.provenance as unknown as Record<string, unknown>,
  created_at: r.created_at.toISOString(),
});

export const predictionRoutes = [
  platformRoute({
    method: 'get',
    readsFrom: 'replica',
    path: '/v1/predictions',
    operationId: 'listPredictions',
    summary: 'Predictions of the latest engine run, most likely recurrence first',
    tags: ['predictions'],
    scope: 'predictions:read',
    query: listQuery(predictionFilters, ['p_recurrence', 'expected_time_to_next_days', 'created_at'], '-p_recurrence'),
    responses: { 200: { description: 'A page of predictions', schema: listResponse(predictionSchema) } },
    handler: async ({ query, principal, app }) => {
      const page = await paginate(app.pool, predictionList(principal.workspaceId, query), { query, cursorKey: app.secrets.cursorKey }, (r) =>
        toPrediction(r as PredictionRow),
      );
      return reply.ok(page);
    },
  }),
  // Before /v1/predictions/{id}: "backtests" is not a prediction id.
  platformRoute({
    method: 'get',
    readsFrom: 'replica',
    path: '/v1/predictions/backtests',
    operationId: 'listBacktests',
    summary: "Each engine run's rolling-origin backtest, newest first: Brier score and skill, calibration, interval coverage",
    tags: ['predictions'],
    scope: 'predictions:read',
    query: listQuery({ run_id: z.uuid({ error: 'must be an engine run id' }).optional() }, ['created_at'], '-created_at'),
    responses: { 200: { description: 'A page of backtests', schema: listResponse(backtestSchema) } },
    handler: async ({ query, principal, app }) => {
      const page = await paginate(app.pool, backtestList(principal.workspaceId, query), { query, cursorKey: app.secrets.cursorKey }, (r) =>
        toBacktest(r as BacktestRow),
      );
      return reply.ok(page);
    },
  }),
  platformRoute({
    method: 'get',
    readsFrom: 'replica',
    path: '/v1/predictions/{id}',
    operationId: 'getPrediction',
    summary: 'One prediction',
    description: 'Predictions are replaced by every engine run: the id of a superseded one is 404.',
    tags: ['predictions'],
    scope: 'predictions:read',
    params: z.object({ id: z.string() }),
    responses: { 200: { description: 'The prediction', schema: predictionSchema }, 404: { description: 'Not found' } },
    handler: async ({ params, principal, app }) => {
      const row = await findPrediction(app.pool, principal.workspaceId, params.id);
      if (!row) throw new AppError('not_found', 'Prediction not found');
      return reply.ok(toPrediction(row));
    },
  }),
];
