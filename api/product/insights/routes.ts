/**
 * GET /insights/snapshot: the active checkpoint's materialised insight collection, read in one
 * statement, so the answer is always exactly one (dataset_version, model_version) pair, even while
 * another model trains or is activated.
 */
import { z } from 'zod';
import { notFound } from '../../../lib/errors.ts';
import { activeInsightSnapshot } from '../../../sql/tenant/insights.ts';
import { withTenant } from '../../../sql/tenant/schema.ts';
import { reply } from '../../http/routes.ts';
import { iso } from '../onboarding/provisioned.ts';
import { detailSchema } from '../errors.ts';
import { productRoute } from '../route.ts';

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
});

const snapshotSchema = z
  .object({
    dataset_version: z.number().int(),
    model_version: z.number().int(),
    checkpoint_id: z.uuid(),
    trained_at: z.iso.datetime(),
    activated_at: z.iso.datetime().nullable(),
    record_count: z.number().int().describe('Records the model was trained on'),
    clustered_count: z.number().int().describe('Records inside a pattern'),
    patterns: z.array(patternSchema).describe('Highest risk first'),
  })
  .meta({ title: 'InsightSnapshot' });

export const insightRoutes = [
  productRoute({
    method: 'get',
    path: '/insights/snapshot',
    operationId: 'insight_snapshot',
    summary: 'The insight snapshot of the active model',
    tags: ['insights'],
    auth: 'tenant',
    permission: 'insights.read',
    responses: {
      200: { description: 'One coherent (dataset_version, model_version) snapshot', schema: snapshotSchema },
      404: { description: 'No model checkpoint is active', schema: detailSchema },
    },
    handler: async ({ app, tenant }) => {
      const snapshot = await withTenant(app.pool, tenant.schema, activeInsightSnapshot);
      if (!snapshot) throw notFound('No insight snapshot yet: no model checkpoint is active.');
      return reply.ok({
        dataset_version: snapshot.dataset_version,
        model_version: snapshot.model_version,
        checkpoint_id: snapshot.checkpoint_id,
        trained_at: iso(snapshot.trained_at)!,
        activated_at: iso(snapshot.activated_at),
        record_count: snapshot.record_count,
        clustered_count: snapshot.clustered_count,
        patterns: snapshot.patterns.map(({ pattern_id, first_seen_at, last_seen_at, ...p }) => ({
          id: pattern_id,
          ...p,
          first_seen_at: iso(first_seen_at),
          last_seen_at: iso(last_seen_at),
        })),
      });
    },
  }),
];
