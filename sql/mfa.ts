/** Second factors (TOTP and SMS), their recovery codes and the SMS outbox. */
import type { Queryable } from '../lib/db.ts';
import type { ListSource } from './pagination.ts';

export interface FactorRow {
  id: string;
  user_id: string;
  type: 'totp' | 'sms';
  status: 'pending' | 'verified';
  secret_ciphertext: string | null;
  phone_number: string | null;
  challenge_hash: string | null;
  challenge_expires_at: Date | null;
  last_used_step: string | null;
  failed_attempts: number;
  locked_until: Date | null;
  created_at: Date;
  verified_at: Date | null;
}

export async function insertFactor(
  db: Queryable,
  factor: { userId: string; type: 'totp' | 'sms'; secretCiphertext?: string; phoneNumber?: string },
): Promise<FactorRow> {
  const { rows } = await db.query<FactorRow>(`insert into mfa_factors (user_id, type, secret_ciphertext, phone_number) values ($1, $2, $3, $4) returning *`, [
    factor.userId,
    factor.type,
    factor.secretCiphertext ?? null,
    factor.phoneNumber ?? null,
  ]);
  return rows[0];
}

export async function factorsOfUser(db: Queryable, userId: string): Promise<FactorRow[]> {
  const { rows } = await db.query<FactorRow>('select * from mfa_factors where user_id = $1 order by created_at, id', [userId]);
  return rows;
}

/** The user's factor, row-locked for a verification attempt. */
export async function lockFactor(db: Queryable, userId: string, id: string): Promise<FactorRow | null> {
  const { rows } = await db.query<FactorRow>('select * from mfa_factors where user_id = $1 and id = $2 for update', [userId, id]);
  return rows[0] ?? null;
}

export async function lockVerifiedFactors(db: Queryable, userId: string): Promise<FactorRow[]> {
  const { rows } = await db.query<FactorRow>(`select * from mfa_factors where user_id = $1 and status = 'verified' order by created_at, id for update`, [
    userId,
  ]);
  return rows;
}

export async function setChallenge(db: Queryable, id: string, challengeHash: string, expiresAt: Date): Promise<void> {
  await db.query('update mfa_factors set challenge_hash = $2, challenge_expires_at = $3 where id = $1', [id, challengeHash, expiresAt]);
}

/** A correct code: the factor is verified, its step (TOTP) remembered, its challenge (SMS) spent. */
export async function recordFactorSuccess(db: Queryable, id: string, usedStep: number | null): Promise<FactorRow> {
  const { rows } = await db.query<FactorRow>(
    `update mfa_factors set status = 'verified', verified_at = coalesce(verified_at, now()),
       last_used_step = coalesce($2, last_used_step), failed_attempts = 0, locked_until = null,
       challenge_hash = null, challenge_expires_at = null
     where id = $1 returning *`,
    [id, usedStep],
  );
  return rows[0];
}

/** A wrong code: counts the attempt and locks the factor until `lockUntil` at the `maxAttempts`th. */
export async function recordFactorFailure(db: Queryable, id: string, maxAttempts: number, lockUntil: Date): Promise<void> {
  await db.query(
    `update mfa_factors set
       locked_until = case when failed_attempts + 1 >= $2 then $3 else locked_until end,
       failed_attempts = case when failed_attempts + 1 >= $2 then 0 else failed_attempts + 1 end
     where id = $1`,
    [id, maxAttempts, lockUntil],
  );
}

export async function deleteFactor(db: Queryable, userId: string, id: string): Promise<boolean> {
  const result = await db.query('delete from mfa_factors where user_id = $1 and id = $2', [userId, id]);
  return (result.rowCount ?? 0) > 0;
}

export async function hasVerifiedFactor(db: Queryable, userId: string): Promise<boolean> {
  const { rows } = await db.query(`select 1 from mfa_factors where user_id = $1 and status = 'verified' limit 1`, [userId]);
  return rows.length > 0;
}

export async function replaceRecoveryCodes(db: Queryable, userId: string, codeHashes: string[]): Promise<void> {
  await db.query('delete from mfa_recovery_codes where user_id = $1', [userId]);
  await db.query('insert into mfa_recovery_codes (user_id, code_hash) select $1, unnest($2::text[])', [userId, codeHashes]);
}

export async function deleteRecoveryCodes(db: Queryable, userId: string): Promise<void> {
  await db.query('delete from mfa_recovery_codes where user_id = $1', [userId]);
}

/** Spends an unused recovery code; false when there is none with this hash. */
export async function useRecoveryCode(db: Queryable, userId: string, codeHash: string): Promise<boolean> {
  const result = await db.query('update mfa_recovery_codes set used_at = now() where user_id = $1 and code_hash = $2 and used_at is null', [userId, codeHash]);
  return (result.rowCount ?? 0) > 0;
}

/**
 * Records a text message. A message handed to the gateway keeps no body (it carried a one-time code);
 * a `logged` one (no SMS_WEBHOOK_URL: development) keeps it for the developer until the daily purge.
 */
export async function insertOutboxSms(db: Queryable, to: string, body: string, status: 'logged' | 'sent' | 'failed'): Promise<void> {
  await db.query('insert into outbox_sms (to_number, body, status) values ($1, $2, $3)', [to, status === 'logged' ? body : SMS_ERASED, status]);
}
export const SMS_ERASED = '[erased after delivery]';

/** GET /v1/mfa/factors: the caller's own factors. */
export function factorList(userId: string): ListSource {
  return {
    select: '*',
    from: 'mfa_factors',
    where: ['user_id = $1'],
    params: [userId],
    sortColumns: { created_at: { expr: 'created_at', type: 'timestamptz' } },
    idExpr: 'id',
  };
}
