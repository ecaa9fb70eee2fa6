/**
 * Remediation (tenant): corrective action plans with optimistic concurrency and a status workflow
 * (domain/capWorkflow.ts), the reviews that approve or reject them, the tenant audit log and the
 * streamed spreadsheet export (exportRoute.ts). Reads need `caps.read`, `reviews.read`, `audit.read`;
 * writes `caps.write`, `reviews.write` (and CSRF).
 */
import { z } from 'zod';
import { CAP_VERSION_MOVED, capStatuses, REVIEW_ALREADY_DECIDED } from '../../../domain/capWorkflow.ts';
import { CAP_NOT_FOUND, capTargetTypes, listCaps } from '../../../sql/tenant/caps.ts';
import { listReviews, REVIEW_NOT_FOUND, reviewDecisions } from '../../../sql/tenant/reviews.ts';
import { createCap } from '../../../usecases/remediation/createCap.ts';
import { editCap } from '../../../usecases/remediation/editCap.ts';
import { decideReview } from '../../../usecases/remediation/decideReview.ts';
import { recentTenantAudit } from '../../../sql/tenant/audit.ts';
import { withTenant } from '../../../sql/tenant/schema.ts';
import { queryInteger, reply } from '../../http/routes.ts';
import { detailSchema } from '../errors.ts';
import { productRoute } from '../route.ts';
import { requestIp } from '../session/identity.ts';
import { auditEntryBody, auditEntrySchema, capBody, capSchema, reviewBody, reviewSchema, targetQuery } from './schema.ts';
import { exportRoute } from './exportRoute.ts';

const title = z.string().trim().min(1).max(200);
const problemStatement = z.string().trim().min(1).max(10_000);
const dueDate = z.iso.date();

const AUDIT_LOG_DEFAULT_LIMIT = 50;
const clamp = (n: number) => Math.min(200, Math.max(1, n));

const capNotFound = { description: CAP_NOT_FOUND, schema: detailSchema };

export const remediationRoutes = [
  productRoute({
    method: 'get',
    path: '/remediation/caps',
    operationId: 'list_caps',
    summary: 'The workspace’s CAPs, newest first (unpaginated)',
    tags: ['remediation'],
    auth: 'tenant',
    permission: 'caps.read',
    query: targetQuery,
    responses: { 200: { description: 'CAPs', schema: z.array(capSchema) } },
    handler: async ({ app, tenant, query }) => {
      const caps = await withTenant(app.pool, tenant.schema, (db) => listCaps(db, { targetType: query.target_type, targetId: query.target_id }));
      return reply.ok(caps.map(capBody));
    },
  }),
  productRoute({
    method: 'post',
    path: '/remediation/caps',
    operationId: 'create_cap',
    summary: 'Create a CAP (status `draft`)',
    description:
      'Target types: `pattern` (a pattern of one of the workspace’s models), `recommendation`, `record` (a dataset ' +
      'record id), `source` (a source id) and `other` (free). When the target already has an open CAP (not closed, ' +
      'rejected or cancelled) with the same problem statement, or the same title when none is given, that CAP is ' +
      'answered unchanged (200) and nothing is written.',
    tags: ['remediation'],
    auth: 'tenant',
    permission: 'caps.write',
    body: z.strictObject({
      target_type: z.enum(capTargetTypes),
      target_id: z.string().trim().min(1).max(200),
      title,
      problem_statement: problemStatement.optional(),
      owner_user_id: z.uuid().optional(),
      due_date: dueDate.optional(),
    }),
    responses: {
      201: { description: 'Created', schema: capSchema },
      200: { description: 'An open CAP of the target with the same problem statement (or title) already exists: that CAP', schema: capSchema },
      422: { description: 'Invalid body, unknown target or owner' },
    },
    handler: async ({ app, req, tenant, body }) => {
      const result = await withTenant(app.pool, tenant.schema, (db) =>
        createCap(
          db,
          {
            targetType: body.target_type,
            targetId: body.target_id,
            title: body.title,
            problemStatement: body.problem_statement,
            ownerUserId: body.owner_user_id,
            dueDate: body.due_date,
          },
          { userId: tenant.userId, clientIp: requestIp(req) },
        ),
      );
      return result.created ? reply.created(capBody(result.cap)) : reply.ok(capBody(result.cap));
    },
  }),
  productRoute({
    method: 'patch',
    path: '/remediation/caps/{cap_id}',
    operationId: 'update_cap',
    summary: 'Change a CAP’s status or fields',
    description:
      'Applies only when the stored version equals `expected_version`; every change adds one to the version. Status ' +
      'moves: draft → submitted (opens a review) or cancelled; approved → in_progress or cancelled; in_progress → ' +
      'verified or cancelled; verified → closed, in_progress or cancelled. `approved`/`rejected` are set by deciding ' +
      'the review; closed, rejected and cancelled are final.',
    tags: ['remediation'],
    auth: 'tenant',
    permission: 'caps.write',
    params: z.object({ cap_id: z.string() }),
    body: z
      .strictObject({
        expected_version: z.number().int().min(1),
        status: z.enum(capStatuses).optional(),
        title: title.optional(),
        problem_statement: problemStatement.nullable().optional(),
        owner_user_id: z.uuid().nullable().optional(),
        due_date: dueDate.nullable().optional(),
      })
      .refine((b) => Object.keys(b).length > 1, { message: 'Nothing to change: send `status` or a field besides `expected_version`' }),
    responses: {
      200: { description: 'The updated CAP', schema: capSchema },
      404: capNotFound,
      409: { description: `${CAP_VERSION_MOVED} / a status move the workflow does not allow / an open duplicate`, schema: detailSchema },
    },
    handler: async ({ app, req, tenant, params, body }) => {
      const cap = await withTenant(app.pool, tenant.schema, (db) =>
        editCap(
          db,
          params.cap_id,
          body.expected_version,
          { status: body.status, title: body.title, problemStatement: body.problem_statement, ownerUserId: body.owner_user_id, dueDate: body.due_date },
          { userId: tenant.userId, clientIp: requestIp(req) },
        ),
      );
      return reply.ok(capBody(cap));
    },
  }),
  productRoute({
    method: 'get',
    path: '/remediation/reviews',
    operationId: 'list_reviews',
    summary: 'Reviews of the workspace’s CAPs, newest first (unpaginated)',
    tags: ['remediation'],
    auth: 'tenant',
    permission: 'reviews.read',
    query: targetQuery,
    responses: { 200: { description: 'Reviews', schema: z.array(reviewSchema) } },
    handler: async ({ app, tenant, query }) => {
      const reviews = await withTenant(app.pool, tenant.schema, (db) => listReviews(db, { targetType: query.target_type, targetId: query.target_id }));
      return reply.ok(reviews.map(reviewBody));
    },
  }),
  productRoute({
    method: 'patch',
    path: '/remediation/reviews/{review_id}',
    operationId: 'decide_review',
    summary: 'Decide a review (once); the decision moves its CAP to approved or rejected',
    tags: ['remediation'],
    auth: 'tenant',
    permission: 'reviews.write',
    params: z.object({ review_id: z.string() }),
    body: z.strictObject({ decision: z.enum(reviewDecisions), comment: z.string().trim().min(1).max(5000).optional() }),
    responses: {
      200: { description: 'The decided review and the CAP it moved', schema: z.object({ review: reviewSchema, cap: capSchema }) },
      404: { description: REVIEW_NOT_FOUND, schema: detailSchema },
      409: { description: REVIEW_ALREADY_DECIDED, schema: detailSchema },
    },
    handler: async ({ app, req, tenant, params, body }) => {
      const decided = await withTenant(app.pool, tenant.schema, (db) =>
        decideReview(db, params.review_id, body.decision, body.comment ?? null, { userId: tenant.userId, clientIp: requestIp(req) }),
      );
      return reply.ok({ review: reviewBody(decided.review), cap: capBody(decided.cap) });
    },
  }),
  productRoute({
    method: 'get',
    path: '/remediation/audit-log',
    operationId: 'audit_log',
    summary: 'The most recent entries of the workspace’s audit log, most recent first',
    description: '`limit` defaults to 50 and is clamped to 1..200. No cursor or offset: the unbounded history is in the export.',
    tags: ['remediation'],
    auth: 'tenant',
    permission: 'audit.read',
    query: z.object({ limit: queryInteger('must be an integer').transform(clamp).optional() }),
    responses: { 200: { description: 'Audit entries', schema: z.array(auditEntrySchema) } },
    handler: async ({ app, tenant, query }) => {
      const rows = await withTenant(app.pool, tenant.schema, (db) => recentTenantAudit(db, query.limit ?? AUDIT_LOG_DEFAULT_LIMIT));
      return reply.ok(rows.map(auditEntryBody));
    },
  }),
  exportRoute,
];
