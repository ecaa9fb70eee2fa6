/** Patterns (read side): list with the spec's filters and sorts, and one pattern. */
import { z } from 'zod';
import { AppError } from '../../../lib/errors.ts';
import { patternColumns, patternStatuses, type PatternRow } from '../../../sql/patternProjection.ts';
import { findPattern } from '../../../sql/patterns.ts';
import { queryInteger, reply } from '../../http/routes.ts';
import { listQuery, listResponse, paginate } from '../pagination.ts';
import { platformRoute } from '../route.ts';

export const patternSchema = z.object({
  id: z.string(),
  name: z.string(),
  status: z.enum(patternStatuses),
  risk_score: z.number().int().min(0).max(100),
  issue_count: z.number().int(),
  last_seen_at: z.string().nullable(),
  first_seen_at: z.string().nullable(),
  fingerprint: z.object({ domain: z.string().nullable(), root_cause: z.string().nullable() }),
  top_terms: z.array(z.string()),
  provenance: z.record(z.string(), z.unknown()),
  created_at: z.string(),
  updated_at: z.string(),
});

export const toPattern = (r: PatternRow): z.infer<typeof patternSchema> => ({
  id: r.id,
  name: r.name,
  status: r.status,
  risk_score: r.risk_score,
  issue_count: r.issue_count,
  last_seen_at: r.last_seen_at?.toISOString() ?? null,
  first_seen_at: r.first_seen_at?.toISOString() ?? null,
  fingerprint: { domain: r.domain, root_cause: r.root_cause },
  top_terms: r.top_terms,
  provenance: r.provenance,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
});

const risk = (name: string) => queryInteger('must be an integer from 0 to 100', z.number().min(0, 'must be at least 0').max(100, 'must be at most 100')).optional().describe(name);

const patternListQuery = listQuery(
  {
    status: z.enum(patternStatuses, { error: `must be one of ${patternStatuses.join(', ')}` }).optional(),
    search: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters').optional().describe('Matches pattern names'),
    domain: z.string().max(100).optional().describe('Domain fingerprint'),
    risk_min: risk('Minimum risk score, inclusive'),
    risk_max: risk('Maximum risk score, inclusive; at least risk_min'),
  },
  ['risk_score', 'issue_count', 'last_seen_at'],
  '-risk_score',
).refine((q) => q.risk_min === undefined || q.risk_max === undefined || q.risk_max >= q.risk_min, { message: 'must be at least risk_min', path: ['risk_max'] });

const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export const patternRoutes = [
  platformRoute({
    method: 'get',
    path: '/v1/patterns',
    operationId: 'listPatterns',
    summary: 'List patterns, riskiest first',
    tags: ['patterns'],
    scope: 'patterns:read',
    query: patternListQuery,
    responses: { 200: { description: 'A page of patterns', schema: listResponse(patternSchema) } },
    handler: async ({ query, principal, app }) => {
      const where = ['workspace_id = $1'];
      const params: unknown[] = [principal.workspaceId];
      if (query.status) where.push(`status = $${params.push(query.status)}`);
      if (query.search) where.push(`name ilike $${params.push(likePattern(query.search))}`);
      if (query.domain) where.push(`domain = $${params.push(query.domain)}`);
      if (query.risk_min !== undefined) where.push(`risk_score >= $${params.push(query.risk_min)}`);
      if (query.risk_max !== undefined) where.push(`risk_score <= $${params.push(query.risk_max)}`);
      const page = await paginate(
        app.pool,
        {
          select: patternColumns,
          from: 'patterns',
          where,
          params,
          sortColumns: {
            risk_score: { expr: 'risk_score', type: 'integer' },
            issue_count: { expr: 'issue_count', type: 'integer' },
            last_seen_at: { expr: "coalesce(last_seen_at, '-infinity'::timestamptz)", type: 'timestamptz' },
          },
          idExpr: 'id',
          query,
          cursorKey: app.secrets.cursorKey,
        },
        (row) => toPattern(row as unknown as PatternRow),
      );
      return reply.ok(page);
    },
  }),
  platformRoute({
    method: 'get',
    path: '/v1/patterns/{id}',
    operationId: 'getPattern',
    summary: 'Get a pattern',
    tags: ['patterns'],
    scope: 'patterns:read',
    params: z.object({ id: z.string() }),
    responses: { 200: { description: 'The pattern', schema: patternSchema }, 404: { description: 'Not found' } },
    handler: async ({ params, principal, app }) => {
      const row = await findPattern(app.pool, principal.workspaceId, params.id);
      if (!row) throw new AppError('not_found', 'Pattern not found');
      return reply.ok(toPattern(row));
    },
  }),
];
