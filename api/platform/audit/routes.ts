/** GET /v1/audit-events: the workspace's security audit log, newest first (scope `audit:read`). */
import { z } from 'zod';
import { jsonValue } from '../../http/jsonValue.ts';
import type { AuditEventRow } from '../../../sql/audit.ts';
import { reply } from '../../http/routes.ts';
import { listQuery, listResponse, paginate } from '../pagination.ts';
import { platformRoute } from '../route.ts';
import { auditEventList } from '../../../sql/audit.ts';

const auditEventSchema = z.object({
  id: z.string(),
  action: z.string(),
  actor_type: z.string(),
  actor_id: z.string().nullable(),
  target_type: z.string().nullable(),
  target_id: z.string().nullable(),
  client_ip: z.string().nullable(),
  trace_id: z.string().nullable(),
  metadata: z.record(z.string(), jsonValue('A detail of the audited action, by action')),
  occurred_at: z.string(),
});

export const auditRoutes = [
  platformRoute({
    method: 'get',
    path: '/v1/audit-events',
    operationId: 'listAuditEvents',
    summary: 'List security audit events of the workspace',
    tags: ['audit'],
    scope: 'audit:read',
    query: listQuery({ action: z.string().max(100).optional() }, ['occurred_at'], '-occurred_at'),
    responses: { 200: { description: 'A page of audit events', schema: listResponse(auditEventSchema) } },
    handler: async ({ query, principal, app }) => {
      return reply.ok(
        await paginate(app.pool, auditEventList(principal.workspaceId, query), { query, cursorKey: app.secrets.cursorKey }, (row) => {
          const r = row as AuditEventRow;
          return {
            id: r.id,
            action: r.action,
            actor_type: r.actor_type,
            actor_id: r.actor_id,
            target_type: r.target_type,
            target_id: r.target_id,
            client_ip: r.client_ip,
            trace_id: r.trace_id,
            metadata: r.metadata,
            occurred_at: r.occurred_at.toISOString(),
          };
        }),
      );
    },
  }),
];
