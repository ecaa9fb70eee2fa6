/**
 * Who changes a workspace over /v1 (a user, a service account or an API key, and the caller's
 * address), and the audit row each such change writes with that actor.
 */
import type { Queryable } from '../lib/db.ts';
import { auditActor, recordAudit } from '../sql/audit.ts';

export interface WorkspaceActor {
  kind: 'user' | 'service_account' | 'api_key';
  workspaceId: string;
  /** The human behind the token (users only). */
  userId: string | null;
  /** User, service-account or API-key id: the actor recorded in audit rows. */
  subjectId: string;
  clientIp: string;
}

/** Records `action` on `target` in the workspace's audit log, by the actor, from the actor's address. */
export function recordActorAudit(
  db: Queryable,
  actor: WorkspaceActor,
  action: string,
  target: { type: string; id: string },
  metadata?: Record<string, unknown>,
): Promise<void> {
  return recordAudit(db, {
    workspaceId: actor.workspaceId,
    action,
    ...auditActor(actor),
    targetType: target.type,
    targetId: target.id,
    clientIp: actor.clientIp,
    metadata,
  });
}
