/**
 * Invitations to a tenant's workspace (inside its schema). The token is stored only as its SHA-256
 * hash; an invitation is `pending` until accepted, and usable until `expires_at`.
 */
import type { Queryable } from '../../lib/db.ts';
import { recordTenantAudit } from './audit.ts';

export interface TenantInvitationRow {
  id: string;
  email: string;
  full_name: string | null;
  role_profile: string;
  status: 'pending' | 'accepted';
  invited_by: string | null;
  expires_at: Date;
  created_at: Date;
  accepted_at: Date | null;
  accepted_user_id: string | null;
}

const columns = 'id, email, full_name, role_profile, status, invited_by, expires_at, created_at, accepted_at, accepted_user_id';

export async function insertTenantInvitation(
  db: Queryable,
  inv: { email: string; fullName: string | null; roleProfile: string; tokenHash: string; invitedBy: string; expiresAt: Date },
): Promise<TenantInvitationRow> {
  const { rows } = await db.query<TenantInvitationRow>(
    `insert into invitations (email, full_name, role_profile, token_hash, invited_by, expires_at)
     values (lower($1), $2, $3, $4, $5, $6) returning ${columns}`,
    [inv.email, inv.fullName, inv.roleProfile, inv.tokenHash, inv.invitedBy, inv.expiresAt],
  );
  await recordTenantAudit(db, {
    action: 'invitation_created',
    actorType: 'employee',
    actorId: inv.invitedBy,
    resourceType: 'invitation',
    resourceId: rows[0].id,
    metadata: { email: rows[0].email, role_profile: inv.roleProfile },
  });
  return rows[0];
}

export async function listTenantInvitations(db: Queryable): Promise<TenantInvitationRow[]> {
  const { rows } = await db.query<TenantInvitationRow>(`select ${columns} from invitations order by created_at desc, id desc`);
  return rows;
}

/** The invitation with this token hash; `lock` keeps it locked for the rest of the transaction. */
export async function findTenantInvitationByTokenHash(db: Queryable, tokenHash: string, lock = false): Promise<TenantInvitationRow | null> {
  const { rows } = await db.query<TenantInvitationRow>(`select ${columns} from invitations where token_hash = $1 ${lock ? 'for update' : ''}`, [tokenHash]);
  return rows[0] ?? null;
}

export async function markTenantInvitationAccepted(db: Queryable, id: string, userId: string, now: Date): Promise<void> {
  await db.query(`update invitations set status = 'accepted', accepted_at = $3, accepted_user_id = $2 where id = $1`, [id, userId, now]);
}

/** An accepted invitation, or a pending one not yet expired, exists (a go-live prerequisite). */
export async function hasUsableInvitation(db: Queryable, now: Date): Promise<boolean> {
  const { rows } = await db.query(`select 1 from invitations where status = 'accepted' or (status = 'pending' and expires_at > $1) limit 1`, [now]);
  return rows.length > 0;
}
