/** Workspace invitations of the /v1 surface; the token is stored only as its SHA-256 hash. */
import type { Queryable } from '../lib/db.ts';
import { equalityFilters, type ListSource } from './pagination.ts';

export interface InvitationRow extends Record<string, unknown> {
  id: string;
  workspace_id: string;
  email: string;
  role: 'owner' | 'admin' | 'member' | 'viewer';
  status: 'pending' | 'accepted' | 'revoked';
  invited_by: string | null;
  expires_at: Date;
  accepted_at: Date | null;
  accepted_by: string | null;
  created_at: Date;
}

const columns = 'id, workspace_id, email, role, status, invited_by, expires_at, accepted_at, accepted_by, created_at';

export async function insertInvitation(
  db: Queryable,
  inv: { workspaceId: string; email: string; role: string; tokenHash: string; invitedBy: string | null; expiresAt: Date },
): Promise<InvitationRow> {
  const { rows } = await db.query<InvitationRow>(
    `insert into invitations (workspace_id, email, role, token_hash, invited_by, expires_at)
     values ($1, $2, $3, $4, $5, $6) returning ${columns}`,
    [inv.workspaceId, inv.email, inv.role, inv.tokenHash, inv.invitedBy, inv.expiresAt],
  );
  return rows[0];
}

export async function lockInvitationByTokenHash(db: Queryable, tokenHash: string): Promise<InvitationRow | null> {
  const { rows } = await db.query<InvitationRow>(`select ${columns} from invitations where token_hash = $1 for update`, [tokenHash]);
  return rows[0] ?? null;
}

export async function findInvitation(db: Queryable, workspaceId: string, id: string): Promise<InvitationRow | null> {
  const { rows } = await db.query<InvitationRow>(`select ${columns} from invitations where workspace_id = $1 and id::text = $2`, [workspaceId, id]);
  return rows[0] ?? null;
}

export async function markInvitationAccepted(db: Queryable, id: string, userId: string): Promise<void> {
  await db.query(`update invitations set status = 'accepted', accepted_at = now(), accepted_by = $2 where id = $1`, [id, userId]);
}

export async function revokeInvitation(db: Queryable, workspaceId: string, id: string): Promise<InvitationRow | null> {
  const { rows } = await db.query<InvitationRow>(
    `update invitations set status = 'revoked' where workspace_id = $1 and id::text = $2 and status = 'pending' returning ${columns}`,
    [workspaceId, id],
  );
  return rows[0] ?? null;
}

export const invitationColumns = columns;

/** Revokes the pending invitations of an address (a new invitation replaces them). */
export async function revokePendingInvitations(db: Queryable, workspaceId: string, email: string): Promise<void> {
  await db.query(`update invitations set status = 'revoked' where workspace_id = $1 and lower(email) = $2 and status = 'pending'`, [workspaceId, email]);
}

export async function latestPendingInvitation(db: Queryable, workspaceId: string, email: string): Promise<{ id: string; expires_at: Date } | null> {
  const { rows } = await db.query<{ id: string; expires_at: Date }>(
    `select id, expires_at from invitations where workspace_id = $1 and lower(email) = $2 and status = 'pending' order by created_at desc limit 1`,
    [workspaceId, email],
  );
  return rows[0] ?? null;
}

/** GET /v1/invitations. */
export function invitationList(workspaceId: string, f: { status?: string }): ListSource {
  return {
    ...equalityFilters({ workspace_id: workspaceId, status: f.status }),
    select: invitationColumns,
    from: 'invitations',
    sortColumns: { created_at: { expr: 'created_at', type: 'timestamptz' } },
    idExpr: 'id',
  };
}
