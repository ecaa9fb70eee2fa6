/**
 * The sign-in decision, without I/O. After an identity resolved to a membership (or to just-in-time
 * provisioning) and before a token pair is issued:
 * - a workspace with `sso_required` accepts only a sign-in through its SSO connection;
 * - a user with a verified second factor must present `mfa_code` (TOTP or SMS code, or a recovery
 *   code); without one, each open SMS factor is sent a fresh code and the answer is 403 `mfa_required`;
 *   with every factor locked, 429.
 * And a sign-in's lifetime: refresh tokens live 30 days and rotate on every use; presenting a rotated
 * one revokes the whole sign-in (reuse detection); after 30 days it ends however often it was refreshed.
 * usecases/signInPolicy.ts and usecases/refreshSession.ts apply these with the database.
 */
import { AppError } from '../lib/errors.ts';
import { factorLocked } from './mfaFactors.ts';

/** How a sign-in began: a subject token (exchange, invitation acceptance) or an SSO connection. */
export type SignInMethod = 'exchange' | 'sso';

export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** A sign-in's absolute lifetime: however often it is refreshed, after this the user exchanges again. */
export const TOKEN_FAMILY_MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;

export const ssoRequired = () => new AppError('sso_required', 'This workspace requires sign-in through its SSO connection');

export const mfaRequired = (factors: ReadonlyArray<{ id: string; type: string }>) =>
  new AppError('mfa_required', 'This account has a second factor: repeat the request with mfa_code', {
    mfa_code: 'is required',
    factors: factors.map((f) => ({ id: f.id, type: f.type })),
  });

export const wrongMfaCode = () => new AppError('invalid_grant', 'The mfa_code is incorrect or expired', { mfa_code: 'is incorrect or expired' });

/** The refusal when the workspace demands SSO and the sign-in did not come through it, else null. */
export function methodRefused(workspace: { sso_required: boolean }, method: SignInMethod): AppError | null {
  return workspace.sso_required && method !== 'sso' ? ssoRequired() : null;
}

/**
 * What a sign-in must do about the user's verified factors, given whether an `mfa_code` came with it:
 * - `proceed`: no factor, issue the token pair;
 * - `challenge`: send each of `smsFactors` (the open ones) a fresh code, then refuse with `error` (`mfa_required`);
 * - `locked`: every factor is locked, refuse with `error` (429);
 * - `check_code`: try the code against the `open` factors, then the recovery codes; a wrong code
 *   counts against every open factor (wrongMfaCode).
 */
export type FactorStep<F> =
  | { step: 'proceed' }
  | { step: 'challenge'; smsFactors: F[]; error: AppError }
  | { step: 'locked'; error: AppError }
  | { step: 'check_code'; open: F[] };

export function nextFactorStep<F extends { id: string; type: 'totp' | 'sms'; locked_until: Date | null }>(
  factors: readonly F[],
  hasCode: boolean,
  now: Date,
): FactorStep<F> {
  if (!factors.length) return { step: 'proceed' };
  const open = factors.filter((f) => !factorLocked(f, now));
  if (!hasCode) return { step: 'challenge', smsFactors: open.filter((f) => f.type === 'sms'), error: mfaRequired(factors) };
  if (!open.length) return { step: 'locked', error: factorLocked(factors[0], now)! };
  return { step: 'check_code', open };
}

/**
 * Why a presented refresh token cannot be rotated, or null when it can (membership and SSO are
 * checked against the database afterwards): `reused` revokes the whole sign-in, `absolute_lifetime`
 * ends it, `expired` only refuses.
 */
export function refreshRefusal(
  token: { expires_at: Date; rotated_at: Date | null },
  family: { created_at: Date },
  now: Date,
): 'reused' | 'expired' | 'absolute_lifetime' | null {
  if (token.rotated_at) return 'reused';
  if (token.expires_at.getTime() <= now.getTime()) return 'expired';
  if (family.created_at.getTime() + TOKEN_FAMILY_MAX_AGE_MS <= now.getTime()) return 'absolute_lifetime';
  return null;
}
