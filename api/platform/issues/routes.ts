/** Issues: create, list (filters of the spec), get, update, close, and per-issue event history. */
import { z } from 'zod';
import { AppError } from '../../../lib/errors.ts';
import { issueEventList, type StoredEvent } from '../../../sql/events.ts';
import type { IssueRow } from '../../../sql/issueProjection.ts';
import { issueStatuses } from '../../../domain/issueTransitions.ts';
import { findIssue } from '../../../sql/issues.ts';
import { createIssue } from '../../../usecases/ingestRecords.ts';
import { changeIssue } from '../../../usecases/updateIssue.ts';
import { reply } from '../../http/routes.ts';
import { issueList } from '../../../sql/listFilters.ts';
import { issueFilterRule, issueFilters } from '../listFilters.ts';
import { listQuery, listResponse, paginate } from '../pagination.ts';
import { actorOf } from '../principal.ts';
import { platformRoute } from '../route.ts';
import { eventSchema, toEvent } from '../events/schema.ts';
import { DEFAULT_SEVERITY, issueSchema, toIssue } from './schemas.ts';
import { narrativeInput, severityInput, timestampInput } from '../../../domain/ingestRecord.ts';

const idParams = z.object({ id: z.string() });
const notFound = () => new AppError('not_found', 'Issue not found');

const issueListQuery = listQuery(issueFilters, ['created_at', 'source_created_at', 'updated_at'], '-created_at').refine(...issueFilterRule);

export const issueRoutes = [
  platformRoute({
    method: 'get',
    readsFrom: 'replica',
    path: '/v1/issues',
    operationId: 'listIssues',
    summary: 'List issues, newest first',
    tags: ['issues'],
    scope: 'issues:read',
    query: issueListQuery,
    responses: { 200: { description: 'A page of issues', schema: listResponse(issueSchema) } },
    handler: async ({ query, principal, app }) => {
      const page = await paginate(app.pool, issueList(principal.workspaceId, query), { query, cursorKey: app.secrets.cursorKey }, (row) =>
        toIssue(row as unknown as IssueRow),
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
    responses: {
      201: { description: 'The new issue', schema: issueSchema },
      200: { description: 'The existing issue of this (source, external_id), updated', schema: issueSchema },
    },
    handler: async ({ body, principal, app }) => {
      const { issue, created } = await createIssue(
        app,
        { workspaceId: principal.workspaceId, actor: actorOf(principal) },
        {
          source: body.source,
          external_id: body.external_id ?? null,
          title: body.title,
          narrative: body.narrative?.trim() ? body.narrative : null,
          severity: body.severity ?? DEFAULT_SEVERITY,
          occurred_at: body.occurred_at ?? null,
        },
      );
      return created ? reply.created(toIssue(issue)) : reply.ok(toIssue(issue));
    },
  }),
  platformRoute({
    method: 'get',
    readsFrom: 'replica',
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
    responses: {
      200: { description: 'The updated issue', schema: issueSchema },
      404: { description: 'Not found' },
      409: { description: 'Invalid status transition' },
    },
    handler: async ({ params, body, principal, app }) => {
      const narrative = body.narrative === undefined ? undefined : body.narrative?.trim() ? body.narrative : null;
      return reply.ok(toIssue(await changeIssue(app, principal.workspaceId, actorOf(principal), params.id, { ...body, narrative })));
    },
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
      reply.ok(toIssue(await changeIssue(app, principal.workspaceId, actorOf(principal), params.id, { status: 'closed' }))),
  }),
  platformRoute({
    method: 'get',
    readsFrom: 'replica',
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
      const page = await paginate(app.pool, issueEventList(principal.workspaceId, row.id), { query, cursorKey: app.secrets.cursorKey }, (e) =>
        toEvent(e as unknown as StoredEvent),
      );
      return reply.ok(page);
    },
  }),
];
