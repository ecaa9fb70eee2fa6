/** Response shapes of a pattern's engine results: hazard fit, financials, counterfactuals, root causes. */
import { z } from 'zod';
import { jsonValue } from '../../../http/jsonValue.ts';

export const provenanceSchema = z
  .record(z.string(), jsonValue('A provenance value (config version ids, digests, counts)'))
  .describe(
    'run_id, stage, config_versions and the issues the output was computed from: issue_count, issue_digest (sha256 of the sorted ids, one per line) and issues_url, never an inline id list',
  );
export const estimateSchema = z.object({ estimate: z.number(), lower: z.number(), upper: z.number() });
const numbers = z.array(z.number());

export const hazardSchema = z.object({
  pattern_id: z.string(),
  run_id: z.string(),
  status: z.literal('fitted'),
  as_of: z.string().describe('The run’s as-of time: the open gap is censored there'),
  interval_level: z.number().describe('Level of every interval below'),
  model: z.enum(['weibull', 'exponential']).describe('Chosen by AIC'),
  parameters: z.object({
    shape: z.number().describe('Weibull shape κ = 1/σ (1 for the exponential)'),
    scale: z.number().describe('Weibull scale λ in days (the exponential’s mean gap)'),
    shape_se: z.number(),
    scale_se: z.number(),
    shape_interval: numbers,
    scale_interval: numbers,
    mu: z.number().describe('log λ: R survreg’s (Intercept)'),
    log_sigma: z.number().describe('log σ: R survreg’s Log(scale)'),
    covariance: numbers.describe('[var μ, cov(μ, log σ), var log σ]'),
  }),
  selection: z.object({
    criterion: z.literal('aic'),
    aic_weibull: z.number().nullable(),
    aic_exponential: z.number().nullable(),
    lrt_statistic: z.number().nullable().describe('Likelihood-ratio test of shape = 1 (χ² with 1 degree of freedom)'),
    lrt_p_value: z.number().nullable(),
    weibull_not_fitted_reason: z.string().nullable(),
    log_likelihood: z.number(),
  }),
  n_gaps: z.number().int().describe('Observed gaps between consecutive occurrences'),
  n_censored: z.number().int().describe('The open gap to as_of (right-censored)'),
  n_occurrences: z.number().int(),
  dropped_ties: z.number().int().describe('Zero-length gaps of simultaneous occurrences, left out of the fit'),
  first_occurrence_at: z.string(),
  last_occurrence_at: z.string(),
  since_last_days: z.number(),
  dormancy: z
    .object({
      dormant: z.boolean().describe('The silence since the last occurrence is one the model gives less than `level` chance: no forecast is made'),
      silence_probability: z
        .number()
        .describe('P(a silence at least since_last_days long) for a look at an arbitrary moment under the fitted model (equilibrium age law)'),
      level: z.number().describe('Below this silence_probability the pattern is dormant (0.01)'),
    })
    .nullable()
    .describe('null for fits stored before dormancy was decided'),
  trend: z
    .object({
      kept: z.boolean().describe('The model runs on a clock with a power-law trend of the pace (its AIC below the renewal model’s); false: the renewal model'),
      beta: z.number().describe('Power of the pace ((t - first occurrence)/span_days)^(beta - 1), the Crow-AMSAA estimate: < 1 slowing down, > 1 speeding up'),
      span_days: z.number().describe('Days from the first occurrence to as_of'),
      aic_trend: z.number().nullable(),
      aic_renewal: z.number().nullable(),
    })
    .nullable()
    .describe(
      'null for fits stored before trends were considered. With `kept`, parameters and curves are on the model’s clock (days at the pace of as_of), and forecasts are mapped back to days',
    ),
  curves: z.object({
    times_days: numbers,
    survival: numbers,
    survival_lower: numbers,
    survival_upper: numbers,
    hazard: numbers.describe('Per day'),
    hazard_lower: numbers,
    hazard_upper: numbers,
  }),
  forecast: z
    .array(
      z.object({
        horizon_days: z.number().int(),
        expected: z.number().describe('Expected occurrences in (as_of, as_of + horizon]'),
        monte_carlo_error: z.number(),
        lower: z.number().int(),
        upper: z.number().int(),
        probability_any: z
          .number()
          .describe(
            'P(at least one occurrence within the horizon | time since the last occurrence): the same value as p_alert and the prediction at equal horizons',
          ),
      }),
    )
    .describe('One entry per forecast horizon; empty when the pattern is dormant'),
  p_alert: estimateSchema.nullable().describe('P(recurrence within the alert horizon | time since the last occurrence); null when the pattern is dormant'),
  provenance: provenanceSchema,
});

export const financialsSchema = z.object({
  pattern_id: z.string(),
  run_id: z.string(),
  currency: z.string(),
  cost_per_occurrence: z.number().describe('Mean rate-card cost of one occurrence over the members'),
  occurrences_to_date: z.number().int(),
  cost_to_date: z.number(),
  basis: z.enum(['hazard', 'none']).describe('none: the pattern has no hazard fit, so no expected cost'),
  horizons: z.array(z.object({ horizon_days: z.number().int(), expected_occurrences: z.number(), expected_cost: estimateSchema })),
  provenance: provenanceSchema,
  updated_at: z.string(),
});

const range = estimateSchema;
export const counterfactualSchema = z.object({
  pattern_id: z.string(),
  fix_at: z.string().nullable().describe('The fix date asked about; null for a rate reduction over the whole history'),
  reduction: z.number().describe('Share of occurrences the fix removes (1 with fix_date)'),
  window_start: z.string().nullable(),
  window_end: z.string().describe('Now'),
  level: z.number(),
  currency: z.string(),
  occurrences_in_window: z.number().int(),
  cost_in_window: z.number(),
  occurrences_avoided: range,
  cost_avoided: range,
  members_without_occurred_at: z.number().int().describe('Members that have no occurrence time and so are not counted'),
  provenance: provenanceSchema,
});

export const rootCausesSchema = z.object({
  pattern_id: z.string(),
  run_id: z.string(),
  status: z.enum(['decided', 'abstained']).describe('abstained: fewer than half of the decided members agree'),
  root_cause: z.object({ id: z.string(), name: z.string() }).nullable(),
  share: z.number().describe('Share of the decided members with the leading cause'),
  decided: z.number().int(),
  abstained: z.number().int(),
  causes: z.array(z.object({ id: z.string(), name: z.string(), count: z.number().int() })),
  recommendation: z.object({ id: z.string(), status: z.string() }).nullable(),
  provenance: provenanceSchema,
});
