/**
 * Authentication rule 8: in a workspace that enforces MFA, a member without a verified factor gets
 * 403 `mfa_required` on every request except the MFA routes (where they enrol). Whether the factor is
 * missing comes with the sign-in's own lookup (`liveSignIn`).
 */
import type { Request } from 'express';
import { AppError } from '../../../lib/errors.ts';

const MFA_ROUTES = '/v1/mfa/';

export function assertMfaEnrolment(mfaMissing: boolean, req: Request): void {
  if (!mfaMissing || req.routeTemplate?.startsWith(MFA_ROUTES)) return;
  throw new AppError('mfa_required', 'This workspace requires multi-factor authentication: enrol a factor at /v1/mfa/factors');
}
