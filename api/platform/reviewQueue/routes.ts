/**
 * The review queue: list (filter by kind, status, issue, pattern; riskiest first by default), get,
 * and a reviewer's decision: resolve with the decision its kind needs, or dismiss. Decisions are
 * events and feed the next engine run; a decision on a pattern's question settles every member at once.
 */
import { z } from 'zod';
import { jsonValue } from '../../http/jsonValue.ts';
import { AppError } from '../../../lib/errors.ts';
import { findReviewItem, patternOfQuestion, reviewKinds, reviewStatuses, type ReviewItemRow } from '../../../sql/reviewItems.ts';
import { decideReviewItem } from '../../../usecases/decideReviewItem.ts';
import { reply } from '../../http/routes.ts';
import { listQuery, listResponse, paginate } from '../pagination.ts';
import { actorOf } from '../principal.ts';
import { platformRoute } from '../route.ts';
import { reviewItemList } from '../../../sql/reviewItems.ts';

const reviewItemSchema = z.object({
  id: z.string(),
  kind: z.enum(reviewKinds),
  status: z.enum(reviewStatuses),
  issue_id: z.string().nullable(),
  pattern_id: z.string().nullable(),
  question_key: z.string().nullable().describe('pattern:<id>:<kind> (one decision settles every member) or issue:<id>:<kind>'),
  issue_count: z.number().int().describe('How many issues the decision settles'),
  risk_blocked: z.number().describe("The pattern's risk / 100 × the issues covered (one issue: its severity weight)"),
  issues_url: z.string().nullable().describe('Where to list the issues the item covers'),
  reason: z.string(),
  candidates: z.array(jsonValue('A candidate answer: its shape depends on the item kind (a pattern, a domain, a root cause)')),
  provenance: z.record(z.string(), jsonValue('A provenance value (config version ids, digests, counts)')),
  decision: z.record(z.string(), jsonValue('A field of the decision, by item kind')).nullable(),
  decided_by: z.string().nullable(),
  decided_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

const toReviewItem = (r: ReviewItemRow): z.infer<typeof reviewItemSchema> => ({
  id: r.id,
  kind: r.kind,
  status: r.status,
  issue_id: r.issue_id,
  pattern_id: r.pattern_id ?? patternOfQuestion(r.question_key),
  question_key: r.question_key,
  issue_count: r.issue_count,
  risk_blocked: r.risk_blocked,
  issues_url: r.issue_id ? `/v1/issues/${r.issue_id}` : patternOfQuestion(r.question_key) ? `/v1/issues?pattern_id=${patternOfQuestion(r.question_key)}` : null,
  reason: r.reason,
  candidates: r.candidates,
  provenance: r.provenance,
  decision: r.decision,
  decided_by: r.decided_by,
  decided_at: r.decided_at?.toISOString() ?? null,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
});

const idParams = z.object({ id: z.string() });
const decidedResponses = {
  200: { description: 'The decided item', schema: reviewItemSchema },
  404: { description: 'Not found' },
  409: { description: 'Already decided' },
};

export const reviewQueueRoutes = [
  platformRoute({
    method: 'get',
    path: '/v1/review-queue',
    operationId: 'listReviewItems',
    summary: 'List review-queue items, riskiest first',
    tags: ['review-queue'],
    scope: 'review:read',
    query: listQuery(
      {
        kind: z.enum(reviewKinds, { error: `must be one of ${reviewKinds.join(', ')}` }).optional(),
        status: z.enum(reviewStatuses, { error: `must be one of ${reviewStatuses.join(', ')}` }).optional(),
        issue_id: z.uuid({ error: 'must be an issue id' }).optional(),
        pattern_id: z.uuid({ error: 'must be a pattern id' }).optional(),
      },
      ['risk_blocked', 'created_at'],
      '-risk_blocked',
    ),
    responses: { 200: { description: 'A page of review items', schema: listResponse(reviewItemSchema) } },
    handler: async ({ query, principal, app }) => {
      return reply.ok(
        await paginate(app.pool, reviewItemList(principal.workspaceId, query), { query, cursorKey: app.secrets.cursorKey }, (row) =>
          toReviewItem(row as ReviewItemRow),
        ),
      );
    },
  }),
  platformRoute({
    method: 'get',
    path: '/v1/review-queue/{id}',
    operationId: 'getReviewItem',
    summary: 'Get a review-queue item',
    tags: ['review-queue'],
    scope: 'review:read',
    params: idParams,
    responses: { 200: { description: 'The item', schema: reviewItemSchema }, 404: { description: 'Not found' } },
    handler: async ({ params, principal, app }) => {
      const item = await findReviewItem(app.pool, principal.workspaceId, params.id);
      if (!item) throw new AppError('not_found', 'Review item not found');
      return reply.ok(toReviewItem(item));
    },
  }),
  platformRoute({
    method: 'post',
    path: '/v1/review-queue/{id}/resolve',
    operationId: 'resolveReviewItem',
    summary: "Resolve an item with the reviewer's decision",
    description:
      'decision by kind: missing_narrative {narrative} (supplies it to the issue); extraction {domain, root_cause?}; ' +
      'root_cause {root_cause}; criticality {criticality}. Ids come from the active taxonomy and rubric.',
    tags: ['review-queue'],
    scope: 'review:write',
    params: idParams,
    body: z.object({ decision: z.record(z.string(), jsonValue('A field of the decision, by item kind')), note: z.string().max(2000).optional() }),
    responses: decidedResponses,
    handler: async ({ params, body, principal, app }) =>
      reply.ok(toReviewItem(await decideReviewItem(app, principal.workspaceId, actorOf(principal), params.id, 'resolved', body.decision, body.note))),
  }),
  platformRoute({
    method: 'post',
    path: '/v1/review-queue/{id}/dismiss',
    operationId: 'dismissReviewItem',
    summary: 'Dismiss an item',
    tags: ['review-queue'],
    scope: 'review:write',
    params: idParams,
    body: z.object({ note: z.string().max(2000).optional() }).optional(),
    responses: decidedResponses,
    handler: async ({ params, body, principal, app }) =>
      reply.ok(toReviewItem(await decideReviewItem(app, principal.workspaceId, actorOf(principal), params.id, 'dismissed', null, body?.note))),
  }),
];
