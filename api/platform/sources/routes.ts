/** GET /v1/sources and /v1/sources/summary: ingest statistics per source, computed from stored issues. */
import { z } from 'zod';
import { dailyVolume, sourceList, workspaceSourceTotals, type SourceStats } from '../../../sql/sources.ts';
import { reply } from '../../http/routes.ts';
import { listQuery, listResponse, paginate } from '../pagination.ts';
import { platformRoute } from '../route.ts';

const dailySchema = z.array(z.object({ date: z.string().describe('UTC day, YYYY-MM-DD'), count: z.number().int() }));
const statsShape = {
  issue_count: z.number().int(),
  by_engine_status: z.object({ eligible: z.number().int(), blocked_no_narrative: z.number().int(), ineligible: z.number().int() }),
  by_severity: z.object({ critical: z.number().int(), high: z.number().int(), medium: z.number().int(), low: z.number().int() }),
  narrative_coverage: z.number().min(0).max(1).describe('Share of issues with a narrative'),
  first_seen_at: z.string().nullable().describe('When svc first received an issue of this source'),
  last_seen_at: z.string().nullable(),
  daily_volume: dailySchema,
};
const sourceSchema = z.object({ source: z.string(), ...statsShape });
const summarySchema = z.object({ sources: z.number().int(), ...statsShape });

const daysQuery = z.coerce
  .number({ error: 'must be an integer' })
  .int('must be an integer')
  .min(1, 'must be at least 1')
  .max(366, 'must be at most 366')
  .default(30)
  .describe('Days of daily volume, ending today (UTC)');

const toStats = (r: SourceStats) => ({
  issue_count: r.issue_count,
  by_engine_status: r.by_engine_status,
  by_severity: r.by_severity,
  narrative_coverage: r.narrative_coverage,
  first_seen_at: r.first_seen_at ? new Date(r.first_seen_at).toISOString() : null,
  last_seen_at: r.last_seen_at ? new Date(r.last_seen_at).toISOString() : null,
});

export const sourceRoutes = [
  platformRoute({
    method: 'get',
    path: '/v1/sources',
    operationId: 'listSources',
    summary: 'Ingest statistics per source',
    tags: ['sources'],
    scope: 'sources:read',
    query: listQuery({ days: daysQuery }, ['issue_count', 'source'], '-issue_count'),
    responses: { 200: { description: 'A page of sources', schema: listResponse(sourceSchema) } },
    handler: async ({ query, principal, app }) => {
      const page = await paginate(
        app.pool,
        sourceList(principal.workspaceId),
        { query, cursorKey: app.secrets.cursorKey },
        (row) => row as unknown as SourceStats & Record<string, unknown>,
      );
      const volume = await dailyVolume(
        app.pool,
        principal.workspaceId,
        page.data.map((s) => s.source),
        query.days,
        app.clock.now(),
      );
      return reply.ok({ data: page.data.map((s) => ({ source: s.source, ...toStats(s), daily_volume: volume.get(s.source)! })), page: page.page });
    },
  }),
  platformRoute({
    method: 'get',
    path: '/v1/sources/summary',
    operationId: 'sourcesSummary',
    summary: 'Ingest statistics over all sources',
    tags: ['sources'],
    scope: 'sources:read',
    query: z.object({ days: daysQuery }),
    responses: { 200: { description: 'Totals and daily volume', schema: summarySchema } },
    handler: async ({ query, principal, app }) => {
      const { stats, sources } = await workspaceSourceTotals(app.pool, principal.workspaceId);
      const volume = await dailyVolume(app.pool, principal.workspaceId, null, query.days, app.clock.now());
      return reply.ok({ sources, ...toStats(stats), daily_volume: volume.get('*')! });
    },
  }),
];
