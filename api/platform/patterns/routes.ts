/** Patterns (read side): list with the spec's filters and sorts, and one pattern. */
import { z } from 'zod';
import { jsonValue } from '../../http/jsonValue.ts';
import { AppError } from '../../../lib/errors.ts';
import type { PatternRow } from '../../../sql/patternProjection.ts';
import { patternStatuses } from '../../../domain/patternLifecycle.ts';
import { findPattern } from '../../../sql/patterns.ts';
import { recurrenceStatuses, type RecurrenceStatus } from '../../../sql/patternResults.ts';
import { reply } from '../../http/routes.ts';
import { patternList } from '../../../sql/listFilters.ts';
import { patternFilterRule, patternFilters } from '../listFilters.ts';
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
  path: z.enum(['templated', 'prose']).nullable().describe('How the engine found the pattern: a mined template or prose clustering'),
  template: z.string().nullable().describe('The template with <*> at its variable slots (templated patterns)'),
  examples: z.array(z.object({ issue_id: z.string(), title: z.string() })).describe('Representative member issues'),
  recurrence: z
    .enum(recurrenceStatuses)
    .nullable()
    .describe(
      'What the latest engine run said of its recurrence: recurring (forecast), dormant (silent for longer than its fitted model allows: no forecast, ' +
        'its issues and fit kept; recurring again once it recurs), not_fitted; null before any run modelled it',
    ),
  provenance: z.record(z.string(), jsonValue('A provenance value (config version ids, digests, counts)')),
  merged_into: z
    .string()
    .nullable()
    .describe('The pattern this one was merged into (by a person or an engine run): its issues are there; null while it stands alone'),
  split_into: z.array(z.string()).describe('The patterns this one split into (its successors), besides itself'),
  created_at: z.string(),
  updated_at: z.string(),
});

export const toPattern = (r: PatternRow & { recurrence?: RecurrenceStatus | null }): z.infer<typeof patternSchema> => ({
  id: r.id,
  name: r.name,
  status: r.status,
  risk_score: r.risk_score,
  issue_count: r.issue_count,
  last_seen_at: r.last_seen_at?.toISOString() ?? null,
  first_seen_at: r.first_seen_at?.toISOString() ?? null,
  fingerprint: { domain: r.domain, root_cause: r.root_cause },
  top_terms: r.top_terms,
  path: r.path,
  template: r.template,
  examples: r.examples,
  recurrence: r.recurrence ?? null,
  provenance: r.provenance,
  merged_into: r.merged_into ?? null,
  split_into: r.split_into ?? [],
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
});

const patternListQuery = listQuery(patternFilters, ['risk_score', 'issue_count', 'last_seen_at'], '-risk_score').refine(...patternFilterRule);

export const patternRoutes = [
  platformRoute({
    method: 'get',
    readsFrom: 'replica',
    path: '/v1/patterns',
    operationId: 'listPatterns',
    summary: 'List patterns, riskiest first',
    tags: ['patterns'],
    scope: 'patterns:read',
    query: patternListQuery,
    responses: { 200: { description: 'A page of patterns', schema: listResponse(patternSchema) } },
    handler: async ({ query, principal, app }) => {
      const page = await paginate(app.pool, patternList(principal.workspaceId, query), { query, cursorKey: app.secrets.cursorKey }, (row) =>
        toPattern(row as unknown as PatternRow),
      );
      return reply.ok(page);
    },
  }),
  platformRoute({
    method: 'get',
    readsFrom: 'replica',
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
