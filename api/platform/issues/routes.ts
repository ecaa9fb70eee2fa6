/** Issues: create, list (filters of the spec), get, update, close, and per-issue event history. */
import { z } from 'zod';
import { AppError } from '../../../lib/errors.ts';
import { enqueueVerifications } from '../../../jobs/tasks/recommendation__verify.ts';
import { withEventBatch, type StoredEvent } from '../../../sql/events.ts';
import { issueColumns, type IssueRow } from '../../../sql/issueProjection.ts';
import { issueStatuses, severities } from '../../../sql/issueRules.ts';
import { findIssue, ingestIssues, updateIssue } from '../../../sql/issues.ts';
import { queryBoolean, reply } from '../../http/routes.ts';
import { listQuery, listResponse, paginate } from '../pagination.ts';
import { actorOf } from '../principal.ts';
import { platformRoute } from '../route.ts';
import { eventSchema, toEvent } from '../events/schema.ts';
import { DEFAULT_SEVERITY, issueSchema, narrativeInput, severityInput, timestampInput, toIssue } from './schemas.ts';

const idParams = z.object({ id: z.string() });
const notFound = () => new AppError('not_found', 'Issue not found');

const issueListQuery = listQuery(
  {
    status: z.enum(issueStatuses, { error: `must be one of ${issueStatuses.join(', ')}` }).optional(),
    severity: z.enum(severities, { error: `must be one of ${severities.join(', ')}` }).optional(),
    pattern_id: z.uuid({ error: 'must be a pattern id' }).optional(),
    q: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters').optional().describe('Full-text search over title and narrative'),
    date_from: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 timestamp' }).optional().describe('Inclusive start on source_created_at'),
    date_to: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 timestamp' }).optional().describe('Exclusive end on source_created_at'),
    has_pattern: queryBoolean.optional(),
    source: z.string().max(100).optional(),
  },
  ['created_at', 'source_created_at', 'updated_at'],
  '-created_at',
).refine((q) => !q.date_from || !q.date_to || new Date(q.date_from) < new Date(q.date_to), { message: 'must be after date_from', path: ['date_to'] });

export const issueRoutes = [
  platformRoute({
    method: 'get',
    path: '/v1/issues',
    operationId: 'listIssues',
    summary: 'List issues, newest first',
    tags: ['issues'],
    scope: 'issues:read',
    query: issueListQuery,
    responses: { 200: { description: 'A page of issues', schema: listResponse(issueSchema) } },
    handler: async ({ query, principal, app }) => {
      const where = ['workspace_id = $1'];
      const params: unknown[] = [principal.workspaceId];
      if (query.status) where.push(`status = $${params.push(query.status)}`);
      if (query.severity) where.push(`severity = $${params.push(query.severity)}`);
      if (query.pattern_id) where.push(`pattern_id = $${params.push(query.pattern_id)}`);
      if (query.source) where.push(`source = $${params.push(query.source)}`);
      if (query.q) where.push(`search @@ websearch_to_tsquery('english', $${params.push(query.q)})`);
      if (query.date_from) where.push(`source_created_at >= $${params.push(query.date_from)}`);
      if (query.date_to) where.push(`source_created_at < $${params.push(query.date_to)}`);
      if (query.has_pattern !== undefined) where.push(query.has_pattern ? 'pattern_id is not null' : 'pattern_id is null');
      const page = await paginate(
        app.pool,
        {
          select: issueColumns,
          from: 'issues',
          where,
          params,
          sortColumns: {
            created_at: { expr: 'created_at', type: 'timestamptz' },
            source_created_at: { expr: 'source_created_at', type: 'timestamptz' },
            updated_at: { expr: 'updated_at', type: 'timestamptz' },
          },
          idExpr: 'id',
          query,
          cursorKey: app.secrets.cursorKey,
        },
        (row) => toIssue(row as unknown as IssueRow),
      );
      return reply.ok(page);
    },
  }),
  platformRoute({
    method: 'post',
    path: '/v1/issues',
    operationId: 'createIssue',
    summary: 'Create an issue',
    description: 'A record with an external_id already known for its source updates that issue instead (as ingest does).',
    tags: ['issues'],
    scope: 'issues:write',
    body: z.object({
      title: z.string({ error: 'is required' }).trim().min(1, 'must not be empty').max(1000),
      severity: severityInput,
      narrative: narrativeInput.nullish(),
      occurred_at: timestampInput.nullish(),
      source: z.string().trim().min(1).max(100).default('api'),
      external_id: z.string().trim().min(1).max(256).nullish(),
    }),
    responses: { 201: { description: 'The new issue', schema: issueSchema }, 200: { description: 'The existing issue of this (source, external_id), updated', schema: issueSchema } },
    handler: async ({ body, principal, app }) =>
      withEventBatch(
        app.pool,
        principal.workspaceId,
        async (client, events) => {
          const { results } = await ingestIssues(
            client,
            events,
            actorOf(principal),
            [
              {
                source: body.source,
                external_id: body.external_id ?? null,
                title: body.title,
                narrative: body.narrative?.trim() ? body.narrative : null,
                severity: body.severity ?? DEFAULT_SEVERITY,
                occurred_at: body.occurred_at ?? null,
              },
            ],
            'api',
          );
          // An update of an issue of a pattern with an implemented fix: the fix is verified again (as on ingest).
          await enqueueVerifications(client, principal.workspaceId, [results[0].issue_id]);
          const issue = toIssue((await findIssue(client, principal.workspaceId, results[0].issue_id))!);
          return results[0].created ? reply.created(issue) : reply.ok(issue);
        },
        { retry: true }, // a concurrent create of the same (source, external_id): the retry updates it
      ),
  }),
  platformRoute({
    method: 'get',
    path: '/v1/issues/{id}',
    operationId: 'getIssue',
    summary: 'Get an issue',
    tags: ['issues'],
    scope: 'issues:read',
    params: idParams,
    responses: { 200: { description: 'The issue', schema: issueSchema }, 404: { description: 'Not found' } },
    handler: async ({ params, principal, app }) => {
      const row = await findIssue(app.pool, principal.workspaceId, params.id);
      if (!row) throw notFound();
      return reply.ok(toIssue(row));
    },
  }),
  platformRoute({
    method: 'patch',
    path: '/v1/issues/{id}',
    operationId: 'updateIssue',
    summary: 'Update title, severity, status or narrative',
    description:
      'Status transitions: open → in_progress → resolved → closed, resolved → open, open|in_progress → closed; others are 409. ' +
      'Supplying a narrative to a blocked_no_narrative issue makes it eligible and resolves its review item.',
    tags: ['issues'],
    scope: 'issues:write',
    params: idParams,
    body: z
      .object({
        title: z.string().trim().min(1, 'must not be empty').max(1000).optional(),
        severity: severityInput.optional(),
        status: z.enum(issueStatuses, { error: `must be one of ${issueStatuses.join(', ')}` }).optional(),
        narrative: narrativeInput.nullable().optional(),
      })
      .refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'must change at least one of title, severity, status, narrative' }),
    responses: { 200: { description: 'The updated issue', schema: issueSchema }, 404: { description: 'Not found' }, 409: { description: 'Invalid status transition' } },
    handler: async ({ params, body, principal, app }) =>
      withEventBatch(app.pool, principal.workspaceId, async (client, events) => {
        const narrative = body.narrative === undefined ? undefined : body.narrative?.trim() ? body.narrative : null;
        const row = await updateIssue(client, events, actorOf(principal), params.id, { ...body, narrative });
        return reply.ok(toIssue(row));
      }),
  }),
  platformRoute({
    method: 'post',
    path: '/v1/issues/{id}/close',
    operationId: 'closeIssue',
    summary: 'Close an issue (closing a closed issue changes nothing)',
    tags: ['issues'],
    scope: 'issues:write',
    params: idParams,
    responses: { 200: { description: 'The closed issue', schema: issueSchema }, 404: { description: 'Not found' } },
    handler: async ({ params, principal, app }) =>
      withEventBatch(app.pool, principal.workspaceId, async (client, events) => reply.ok(toIssue(await updateIssue(client, events, actorOf(principal), params.id, { status: 'closed' })))),
  }),
  platformRoute({
    method: 'get',
    path: '/v1/issues/{id}/events',
    operationId: 'listIssueEvents',
    summary: "An issue's event history, oldest first",
    tags: ['issues'],
    scope: 'issues:read',
    params: idParams,
    query: listQuery({}, ['sequence'], 'sequence'),
    responses: { 200: { description: 'A page of events of the issue', schema: listResponse(eventSchema) }, 404: { description: 'Not found' } },
    handler: async ({ params, query, principal, app }) => {
      const row = await findIssue(app.pool, principal.workspaceId, params.id);
      if (!row) throw notFound();
      const page = await paginate(
        app.pool,
        {
          select: '*',
          from: 'events',
          where: ['workspace_id = $1', "aggregate_type = 'issue'", 'aggregate_id = $2'],
          params: [principal.workspaceId, row.id],
          sortColumns: { sequence: { expr: 'sequence', type: 'bigint' } },
          idExpr: 'id',
          query,
          cursorKey: app.secrets.cursorKey,
        },
        (e) => toEvent(e as unknown as StoredEvent),
      );
      return reply.ok(page);
    },
  }),
];
