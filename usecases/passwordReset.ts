/**
 * Password reset for staff and tenant users (the product surface's /admin/password-reset/… and
 * /password-reset/…). A request is budgeted like a login and, for an existing active account (of a live
 * tenant), mails a one-time link valid 1 hour through the outbox job; the caller answers the same
 * whether or not the account exists. Confirm is rate limited per client IP, then uses up the token
 * before any password hashing (an invalid token costs no scrypt, so anonymous requests cannot saturate
 * the thread pool logins need), then sets the new password and revokes every session of the account,
 * all in one transaction.
 */
import type { AppContext } from '../lib/context.ts';
import { randomToken, sha256Hex } from '../lib/crypto.ts';
import { withTransaction } from '../lib/db.ts';
import { AppError } from '../lib/errors.ts';
import { hashPassword } from '../lib/passwords.ts';
import { isLive } from '../domain/tenantLifecycle.ts';
import { queueMail } from '../jobs/queue/mail__send.ts';
import { recordControlAudit } from '../sql/controlAudit.ts';
import { findEmployeeByEmail, revokeAllEmployeeSessions, setEmployeePassword } from '../sql/employees.ts';
import { consumePasswordReset, insertPasswordReset } from '../sql/passwordResets.ts';
import { recordTenantAudit } from '../sql/tenant/audit.ts';
import { useTenantSchema, withTenant } from '../sql/tenant/schema.ts';
import { revokeAllTenantSessions } from '../sql/tenant/sessions.ts';
import { findTenantUserByEmail, setTenantUserPassword } from '../sql/tenant/users.ts';
import { findTenant, findTenantBySlug } from '../sql/tenants.ts';
import { enforceResetConfirmRateLimit, enforceResetRateLimit, staffAccountKey, tenantAccountKey } from './loginRateLimit.ts';
import type { SessionOrigin } from './tenantSessions.ts';

const RESET_TTL_MS = 60 * 60 * 1000;
export const INVALID_RESET_TOKEN = 'Invalid or expired password reset token.';

const expiresAt = (app: AppContext) => new Date(app.clock.now().getTime() + RESET_TTL_MS);
const mailText = (url: string) =>
  `A password reset was requested for your svc account.\n\nChoose a new password: ${url}\n\nThe link works once and expires in 1 hour. If you did not ask for this, ignore this e-mail.`;

export async function requestStaffPasswordReset(app: AppContext, email: string, clientIp: string): Promise<void> {
  await enforceResetRateLimit(app, clientIp, staffAccountKey(email));
  const employee = await findEmployeeByEmail(app.pool, email);
  if (!employee?.active) return;
  const token = randomToken(32);
  await withTransaction(app.pool, async (client) => {
    await insertPasswordReset(client, { kind: 'employee', employeeId: employee.id }, sha256Hex(token), expiresAt(app));
    const url = `${app.config.APP_URL}/admin/reset-password?token=${encodeURIComponent(token)}`;
    await queueMail(client, { to: employee.email, subject: 'Reset your svc staff password', text: mailText(url) });
  });
}

export async function confirmStaffPasswordReset(app: AppContext, token: string, password: string, clientIp: string, from: SessionOrigin): Promise<void> {
  await enforceResetConfirmRateLimit(app, clientIp);
  await withTransaction(app.pool, async (client) => {
    const reset = await consumePasswordReset(client, sha256Hex(token), 'employee', app.clock.now());
    if (!reset) throw new AppError('bad_request', INVALID_RESET_TOKEN);
    await setEmployeePassword(client, reset.employee_id!, await hashPassword(password));
    await revokeAllEmployeeSessions(client, reset.employee_id!, app.clock.now());
    await recordControlAudit(client, {
      action: 'employee_password_reset',
      actorType: 'employee',
      actorId: reset.employee_id,
      resourceType: 'employee',
      resourceId: reset.employee_id!,
      clientIp: from.ip,
      userAgent: from.userAgent,
    });
  });
}

export async function requestTenantPasswordReset(app: AppContext, workspace: string, email: string, clientIp: string): Promise<void> {
  const tenant = await findTenantBySlug(app.pool, workspace);
  await enforceResetRateLimit(app, clientIp, tenant && tenantAccountKey(tenant.id, email));
  const live = tenant && isLive(tenant.lifecycle_state) ? tenant : null;
  const user = live && (await withTenant(app.pool, live.schema_name, (client) => findTenantUserByEmail(client, email)));
  if (!live || !user?.active) return;
  const token = randomToken(32);
  await withTransaction(app.pool, async (client) => {
    await insertPasswordReset(client, { kind: 'tenant_user', tenantId: live.id, userId: user.id }, sha256Hex(token), expiresAt(app));
    const url = `${app.config.APP_URL}/reset-password?workspace=${encodeURIComponent(live.slug)}&token=${encodeURIComponent(token)}`;
    await queueMail(client, { to: user.email, subject: `Reset your ${live.company} password on svc`, text: mailText(url), tenantId: live.id });
  });
}

export async function confirmTenantPasswordReset(app: AppContext, token: string, password: string, clientIp: string, from: SessionOrigin): Promise<void> {
  await enforceResetConfirmRateLimit(app, clientIp);
  await withTransaction(app.pool, async (client) => {
    const reset = await consumePasswordReset(client, sha256Hex(token), 'tenant_user', app.clock.now());
    const tenant = reset && (await findTenant(client, reset.tenant_id!));
    if (!reset || !tenant) throw new AppError('bad_request', INVALID_RESET_TOKEN);
    await useTenantSchema(client, tenant.schema_name);
    await setTenantUserPassword(client, reset.tenant_user_id!, await hashPassword(password));
    await revokeAllTenantSessions(client, reset.tenant_user_id!, app.clock.now());
    await recordTenantAudit(client, {
      action: 'password_reset',
      actorType: 'user',
      actorId: reset.tenant_user_id,
      resourceType: 'user',
      resourceId: reset.tenant_user_id!,
      clientIp: from.ip,
    });
  });
}
