/**
 * GET /v1/workspaces/current/events: the workspace's event log as a machine-replayable feed, in
 * sequence order. Resume with `page.next_cursor`, or with `after_sequence` (the last sequence a
 * consumer applied); sequences are gap-free per workspace.
 */
import { z } from 'zod';
import { aggregateTypes, type StoredEvent } from '../../../sql/events.ts';
import { queryInteger, reply } from '../../http/routes.ts';
import { eventSchema, toEvent } from './schema.ts';
import { listQuery, listResponse, paginate } from '../pagination.ts';
import { platformRoute } from '../route.ts';
import { eventFeedList } from '../../../sql/events.ts';

export const feedRoutes = [
  platformRoute({
    method: 'get',
    readsFrom: 'replica',
    path: '/v1/workspaces/current/events',
    operationId: 'workspaceEventFeed',
    summary: 'The workspace event feed, oldest first (machine-replayable)',
    description:
      'Each record: sequence (gap-free per workspace), id, type, aggregate_type, aggregate_id, payload, actor, occurred_at, recorded_at. ' +
      'Apply records in sequence order; issue.* events fold into issues as documented in sql/issueProjection.ts.',
    tags: ['events'],
    scope: 'events:read',
    query: listQuery(
      {
        after_sequence: queryInteger('must be an integer', z.number().min(0, 'must be at least 0')).optional(),
        aggregate_type: z.enum(aggregateTypes, { error: 'must be an aggregate type' }).optional(),
      },
      ['sequence'],
      'sequence',
    ),
    responses: { 200: { description: 'A page of events', schema: listResponse(eventSchema) } },
    handler: async ({ query, principal, app }) => {
      return reply.ok(
        await paginate(app.pool, eventFeedList(principal.workspaceId, query), { query, cursorKey: app.secrets.cursorKey }, (e) =>
          toEvent(e as unknown as StoredEvent),
        ),
      );
    },
  }),
];
