/** The tenant's own append-only audit log (`audit_log` in its schema; run inside `withTenant`). */
import type { Queryable } from '../lib/db.ts';
import { currentTraceId } from '../lib/logger.ts';

export interface TenantAuditEntry {
  action: string;
  actorType: 'user' | 'employee' | 'system';
  actorId: string | null;
  resourceType?: string;
  resourceId?: string;
  clientIp?: string | null;
  metadata?: Record<string, unknown>;
}

export async function recordTenantAudit(db: Queryable, entry: TenantAuditEntry): Promise<void> {
  await db.query(
    `insert into audit_log (action, actor_type, actor_id, resource_type, resource_id, client_ip, trace_id, metadata)
     values ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      entry.action,
      entry.actorType,
      entry.actorId,
      entry.resourceType ?? null,
      entry.resourceId ?? null,
      entry.clientIp ?? null,
      currentTraceId() ?? null,
      JSON.stringify(entry.metadata ?? {}),
    ],
  );
}
