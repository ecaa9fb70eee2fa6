/**
 * Enrolling and checking second factors (the rules: domain/mfaFactors.ts). TOTP (lib/totp.ts): the
 * secret is sealed at rest (as the base32 text the authenticator app also holds), a code is accepted
 * within one step of drift and a step is never accepted twice. SMS: a 6-digit code, kept only as a
 * hash, valid 5 minutes. Every factor allows 5 wrong codes, then locks for 15 minutes (429
 * `rate_limited` with Retry-After). Recovery codes are stored hashed and work once.
 */
import { randomBytes, randomInt } from 'node:crypto';
import type { AppContext } from '../lib/context.ts';
import { constantTimeEqual, sha256Hex } from '../lib/crypto.ts';
import { withTransaction, type Queryable } from '../lib/db.ts';
import { AppError } from '../lib/errors.ts';
import { openSecret, sealSecret } from '../lib/secretBox.ts';
import { smsSender } from './sendSms.ts';
import { base32Decode, base32Encode, matchTotpStep, otpauthUri } from '../lib/totp.ts';
import { recordAudit } from '../sql/audit.ts';
import * as mfa from '../sql/mfa.ts';
import { findUser } from '../sql/users.ts';
import {
  factorLocked,
  lockUntil,
  MAX_FAILED_ATTEMPTS,
  normalizeRecoveryCode,
  RECOVERY_CODE_COUNT,
  SMS_CODE_TTL_MS,
  smsChallengeOpen,
  totpStepUsable,
} from '../domain/mfaFactors.ts';

const TOTP_ISSUER = 'svc';

export type FactorCheck = { ok: true; step: number | null } | { ok: false };

const smsCodeHash = (factorId: string, code: string) => sha256Hex(`${factorId}:${code}`);
const recoveryCodeHash = (userId: string, code: string) => sha256Hex(`${userId}:${normalizeRecoveryCode(code)}`);

export async function enrolTotp(app: AppContext, userId: string, account: string) {
  const secret = randomBytes(20);
  const factor = await mfa.insertFactor(app.pool, { userId, type: 'totp', secretCiphertext: sealSecret(app.secrets.encryptionKey, base32Encode(secret)) });
  return { factor, otpauthUri: otpauthUri(secret, account, TOTP_ISSUER) };
}

export async function enrolSms(app: AppContext, userId: string, phoneNumber: string) {
  return withTransaction(app.pool, async (client) => {
    const factor = await mfa.insertFactor(client, { userId, type: 'sms', phoneNumber });
    await sendSmsChallenge(app, client, factor);
    return factor;
  });
}

/** Sends a fresh code to an SMS factor (enrolment, or a sign-in that needs the second factor). */
export async function sendSmsChallenge(app: AppContext, db: Queryable, factor: mfa.FactorRow): Promise<void> {
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  await mfa.setChallenge(db, factor.id, smsCodeHash(factor.id, code), new Date(app.clock.now().getTime() + SMS_CODE_TTL_MS));
  await smsSender(app).send(db, factor.phone_number!, `Your svc verification code is ${code}. It expires in 5 minutes.`);
}

/** Whether `code` is right for this factor now (without recording anything). */
export function checkFactorCode(app: AppContext, factor: mfa.FactorRow, code: string): FactorCheck {
  const now = app.clock.now();
  if (factor.type === 'totp') {
    const secret = base32Decode(openSecret(app.secrets.encryptionKey, factor.secret_ciphertext!));
    const step = matchTotpStep(secret, code, now.getTime());
    if (step === null || !totpStepUsable(factor, step)) return { ok: false };
    return { ok: true, step };
  }
  if (!smsChallengeOpen(factor, now)) return { ok: false };
  return constantTimeEqual(smsCodeHash(factor.id, code), factor.challenge_hash!) ? { ok: true, step: null } : { ok: false };
}

/** POST /v1/mfa/factors/{id}/verify: a correct code verifies the factor; wrong ones count toward the lock. */
export async function verifyFactor(app: AppContext, userId: string, factorId: string, code: string): Promise<mfa.FactorRow> {
  const outcome = await withTransaction(app.pool, async (client) => {
    const factor = await mfa.lockFactor(client, userId, factorId);
    if (!factor) return { error: new AppError('not_found', 'MFA factor not found') };
    const now = app.clock.now();
    const locked = factorLocked(factor, now);
    if (locked) return { error: locked };
    const check = checkFactorCode(app, factor, code);
    if (!check.ok) {
      await mfa.recordFactorFailure(client, factor.id, MAX_FAILED_ATTEMPTS, lockUntil(now));
      return { error: new AppError('validation_error', 'The code is incorrect or expired', { code: 'is incorrect or expired' }) };
    }
    return { factor: await mfa.recordFactorSuccess(client, factor.id, check.step) };
  });
  // Failures are committed (they count toward the lock) before the caller hears about them.
  if ('error' in outcome) throw outcome.error;
  return outcome.factor!;
}

/** Replaces the user's recovery codes with fresh ones and returns them (shown once). */
export async function regenerateRecoveryCodes(app: AppContext, userId: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const raw = base32Encode(randomBytes(7)).slice(0, 10);
    return `${raw.slice(0, 5)}-${raw.slice(5)}`.toLowerCase();
  });
  await withTransaction(app.pool, async (client) => {
    if (!(await mfa.hasVerifiedFactor(client, userId))) throw new AppError('conflict', 'Verify a factor before generating recovery codes');
    await mfa.replaceRecoveryCodes(
      client,
      userId,
      codes.map((c) => recoveryCodeHash(userId, c)),
    );
  });
  return codes;
}

export const useRecoveryCode = (db: Queryable, userId: string, code: string) => mfa.useRecoveryCode(db, userId, recoveryCodeHash(userId, code));

/** Who manages their factors: a signed-in user, in the workspace of their token (the audit rows go there). */
export interface FactorOwner {
  userId: string;
  workspaceId: string;
  clientIp: string;
}

const auditFactor = (db: Queryable, owner: FactorOwner, action: string, targetId: string | null, metadata?: Record<string, unknown>) =>
  recordAudit(db, {
    workspaceId: owner.workspaceId,
    action,
    actorType: 'user',
    actorId: owner.userId,
    ...(targetId ? { targetType: 'mfa_factor', targetId } : {}),
    clientIp: owner.clientIp,
    ...(metadata ? { metadata } : {}),
  });

/** POST /v1/mfa/factors: a pending TOTP factor (with its otpauth URI, returned once) or SMS factor (sent a code). */
export async function enrolFactor(
  app: AppContext,
  owner: FactorOwner,
  input: { type: 'totp' } | { type: 'sms'; phone_number: string },
): Promise<{ id: string; type: 'totp' | 'sms'; status: 'pending'; otpauth_uri?: string }> {
  let result: { id: string; type: 'totp' | 'sms'; status: 'pending'; otpauth_uri?: string };
  if (input.type === 'totp') {
    const user = (await findUser(app.pool, owner.userId))!;
    const { factor, otpauthUri } = await enrolTotp(app, owner.userId, user.email);
    result = { id: factor.id, type: 'totp', status: 'pending', otpauth_uri: otpauthUri };
  } else {
    const factor = await enrolSms(app, owner.userId, input.phone_number);
    result = { id: factor.id, type: 'sms', status: 'pending' };
  }
  await auditFactor(app.pool, owner, 'mfa.factor.enrolled', result.id, { type: input.type });
  return result;
}

/** POST /v1/mfa/factors/{id}/verify, audited. */
export async function verifyOwnFactor(app: AppContext, owner: FactorOwner, factorId: string, code: string): Promise<mfa.FactorRow> {
  const factor = await verifyFactor(app, owner.userId, factorId, code);
  await auditFactor(app.pool, owner, 'mfa.factor.verified', factor.id);
  return factor;
}

/** DELETE /v1/mfa/factors/{id}: false when the user has no such factor. Recovery codes go with the last verified factor. */
export async function removeFactor(app: AppContext, owner: FactorOwner, factorId: string): Promise<boolean> {
  return withTransaction(app.pool, async (client) => {
    if (!(await mfa.deleteFactor(client, owner.userId, factorId))) return false;
    if (!(await mfa.hasVerifiedFactor(client, owner.userId))) await mfa.deleteRecoveryCodes(client, owner.userId);
    await auditFactor(client, owner, 'mfa.factor.removed', factorId);
    return true;
  });
}

/** POST /v1/mfa/recovery-codes, audited. */
export async function newRecoveryCodes(app: AppContext, owner: FactorOwner): Promise<string[]> {
  const codes = await regenerateRecoveryCodes(app, owner.userId);
  await auditFactor(app.pool, owner, 'mfa.recovery_codes.generated', null);
  return codes;
}
