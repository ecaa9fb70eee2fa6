/**
 * The rules of second factors, without I/O: every factor allows 5 wrong codes, then locks for 15
 * minutes (429 `rate_limited` with Retry-After); an SMS code is valid 5 minutes; a TOTP step is never
 * accepted twice; recovery codes compare without case, spaces or dashes. Checking a code against a
 * secret, sending one and counting attempts is usecases/mfaFactors.ts.
 */
import { AppError } from '../lib/errors.ts';

export const MAX_FAILED_ATTEMPTS = 5;
export const LOCK_MS = 15 * 60_000;
export const SMS_CODE_TTL_MS = 5 * 60_000;
export const RECOVERY_CODE_COUNT = 10;

/** What the rules read of a factor. */
export interface FactorState {
  type: 'totp' | 'sms';
  locked_until: Date | null;
  last_used_step: string | null;
  challenge_hash: string | null;
  challenge_expires_at: Date | null;
}

const lockedError = (lockedUntil: Date, now: Date) =>
  new AppError('rate_limited', 'Too many wrong codes for this factor; try again later', undefined, {
    'Retry-After': String(Math.max(1, Math.ceil((lockedUntil.getTime() - now.getTime()) / 1000))),
  });

/** The lock error when the factor is locked now, else null. */
export function factorLocked(factor: Pick<FactorState, 'locked_until'>, now: Date): AppError | null {
  return factor.locked_until && factor.locked_until > now ? lockedError(factor.locked_until, now) : null;
}

/** Until when a factor locks once it reaches MAX_FAILED_ATTEMPTS wrong codes. */
export const lockUntil = (now: Date) => new Date(now.getTime() + LOCK_MS);

/** A TOTP step matched now may be used only after the factor's last used one (no replay). */
export function totpStepUsable(factor: Pick<FactorState, 'last_used_step'>, step: number): boolean {
  return factor.last_used_step === null || step > Number(factor.last_used_step);
}

/** Whether the factor's SMS challenge can still be answered now. */
export function smsChallengeOpen(factor: Pick<FactorState, 'challenge_hash' | 'challenge_expires_at'>, now: Date): boolean {
  return factor.challenge_hash !== null && factor.challenge_expires_at !== null && factor.challenge_expires_at > now;
}

/** The form a recovery code is compared in: upper case, no spaces or dashes (`abcde-fghij` = `ABCDEFGHIJ`). */
export const normalizeRecoveryCode = (code: string) => code.toUpperCase().replace(/[\s-]/g, '');
