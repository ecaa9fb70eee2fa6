/**
 * Password reset for staff (/admin/password-reset/…) and tenant users (/password-reset/…), the flows
 * in usecases/passwordReset.ts. A request always answers the same 202, whether or not the account
 * exists; confirm answers 204, or 400 for a token that is unknown, used or expired.
 */
import { z } from 'zod';
import { MIN_PASSWORD_LENGTH } from '../../../lib/passwords.ts';
import {
  confirmStaffPasswordReset,
  confirmTenantPasswordReset,
  INVALID_RESET_TOKEN,
  requestStaffPasswordReset,
  requestTenantPasswordReset,
} from '../../../usecases/passwordReset.ts';
import { reply } from '../../http/routes.ts';
import { detailSchema } from '../errors.ts';
import { productRoute } from '../route.ts';
import { sessionOrigin } from './identity.ts';

const REQUESTED = 'If the account exists, a password reset link has been sent to its e-mail address.';
const INVALID_TOKEN = INVALID_RESET_TOKEN;

const newPassword = z.string().min(MIN_PASSWORD_LENGTH).max(1024);
const email = z.string().trim().min(1).max(320);
const confirmBody = z.object({ token: z.string().min(1).max(200), password: newPassword });

const requestResponses = {
  202: { description: REQUESTED, schema: detailSchema },
  429: { description: 'Too many password reset requests. Try again later.', schema: detailSchema },
};
const confirmResponses = {
  204: { description: 'Password changed; every session of the account is revoked' },
  400: { description: INVALID_TOKEN, schema: detailSchema },
  429: { description: 'Too many password reset attempts. Try again later.', schema: detailSchema },
};

export const passwordResetRoutes = [
  productRoute({
    method: 'post',
    path: '/admin/password-reset/request',
    operationId: 'admin_password_reset_request',
    summary: 'Mail a staff password-reset link (never reveals whether the account exists)',
    tags: ['authentication'],
    auth: 'public',
    csrfExempt: true,
    body: z.object({ email }),
    responses: requestResponses,
    handler: async ({ app, req, body }) => {
      await requestStaffPasswordReset(app, body.email, req.clientIp);
      return reply.accepted({ detail: REQUESTED });
    },
  }),
  productRoute({
    method: 'post',
    path: '/admin/password-reset/confirm',
    operationId: 'admin_password_reset_confirm',
    summary: 'Set a new staff password with a reset token',
    tags: ['authentication'],
    auth: 'public',
    csrfExempt: true,
    body: confirmBody,
    responses: confirmResponses,
    handler: async ({ app, req, body }) => {
      await confirmStaffPasswordReset(app, body.token, body.password, req.clientIp, sessionOrigin(req));
      return reply.noContent();
    },
  }),
  productRoute({
    method: 'post',
    path: '/password-reset/request',
    operationId: 'password_reset_request',
    summary: 'Mail a tenant user a password-reset link (never reveals whether the account exists)',
    tags: ['authentication'],
    auth: 'public',
    csrfExempt: true,
    body: z.object({ workspace: z.string().trim().min(1).max(63), email }),
    responses: requestResponses,
    handler: async ({ app, req, body }) => {
      await requestTenantPasswordReset(app, body.workspace, body.email, req.clientIp);
      return reply.accepted({ detail: REQUESTED });
    },
  }),
  productRoute({
    method: 'post',
    path: '/password-reset/confirm',
    operationId: 'password_reset_confirm',
    summary: 'Set a new tenant-user password with a reset token',
    tags: ['authentication'],
    auth: 'public',
    csrfExempt: true,
    body: confirmBody.extend({ workspace: z.string().max(63).optional().describe('The workspace of the link (informational)') }),
    responses: confirmResponses,
    handler: async ({ app, req, body }) => {
      await confirmTenantPasswordReset(app, body.token, body.password, req.clientIp, sessionOrigin(req));
      return reply.noContent();
    },
  }),
];
