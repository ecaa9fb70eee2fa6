/**
 * GET /insights/snapshot: the active checkpoint's materialised insight collection, read in one
 * statement, so the answer is always exactly one (dataset_version, model_version) pair, even while
 * another model trains or is activated. Everything the insights page shows is in it (each
 * pattern's most recent records and its recurrence forecast): the page makes no call per pattern.
 * Without an active model the answer is the `no_active_model` shape, not an error.
 */
import { z } from 'zod';
import { activeInsightSnapshot, SNAPSHOT_RECORDS_PER_PATTERN } from '../../../sql/tenant/insights.ts';
import { withTenant } from '../../../sql/tenant/schema.ts';
import { reply } from '../../http/routes.ts';
import { iso } from '../../../lib/isoTimestamp.ts';
import { productRoute } from '../route.ts';

const NO_ACTIVE_MODEL = 'No model is active for this workspace yet, so there are no insights to show.';

const interval = z.object({ estimate: z.number(), lower: z.number(), upper: z.number() });

const forecastSchema = z
  .discriminatedUnion('status', [
    z.object({
      status: z.literal('fitted'),
      model: z.enum(['weibull', 'exponential']),
      occurrences: z.number().int().describe('Records of the pattern with an occurrence time'),
      last_occurrence_at: z.iso.datetime(),
      since_last_days: z.number().describe('Days from the last occurrence to the model’s `as_of`'),
      expected_next_days: interval.describe('Expected days from `as_of` to the next occurrence (mean residual life), with the interval of that mean'),
      expected_next_at: z
        .object({ estimate: z.iso.datetime(), lower: z.iso.datetime(), upper: z.iso.datetime() })
        .describe('`as_of` + `expected_next_days`: when the next occurrence is expected'),
      recurrence_probability: interval.describe('Probability (0-1) of a recurrence within the snapshot’s `forecasts.recurrence_horizon_days`'),
      hazard_curve: z
        .object({
          times_days: z.array(z.number()).describe('Days after an occurrence'),
          hazard: z.array(z.number()).describe('h(t): recurrences per day at each time'),
          lower: z.array(z.number()),
          upper: z.array(z.number()),
        })
        .describe('The recurrence rate over time since an occurrence, with its pointwise interval'),
    }),
    z.object({
      status: z.literal('not_fitted'),
      reason: z.enum(['no_timestamps', 'insufficient_events', 'dormant']),
      detail: z.string(),
      occurrences: z.number().int(),
    }),
  ])
  .meta({ title: 'PatternForecast' });

const recordSchema = z.object({
  id: z.uuid(),
  source: z.string(),
  external_id: z.string(),
  title: z.string(),
  severity: z.enum(['critical', 'high', 'medium', 'low']),
  occurred_at: z.iso.datetime().nullable(),
});

const patternSchema = z.object({
  id: z.uuid(),
  rank: z.number().int(),
  name: z.string().describe('Its most distinctive terms'),
  size: z.number().int().describe('Records in the pattern'),
  risk_score: z.number().int().describe('0-100: 45% severity, 30% recency, 25% volume'),
  risk_components: z.object({ severity: z.number(), recency: z.number(), volume: z.number() }),
  top_terms: z.array(z.string()),
  severity_counts: z.object({ critical: z.number().int(), high: z.number().int(), medium: z.number().int(), low: z.number().int() }),
  stability: z.object({ jaccard: z.number().nullable(), status: z.string() }),
  first_seen_at: z.iso.datetime().nullable(),
  last_seen_at: z.iso.datetime().nullable(),
  records: z
    .array(recordSchema)
    .optional()
    .describe(`The pattern’s ${SNAPSHOT_RECORDS_PER_PATTERN} most recent records (by occurred_at); \`size\` counts them all. Absent with \`view=summary\``),
  forecast: forecastSchema
    .nullable()
    .optional()
    .describe('Its recurrence forecast; null when the model produces none (`forecasts` is null). Absent with `view=summary`'),
});

const activeSnapshotSchema = z
  .object({
    status: z.literal('active'),
    dataset_version: z.number().int(),
    model_version: z.number().int(),
    checkpoint_id: z.uuid(),
    trained_at: z.iso.datetime(),
    activated_at: z.iso.datetime().nullable(),
    record_count: z.number().int().describe('Records the model was trained on'),
    clustered_count: z.number().int().describe('Records inside a pattern'),
    forecasts: z
      .object({
        as_of: z.iso.datetime().describe('The time the forecasts are made from (the dataset version’s time)'),
        interval_level: z.number().describe('Level of every interval of the forecasts, e.g. 0.9'),
        recurrence_horizon_days: z.number().int(),
      })
      .nullable()
      .describe('Null when the active model produces no recurrence forecasts (trained before they existed)'),
    patterns: z.array(patternSchema).describe('Highest risk first'),
  })
  .meta({ title: 'InsightSnapshot' });

const noModelSchema = z
  .object({
    status: z.literal('no_active_model'),
    detail: z.string().describe(NO_ACTIVE_MODEL),
    patterns: z.array(z.never()).describe('Always empty'),
  })
  .meta({ title: 'NoActiveModel' });

export const insightRoutes = [
  productRoute({
    method: 'get',
    path: '/insights/snapshot',
    operationId: 'insight_snapshot',
    summary: 'The insight snapshot of the active model',
    description:
      'One coherent (dataset_version, model_version) snapshot: the patterns ranked by risk, each with its severity mix, ' +
      `stability, top terms, its ${SNAPSHOT_RECORDS_PER_PATTERN} most recent records and, where the model produces them, ` +
      'its recurrence forecast (hazard curve with interval, expected next occurrence). Without an active model: ' +
      '200 `{status: "no_active_model", detail, patterns: []}`.',
    tags: ['insights'],
    auth: 'tenant',
    permission: 'insights.read',
    query: z.object({
      view: z
        .enum(['full', 'summary'])
        .optional()
        .describe(
          '`full` (the default): every field. `summary`: the same snapshot without each pattern’s `records` and `forecast`, ' +
            'about a tenth of the bytes, for a list of patterns (the console’s insights page).',
        ),
      pattern_id: z
        .uuid()
        .optional()
        .describe(
          'Only this pattern in `patterns` (an empty array when the active snapshot has no such pattern); the rest of the snapshot ' +
            'as without it, so a pattern’s page reads its one pattern, coherent with the snapshot it names.',
        ),
    }),
    responses: {
      200: { description: 'The active snapshot, or the no-active-model answer', schema: z.discriminatedUnion('status', [activeSnapshotSchema, noModelSchema]) },
    },
    handler: async ({ app, tenant, query }) => {
      const details = query.view !== 'summary';
      const snapshot = await withTenant(app.pool, tenant.schema, (db) => activeInsightSnapshot(db, { details, patternId: query.pattern_id }));
      if (!snapshot) return reply.ok({ status: 'no_active_model' as const, detail: NO_ACTIVE_MODEL, patterns: [] });
      return reply.ok({
        status: 'active' as const,
        dataset_version: snapshot.dataset_version,
        model_version: snapshot.model_version,
        checkpoint_id: snapshot.checkpoint_id,
        trained_at: iso(snapshot.trained_at)!,
        activated_at: iso(snapshot.activated_at),
        record_count: snapshot.record_count,
        clustered_count: snapshot.clustered_count,
        forecasts: snapshot.forecasts,
        patterns: snapshot.patterns.map(({ pattern_id, first_seen_at, last_seen_at, records, ...p }) => ({
          id: pattern_id,
          ...p,
          first_seen_at: iso(first_seen_at),
          last_seen_at: iso(last_seen_at),
          ...(records && { records: records.map((r) => ({ ...r, occurred_at: iso(r.occurred_at) })) }),
        })),
      });
    },
  }),
];
