/**
 * The tenant's own append-only audit log (`audit_log` in its schema; run inside `withTenant`). Every
 * change to CAPs, reviews, sources, uploads and memberships writes its row in the transaction of the
 * change itself, so a change is never without its entry nor an entry without its change.
 */
import type { Queryable } from '../../lib/db.ts';
import { currentTraceId } from '../../lib/logger.ts';

export interface TenantAuditEntry {
  action: string;
  actorType: 'user' | 'employee' | 'system';
  actorId: string | null;
  resourceType?: string;
  resourceId?: string;
  clientIp?: string | null;
  metadata?: Record<string, unknown>;
}

/** Who made a change, as the audit row names them. */
export interface TenantActor {
  type: TenantAuditEntry['actorType'];
  id: string | null;
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

export interface TenantAuditRow {
  id: string;
  seq: number;
  action: string;
  actor_type: TenantAuditEntry['actorType'];
  actor_id: string | null;
  resource_type: string | null;
  resource_id: string | null;
  client_ip: string | null;
  trace_id: string | null;
  metadata: Record<string, unknown>;
  occurred_at: Date;
}

export const tenantAuditColumns = 'id, seq, action, actor_type, actor_id, resource_type, resource_id, client_ip, trace_id, metadata, occurred_at';

/** The `limit` most recent entries, most recent first (rows of one transaction in reverse order of writing). */
export async function recentTenantAudit(db: Queryable, limit: number): Promise<TenantAuditRow[]> {
  const { rows } = await db.query<TenantAuditRow>(`select ${tenantAuditColumns} from audit_log order by occurred_at desc, seq desc limit $1`, [limit]);
  return rows;
}

/** The whole audit log of the tenant schema, in order (the remediation export's sheet). */
export const allTenantAuditSql = `select ${tenantAuditColumns} from audit_log order by occurred_at, seq`;

/** A tenant user acting through the product surface, as their audit rows name them. */
export interface TenantUserActor {
  userId: string;
  clientIp: string | null;
}

/** The audit row of a tenant user's change to one resource (a CAP, a review …). */
export function recordUserChange(
  db: Queryable,
  actor: TenantUserActor,
  action: string,
  resource: { type: string; id: string },
  metadata: Record<string, unknown>,
): Promise<void> {
  return recordTenantAudit(db, {
    action,
    actorType: 'user',
    actorId: actor.userId,
    resourceType: resource.type,
    resourceId: resource.id,
    clientIp: actor.clientIp,
    metadata,
  });
}
