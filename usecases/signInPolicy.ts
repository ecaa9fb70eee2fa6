/**
 * Applying the sign-in policy (domain/signInPolicy.ts) to a resolved membership before a token pair
 * is issued: the SSO demand, then the user's second factors (send SMS challenges, check the code,
 * count wrong ones, use a recovery code). The outcome is returned rather than thrown so that what it
 * recorded (attempt counters, the SMS challenge, the audit row) commits with the caller's transaction.
 */
import type { AppContext } from '../lib/context.ts';
import type { Queryable } from '../lib/db.ts';
import type { AppError } from '../lib/errors.ts';
import { lockUntil, MAX_FAILED_ATTEMPTS } from '../domain/mfaFactors.ts';
import { methodRefused, nextFactorStep, wrongMfaCode, type SignInMethod } from '../domain/signInPolicy.ts';
import { recordAudit } from '../sql/audit.ts';
import * as mfa from '../sql/mfa.ts';
import type { WorkspaceRow } from '../sql/workspaces.ts';
import { checkFactorCode, sendSmsChallenge, useRecoveryCode } from './mfaFactors.ts';

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
  const refused = methodRefused(workspace, input.method);
  if (refused) return blocked(refused, 'sso_required');
  if (!userId) return null;
  const now = app.clock.now();
  const next = nextFactorStep(await mfa.lockVerifiedFactors(db, userId), input.mfaCode !== undefined && input.mfaCode !== '', now);
  switch (next.step) {
    case 'proceed':
      return null;
    case 'challenge':
      for (const factor of next.smsFactors) await sendSmsChallenge(app, db, factor);
      return blocked(next.error, 'mfa_code_missing');
    case 'locked':
      return next.error;
    case 'check_code': {
      const code = input.mfaCode!;
      for (const factor of next.open) {
        const check = checkFactorCode(app, factor, code);
        if (check.ok) {
          await mfa.recordFactorSuccess(db, factor.id, check.step);
          return null;
        }
      }
      if (await useRecoveryCode(db, userId, code)) {
        await recordAudit(db, { workspaceId: workspace.id, action: 'auth.mfa.recovery_code_used', actorType: 'user', actorId: userId, clientIp });
        return null;
      }
      for (const factor of next.open) await mfa.recordFactorFailure(db, factor.id, MAX_FAILED_ATTEMPTS, lockUntil(now));
      return blocked(wrongMfaCode(), 'mfa_code_wrong');
    }
  }
}
