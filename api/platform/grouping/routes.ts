/**
 * People correct the grouping (issue 31): merge a pattern into another, move an issue to a pattern or
 * out of every one, keep two issues apart, undo a decision (scope `patterns:write`, like every pattern
 * write); read a decision and why an issue is in its pattern (`patterns:read`). Each decision is an
 * event, audited, and a constraint of every later engine run (usecases/correctGrouping.ts).
 */
import { z } from 'zod';
import { AppError } from '../../../lib/errors.ts';
import { isUuid } from '../../../lib/ids.ts';
import { findGroupingDecision, groupingDecisionList, type GroupingDecisionRow } from '../../../sql/groupingDecisions.ts';
import { decideGrouping, undoGrouping, type GroupingActor } from '../../../usecases/correctGrouping.ts';
import { explainIssueGrouping } from '../../../usecases/explainGrouping.ts';
import { groupingDecisionKinds } from '../../../engine/cluster/constraints.ts';
import { queryBoolean, reply } from '../../http/routes.ts';
import type { Request } from '../../http/routes.ts';
import type { Principal } from '../principal.ts';
import { listQuery, listResponse, paginate } from '../pagination.ts';
import { platformRoute } from '../route.ts';

const moveSchema = z.object({ issue_id: z.string(), from: z.string().nullable(), to: z.string().nullable() });

export const groupingDecisionSchema = z.object({
  id: z.string(),
  kind: z.enum(groupingDecisionKinds).describe('merge (a pattern into another), move (an issue to a pattern or out of any), keep_apart (two issues)'),
  status: z.enum(['active', 'undone']).describe('active: a constraint every later engine run respects; undone: no longer'),
  source_pattern_id: z.string().nullable().describe('merge: the pattern merged away; move: the pattern the issue left'),
  target_pattern_id: z.string().nullable().describe('merge: the pattern it went into; move: the pattern the issue went to (null: out of any)'),
  issue_ids: z.array(z.string()).describe("merge: the source's members when decided; move: the issue; keep_apart: the two issues"),
  effect: z.object({ moved: z.array(moveSchema) }).describe('What the decision changed at once'),
  note: z.string().nullable(),
  decided_by: z.object({ type: z.string(), id: z.string().nullable() }),
  decided_at: z.string(),
  undone_by: z.object({ type: z.string(), id: z.string().nullable() }).nullable(),
  undone_at: z.string().nullable(),
});

export const toGroupingDecision = (r: GroupingDecisionRow): z.infer<typeof groupingDecisionSchema> => ({
  id: r.id,
  kind: r.kind,
  status: r.status,
  source_pattern_id: r.source_pattern_id,
  target_pattern_id: r.target_pattern_id,
  issue_ids: r.issue_ids,
  effect: r.effect,
  note: r.note,
  decided_by: { type: r.decided_by_type, id: r.decided_by },
  decided_at: r.decided_at.toISOString(),
  undone_by: r.undone_by_type ? { type: r.undone_by_type, id: r.undone_by } : null,
  undone_at: r.undone_at?.toISOString() ?? null,
});

const groupingSchema = z.object({
  issue_id: z.string(),
  pattern: z
    .object({
      id: z.string(),
      name: z.string(),
      path: z.enum(['templated', 'prose']).nullable(),
      template: z.string().nullable(),
      issue_count: z.number().int(),
      merged_into: z.string().nullable(),
    })
    .nullable()
    .describe('The pattern the issue is in, null when in none'),
  path: z.enum(['templated', 'prose']).nullable().describe('How the pattern was found: a mined template or prose clustering'),
  template: z.string().nullable().describe('The template with <*> at its slots (templated patterns)'),
  slots: z
    .array(z.object({ position: z.number().int(), value: z.string().nullable() }))
    .nullable()
    .describe("The template's slots (token positions) with this issue's values at them"),
  similarity_to_pattern: z.number().nullable().describe("Cosine of the issue's tf-idf vector to the members' centroid"),
  nearest: z.array(z.object({ issue_id: z.string(), title: z.string(), similarity: z.number() })).describe('The most similar members'),
  features: z
    .array(z.object({ feature: z.string(), kind: z.enum(['exception', 'frame', 'path', 'error_code', 'term']), weight: z.number() }))
    .describe("The features contributing most to the issue's similarity to the pattern"),
  members_compared: z.number().int(),
  placed_by: z
    .object({
      type: z.enum(['engine', 'person']),
      run_id: z.string().nullable().optional(),
      decision_id: z.string().optional(),
      kind: z.string().optional(),
      actor_type: z.string().optional(),
      actor_id: z.string().nullable().optional(),
      at: z.string(),
    })
    .nullable()
    .describe('Who placed the issue where it is: an engine run, or a person (the decision)'),
  decisions: z.array(groupingDecisionSchema).describe('Grouping decisions naming the issue, newest first'),
});

const uuidParam = (what: string) => z.object({ id: z.uuid({ error: `must be ${what} id` }) });
const note = z.string().max(2000).optional();

const who = (principal: Principal, req: Request): GroupingActor => ({ actor: { type: principal.kind, id: principal.subjectId }, clientIp: req.clientIp });

const decided = {
  201: { description: 'The decision, applied', schema: groupingDecisionSchema },
  404: { description: 'Not found' },
  409: { description: 'A pattern named was merged into another' },
};

export const groupingRoutes = [
  platformRoute({
    method: 'post',
    path: '/v1/patterns/{id}/merge',
    operationId: 'mergePattern',
    summary: 'Merge this pattern into another',
    description:
      'Its issues go to the target at once; the pattern keeps its history and answers GET /v1/patterns/{id} with `merged_into`. Every later engine run keeps the merged members with the target. Undo with POST /v1/grouping-decisions/{id}/undo.',
    tags: ['patterns'],
    scope: 'patterns:write',
    params: uuidParam('a pattern'),
    body: z.object({ into: z.uuid({ error: 'must be a pattern id' }), note }),
    responses: decided,
    handler: async ({ params, body, principal, app, req }) =>
      reply.created(
        toGroupingDecision(
          await decideGrouping(app, principal.workspaceId, who(principal, req), {
            kind: 'merge',
            source_pattern_id: params.id,
            target_pattern_id: body.into,
            note: body.note,
          }),
        ),
      ),
  }),
  platformRoute({
    method: 'post',
    path: '/v1/issues/{id}/move',
    operationId: 'moveIssue',
    summary: 'Move an issue to another pattern, or out of any',
    description: '`pattern_id: null` takes the issue out of every pattern. Every later engine run keeps it there.',
    tags: ['patterns'],
    scope: 'patterns:write',
    params: uuidParam('an issue'),
    body: z.object({ pattern_id: z.uuid({ error: 'must be a pattern id or null' }).nullable(), note }),
    responses: decided,
    handler: async ({ params, body, principal, app, req }) =>
      reply.created(
        toGroupingDecision(
          await decideGrouping(app, principal.workspaceId, who(principal, req), {
            kind: 'move',
            issue_id: params.id,
            pattern_id: body.pattern_id,
            note: body.note,
          }),
        ),
      ),
  }),
  platformRoute({
    method: 'post',
    path: '/v1/issues/{id}/keep-apart',
    operationId: 'keepIssuesApart',
    summary: 'Keep two issues apart',
    description: 'The two issues never share a pattern in any later engine run. If they share one now, the other issue (`issue_id`) leaves it at once.',
    tags: ['patterns'],
    scope: 'patterns:write',
    params: uuidParam('an issue'),
    body: z.object({ issue_id: z.uuid({ error: 'must be an issue id' }), note }),
    responses: decided,
    handler: async ({ params, body, principal, app, req }) =>
      reply.created(
        toGroupingDecision(
          await decideGrouping(app, principal.workspaceId, who(principal, req), { kind: 'keep_apart', issue_ids: [params.id, body.issue_id], note: body.note }),
        ),
      ),
  }),
  platformRoute({
    method: 'post',
    path: '/v1/grouping-decisions/{id}/undo',
    operationId: 'undoGroupingDecision',
    summary: 'Undo a grouping decision',
    description: 'The decision stops constraining later runs; what it moved and is still where it put it goes back (an undone merge restores the pattern).',
    tags: ['patterns'],
    scope: 'patterns:write',
    params: uuidParam('a grouping decision'),
    responses: {
      200: { description: 'The decision, undone', schema: groupingDecisionSchema },
      404: { description: 'Not found' },
      409: { description: 'Already undone' },
    },
    handler: async ({ params, principal, app, req }) =>
      reply.ok(toGroupingDecision(await undoGrouping(app, principal.workspaceId, who(principal, req), params.id))),
  }),
  platformRoute({
    method: 'get',
    readsFrom: 'replica',
    path: '/v1/grouping-decisions',
    operationId: 'listGroupingDecisions',
    summary: "People's grouping decisions, newest first",
    description: 'Merges, moves and keep-apart decisions of the workspace, in force and undone.',
    tags: ['patterns'],
    scope: 'patterns:read',
    query: listQuery(
      {
        kind: z.enum(groupingDecisionKinds, { error: `must be one of ${groupingDecisionKinds.join(', ')}` }).optional(),
        pattern_id: z.uuid({ error: 'must be a pattern id' }).optional().describe('Decisions naming the pattern as their source or target'),
        issue_id: z
          .uuid({ error: 'must be an issue id' })
          .optional()
          .describe('Decisions naming the issue (moved, kept apart, or a member of a merged pattern)'),
        undone: queryBoolean.optional().describe('true: only undone decisions; false: only those in force'),
      },
      ['decided_at'],
      '-decided_at',
    ),
    responses: { 200: { description: 'A page of grouping decisions', schema: listResponse(groupingDecisionSchema) } },
    handler: async ({ query, principal, app }) =>
      reply.ok(
        await paginate(app.pool, groupingDecisionList(principal.workspaceId, query), { query, cursorKey: app.secrets.cursorKey }, (r) =>
          toGroupingDecision(r as unknown as GroupingDecisionRow),
        ),
      ),
  }),
  platformRoute({
    method: 'get',
    readsFrom: 'replica',
    path: '/v1/grouping-decisions/{id}',
    operationId: 'getGroupingDecision',
    summary: 'Get a grouping decision',
    tags: ['patterns'],
    scope: 'patterns:read',
    params: z.object({ id: z.string() }),
    responses: { 200: { description: 'The decision', schema: groupingDecisionSchema }, 404: { description: 'Not found' } },
    handler: async ({ params, principal, app }) => {
      const row = await findGroupingDecision(app.pool, principal.workspaceId, params.id);
      if (!row) throw new AppError('not_found', 'Grouping decision not found');
      return reply.ok(toGroupingDecision(row));
    },
  }),
  platformRoute({
    method: 'get',
    readsFrom: 'replica',
    path: '/v1/issues/{id}/grouping',
    operationId: 'getIssueGrouping',
    summary: 'Why the issue is in its pattern',
    description:
      'The path (template or prose), the template with its slots, the nearest members and their similarity, the features that decided (recomputed on the texts), and any human decision that placed it.',
    tags: ['patterns'],
    scope: 'patterns:read',
    params: z.object({ id: z.string() }),
    responses: { 200: { description: 'The explanation', schema: groupingSchema }, 404: { description: 'Not found' } },
    handler: async ({ params, principal, app }) => {
      const result = isUuid(params.id) ? await explainIssueGrouping(app.pool, principal.workspaceId, params.id) : null;
      if (!result) throw new AppError('not_found', 'Issue not found');
      return reply.ok({
        ...result,
        path: result.pattern?.path ?? null,
        template: result.pattern?.template ?? null,
        decisions: result.decisions.map(toGroupingDecision),
      });
    },
  }),
];
