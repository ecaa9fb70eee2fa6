/** The append-only security audit log (audit_events). */
import type { Queryable } from '../lib/db.ts';
import { currentTraceId } from '../lib/logger.ts';
import { equalityFilters, type ListSource } from './pagination.ts';

export interface AuditEntry {
  workspaceId: string | null;
  action: string;
  actorType: 'user' | 'service_account' | 'api_key' | 'provisioning_key' | 'identity' | 'system';
  actorId?: string | null;
  targetType?: string | null;
  targetId?: string | null;
  clientIp?: string | null;
  metadata?: Record<string, unknown>;
}

/** The actor columns of an audit row written for a /v1 caller (user, service account or API key): one shape everywhere. */
export const auditActor = (caller: { kind: 'user' | 'service_account' | 'api_key'; subjectId: string }) => ({
  actorType: caller.kind,
  actorId: caller.subjectId,
});

export async function recordAudit(db: Queryable, entry: AuditEntry): Promise<void> {
  await db.query(
    `insert into audit_events (workspace_id, action, actor_type, actor_id, target_type, target_id, client_ip, trace_id, metadata)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      entry.workspaceId,
      entry.action,
      entry.actorType,
      entry.actorId ?? null,
      entry.targetType ?? null,
      entry.targetId ?? null,
      entry.clientIp ?? null,
      currentTraceId() ?? null,
      JSON.stringify(entry.metadata ?? {}),
    ],
  );
}

export interface AuditEventRow extends Record<string, unknown> {
  id: string;
  workspace_id: string | null;
  action: string;
  actor_type: string;
  actor_id: string | null;
  target_type: string | null;
  target_id: string | null;
  client_ip: string | null;
  trace_id: string | null;
  metadata: Record<string, unknown>;
  occurred_at: Date;
}

/** GET /v1/audit-events. */
export function auditEventList(workspaceId: string, f: { action?: string }): ListSource {
  return {
    ...equalityFilters({ workspace_id: workspaceId, action: f.action }),
    select: '*',
    from: 'audit_events',
    sortColumns: { occurred_at: { expr: 'occurred_at', type: 'timestamptz' } },
    idExpr: 'id',
  };
}
