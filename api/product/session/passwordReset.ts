/**
 * Password reset for staff (/admin/password-reset/…) and tenant users (/password-reset/…). A request
 * always answers the same 202, whether or not the account exists; for an existing active account it
 * mails a one-time link (1 hour) through the outbox job. Confirm is rate limited per client IP, then
 * uses up the token before any password hashing (an invalid token costs no scrypt, so anonymous
 * requests cannot saturate the thread pool logins need), then sets the new password and revokes every
 * session of the account, all in one transaction.
 */
import { z } from 'zod';
import type { AppContext } from '../../../lib/context.ts';
import { randomToken, sha256Hex } from '../../../lib/crypto.ts';
import { withTransaction } from '../../../lib/db.ts';
import { AppError } from '../../../lib/errors.ts';
import { hashPassword, MIN_PASSWORD_LENGTH } from '../../../lib/passwords.ts';
import { queueMail } from '../../../jobs/queue/mail__send.ts';
import { recordControlAudit } from '../../../sql/controlAudit.ts';
import { findEmployeeByEmail, revokeAllEmployeeSessions, setEmployeePassword } from '../../../sql/employees.ts';
import { consumePasswordReset, insertPasswordReset } from '../../../sql/passwordResets.ts';
import { recordTenantAudit } from '../../../sql/tenant/audit.ts';
import { findTenant, findTenantBySlug } from '../../../sql/tenants.ts';
import { useTenantSchema, withTenant } from '../../../sql/tenant/schema.ts';
import { revokeAllTenantSessions } from '../../../sql/tenant/sessions.ts';
import { findTenantUserByEmail, setTenantUserPassword } from '../../../sql/tenant/users.ts';
import { reply } from '../../http/routes.ts';
import { detailSchema } from '../errors.ts';
import { productRoute } from '../route.ts';
import { requestIp, requestUserAgent } from './identity.ts';
import { enforceResetConfirmRateLimit, enforceResetRateLimit, staffAccountKey, tenantAccountKey } from '../../../usecases/loginRateLimit.ts';
import { isLive } from '../../../domain/tenantLifecycle.ts';

const RESET_TTL_MS = 60 * 60 * 1000;
const REQUESTED = 'If the account exists, a password reset link has been sent to its e-mail address.';
const INVALID_TOKEN = 'Invalid or expired password reset token.';

const newPassword = z.string().min(MIN_PASSWORD_LENGTH).max(1024);
const email = z.string().trim().min(1).max(320);
const confirmBody = z.object({ token: z.string().min(1).max(200), password: newPassword });

const expiresAt = (app: AppContext) => new Date(app.clock.now().getTime() + RESET_TTL_MS);
const mailText = (url: string) =>
  `A password reset was requested for your svc account.\n\nChoose a new password: ${url}\n\nThe link works once and expires in 1 hour. If you did not ask for this, ignore this e-mail.`;

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
      await enforceResetRateLimit(app, req.clientIp, staffAccountKey(body.email));
      const employee = await findEmployeeByEmail(app.pool, body.email);
      if (employee?.active) {
        const token = randomToken(32);
        await withTransaction(app.pool, async (client) => {
          await insertPasswordReset(client, { kind: 'employee', employeeId: employee.id }, sha256Hex(token), expiresAt(app));
          const url = `${app.config.APP_URL}/admin/reset-password?token=${encodeURIComponent(token)}`;
          await queueMail(client, { to: employee.email, subject: 'Reset your svc staff password', text: mailText(url) });
        });
      }
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
      await enforceResetConfirmRateLimit(app, req.clientIp);
      await withTransaction(app.pool, async (client) => {
        const reset = await consumePasswordReset(client, sha256Hex(body.token), 'employee', app.clock.now());
        if (!reset) throw new AppError('bad_request', INVALID_TOKEN);
        await setEmployeePassword(client, reset.employee_id!, await hashPassword(body.password));
        await revokeAllEmployeeSessions(client, reset.employee_id!, app.clock.now());
        await recordControlAudit(client, {
          action: 'employee_password_reset',
          actorType: 'employee',
          actorId: reset.employee_id,
          resourceType: 'employee',
          resourceId: reset.employee_id!,
          clientIp: requestIp(req),
          userAgent: requestUserAgent(req),
        });
      });
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
      const tenant = await findTenantBySlug(app.pool, body.workspace);
      await enforceResetRateLimit(app, req.clientIp, tenant && tenantAccountKey(tenant.id, body.email));
      const live = tenant && isLive(tenant.lifecycle_state) ? tenant : null;
      const user = live && (await withTenant(app.pool, live.schema_name, (client) => findTenantUserByEmail(client, body.email)));
      if (live && user?.active) {
        const token = randomToken(32);
        await withTransaction(app.pool, async (client) => {
          await insertPasswordReset(client, { kind: 'tenant_user', tenantId: live.id, userId: user.id }, sha256Hex(token), expiresAt(app));
          const url = `${app.config.APP_URL}/reset-password?workspace=${encodeURIComponent(live.slug)}&token=${encodeURIComponent(token)}`;
          await queueMail(client, { to: user.email, subject: `Reset your ${live.company} password on svc`, text: mailText(url), tenantId: live.id });
        });
      }
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
      await enforceResetConfirmRateLimit(app, req.clientIp);
      await withTransaction(app.pool, async (client) => {
        const reset = await consumePasswordReset(client, sha256Hex(body.token), 'tenant_user', app.clock.now());
        const tenant = reset && (await findTenant(client, reset.tenant_id!));
        if (!reset || !tenant) throw new AppError('bad_request', INVALID_TOKEN);
        await useTenantSchema(client, tenant.schema_name);
        await setTenantUserPassword(client, reset.tenant_user_id!, await hashPassword(body.password));
        await revokeAllTenantSessions(client, reset.tenant_user_id!, app.clock.now());
        await recordTenantAudit(client, {
          action: 'password_reset',
          actorType: 'user',
          actorId: reset.tenant_user_id,
          resourceType: 'user',
          resourceId: reset.tenant_user_id!,
          clientIp: requestIp(req),
        });
      });
      return reply.noContent();
    },
  }),
];
