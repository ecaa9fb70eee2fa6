/** One-time password-reset tokens (control schema), stored only as SHA-256 hashes. */
import type { Queryable } from '../lib/db.ts';

export type ResetSubject = { kind: 'employee'; employeeId: string } | { kind: 'tenant_user'; tenantId: string; userId: string };

export interface PasswordResetRow {
  id: string;
  subject_type: 'employee' | 'tenant_user';
  employee_id: string | null;
  tenant_id: string | null;
  tenant_user_id: string | null;
  expires_at: Date;
}

export async function insertPasswordReset(db: Queryable, subject: ResetSubject, tokenHash: string, expiresAt: Date): Promise<void> {
  await db.query(
    `insert into password_reset_tokens (token_hash, subject_type, employee_id, tenant_id, tenant_user_id, expires_at) values ($1, $2, $3, $4, $5, $6)`,
    [
      tokenHash,
      subject.kind,
      subject.kind === 'employee' ? subject.employeeId : null,
      subject.kind === 'tenant_user' ? subject.tenantId : null,
      subject.kind === 'tenant_user' ? subject.userId : null,
      expiresAt,
    ],
  );
}

/** Marks the unused, unexpired token of this kind used and returns it; null when there is none. */
export async function consumePasswordReset(db: Queryable, tokenHash: string, kind: ResetSubject['kind'], now: Date): Promise<PasswordResetRow | null> {
  const { rows } = await db.query<PasswordResetRow>(
    `update password_reset_tokens set used_at = $3
      where token_hash = $1 and subject_type = $2 and used_at is null and expires_at > $3
      returning id, subject_type, employee_id, tenant_id, tenant_user_id, expires_at`,
    [tokenHash, kind, now],
  );
  return rows[0] ?? null;
}
