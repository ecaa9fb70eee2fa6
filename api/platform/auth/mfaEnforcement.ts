/**
 * Authentication rule 8: in a workspace that enforces MFA, a member without a verified factor gets
 * 403 `mfa_required` on every request except the MFA routes (where they enrol).
 */
import type { Request } from 'express';
import type { AppContext } from '../../../lib/context.ts';
import { AppError } from '../../../lib/errors.ts';
import { mfaEnrolmentMissing } from '../../../sql/mfa.ts';

const MFA_ROUTES = '/v1/mfa/';

export async function assertMfaEnrolment(app: AppContext, workspaceId: string, userId: string, req: Request): Promise<void> {
  if (req.routeTemplate?.startsWith(MFA_ROUTES)) return;
  if (await mfaEnrolmentMissing(app.pool, workspaceId, userId)) {
    throw new AppError('mfa_required', 'This workspace requires multi-factor authentication: enrol a factor at /v1/mfa/factors');
  }
}
