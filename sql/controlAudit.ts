/**
 * The control-plane audit log (control_audit_events): what employees did, append-only. Schema-
 * qualified so that it can be written inside a tenant transaction (impersonation) too.
 */
import type { Queryable } from '../lib/db.ts';
import { currentTraceId } from '../lib/logger.ts';

export interface ControlAuditEntry {
  action: 'employee_login' | 'employee_impersonation' | 'employee_password_reset';
  actorType: 'employee' | 'system';
  actorId: string | null;
  resourceType?: string;
  resourceId?: string;
  tenantId?: string | null;
  clientIp?: string | null;
  userAgent?: string | null;
  metadata?: Record<string, unknown>;
}

export async function recordControlAudit(db: Queryable, entry: ControlAuditEntry): Promise<void> {
  await db.query(
    `insert into public.control_audit_events (action, actor_type, actor_id, resource_type, resource_id, tenant_id, client_ip, user_agent, trace_id, metadata)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      entry.action,
      entry.actorType,
      entry.actorId,
      entry.resourceType ?? null,
      entry.resourceId ?? null,
      entry.tenantId ?? null,
      entry.clientIp ?? null,
      entry.userAgent ?? null,
      currentTraceId() ?? null,
      JSON.stringify(entry.metadata ?? {}),
    ],
  );
}
