/** The remediation resources as the routes answer them: CAP, review and audit entry. */
import { z } from 'zod';
import { jsonValue } from '../../http/jsonValue.ts';
import { capStatuses, nextStatuses } from '../../../domain/capWorkflow.ts';
import { capTargetTypes, type CapRow } from '../../../sql/tenant/caps.ts';
import { reviewDecisions, type ReviewRow } from '../../../sql/tenant/reviews.ts';
import type { TenantAuditRow } from '../../../sql/tenant/audit.ts';
import { iso } from '../../../lib/isoTimestamp.ts';

export const capSchema = z
  .object({
    id: z.uuid(),
    version: z.number().int().describe('Send it back as `expected_version` when changing the CAP; it grows by one on every change'),
    status: z.enum(capStatuses),
    next_statuses: z.array(z.enum(capStatuses)).describe('What PATCH may set `status` to from here (`approved`/`rejected` come from the review)'),
    title: z.string(),
    problem_statement: z.string().nullable(),
    target_type: z.enum(capTargetTypes),
    target_id: z.string(),
    owner_user_id: z.uuid().nullable(),
    due_date: z.iso.date().nullable(),
    created_by: z.uuid().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ title: 'CAP' });

export const capBody = (c: CapRow): z.output<typeof capSchema> => ({
  id: c.id,
  version: c.version,
  status: c.status,
  next_statuses: nextStatuses(c.status),
  title: c.title,
  problem_statement: c.problem_statement,
  target_type: c.target_type,
  target_id: c.target_id,
  owner_user_id: c.owner_user_id,
  due_date: c.due_date,
  created_by: c.created_by,
  created_at: iso(c.created_at)!,
  updated_at: iso(c.updated_at)!,
});

export const reviewSchema = z
  .object({
    id: z.uuid(),
    cap_id: z.uuid(),
    cap_version: z.number().int().describe('The CAP version that was submitted'),
    target_type: z.enum(capTargetTypes),
    target_id: z.string(),
    decision: z.enum(reviewDecisions).nullable().describe('null until decided; decided exactly once'),
    comment: z.string().nullable(),
    requested_by: z.uuid().nullable(),
    decided_by: z.uuid().nullable(),
    created_at: z.iso.datetime(),
    decided_at: z.iso.datetime().nullable(),
  })
  .meta({ title: 'Review' });

export const reviewBody = (r: ReviewRow): z.output<typeof reviewSchema> => ({
  id: r.id,
  cap_id: r.cap_id,
  cap_version: r.cap_version,
  target_type: r.target_type,
  target_id: r.target_id,
  decision: r.decision,
  comment: r.comment,
  requested_by: r.requested_by,
  decided_by: r.decided_by,
  created_at: iso(r.created_at)!,
  decided_at: iso(r.decided_at),
});

export const auditEntrySchema = z
  .object({
    id: z.uuid(),
    action: z.string(),
    actor_type: z.enum(['user', 'employee', 'system']),
    actor_id: z.uuid().nullable(),
    resource_type: z.string().nullable(),
    resource_id: z.string().nullable(),
    client_ip: z.string().nullable(),
    trace_id: z.string().nullable(),
    metadata: z.record(z.string(), jsonValue('A detail of the audited action, by action')),
    occurred_at: z.iso.datetime(),
  })
  .meta({ title: 'AuditEntry' });

export const auditEntryBody = (a: TenantAuditRow): z.output<typeof auditEntrySchema> => ({
  id: a.id,
  action: a.action,
  actor_type: a.actor_type,
  actor_id: a.actor_id,
  resource_type: a.resource_type,
  resource_id: a.resource_id,
  client_ip: a.client_ip,
  trace_id: a.trace_id,
  metadata: a.metadata,
  occurred_at: iso(a.occurred_at)!,
});

/** The optional target filters of GET /remediation/caps and /remediation/reviews. */
export const targetQuery = z.object({
  target_type: z.enum(capTargetTypes).optional(),
  target_id: z.string().min(1).max(200).optional(),
});
