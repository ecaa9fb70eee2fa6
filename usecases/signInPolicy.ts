/**
 * What a workspace and a user's own factors demand of a sign-in, after the identity has resolved to
 * a membership (exchange rule 1) and before a token pair is issued:
 * - `sso_required`: only a sign-in through the workspace's SSO connection is accepted;
 * - a user with a verified second factor must present `mfa_code` (a TOTP or SMS code, or a recovery
 *   code); without one, an SMS factor is sent a fresh code and the answer is 403 `mfa_required`.
 * The outcome is returned rather than thrown so that what it recorded (attempt counters, the SMS
 * challenge, the audit row) commits with the caller's transaction.
 */
import type { AppContext } from '../lib/context.ts';
import type { Queryable } from '../lib/db.ts';
import { AppError } from '../lib/errors.ts';
import { recordAudit } from '../sql/audit.ts';
import * as mfa from '../sql/mfa.ts';
import type { SignInMethod } from '../sql/tokenFamilies.ts';
import type { WorkspaceRow } from '../sql/workspaces.ts';
import { ssoRequired } from './tokenPairs.ts';
import { checkFactorCode, factorLocked, LOCK_MS, MAX_FAILED_ATTEMPTS, sendSmsChallenge, useRecoveryCode } from './mfaFactors.ts';

export interface SignInPolicyInput {
  method: SignInMethod;
  mfaCode?: string;
}

/** Null when the sign-in may proceed; otherwise the error to answer. `userId` is null for a user not created yet (JIT). */
export async function signInBlocked(
  app: AppContext,
  db: Queryable,
  workspace: Pick<WorkspaceRow, 'id'> & { sso_required: boolean },
  userId: string | null,
  input: SignInPolicyInput,
  clientIp: string,
): Promise<AppError | null> {
  const blocked = async (error: AppError, reason: string) => {
    await recordAudit(db, {
      workspaceId: workspace.id,
      action: 'auth.login.blocked',
      actorType: 'user',
      actorId: userId,
      clientIp,
      metadata: { reason, method: input.method },
    });
    return error;
  };
  if (workspace.sso_required && input.method !== 'sso') {
    return blocked(ssoRequired(), 'sso_required');
  }
  if (!userId) return null;
  const factors = await mfa.lockVerifiedFactors(db, userId);
  if (!factors.length) return null;
  const now = app.clock.now();
  const open = factors.filter((f) => !factorLocked(f, now));
  if (!input.mfaCode) {
    for (const factor of open) if (factor.type === 'sms') await sendSmsChallenge(app, db, factor);
    return blocked(
      new AppError('mfa_required', 'This account has a second factor: repeat the request with mfa_code', {
        mfa_code: 'is required',
        factors: factors.map((f) => ({ id: f.id, type: f.type })),
      }),
      'mfa_code_missing',
    );
  }
  if (!open.length) return factorLocked(factors[0], now);
  for (const factor of open) {
    const check = checkFactorCode(app, factor, input.mfaCode);
    if (check.ok) {
      await mfa.recordFactorSuccess(db, factor.id, check.step);
      return null;
    }
  }
  if (await useRecoveryCode(db, userId, input.mfaCode)) {
    await recordAudit(db, { workspaceId: workspace.id, action: 'auth.mfa.recovery_code_used', actorType: 'user', actorId: userId, clientIp });
    return null;
  }
  const lockUntil = new Date(now.getTime() + LOCK_MS);
  for (const factor of open) await mfa.recordFactorFailure(db, factor.id, MAX_FAILED_ATTEMPTS, lockUntil);
  return blocked(new AppError('invalid_grant', 'The mfa_code is incorrect or expired', { mfa_code: 'is incorrect or expired' }), 'mfa_code_wrong');
}
