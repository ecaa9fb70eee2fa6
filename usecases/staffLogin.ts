/**
 * An employee's login (POST /admin/login): the login rate limits are taken before any password is
 * read; only an active employee signs in, and every refusal is the same 401. A password hashed with
 * old parameters is re-hashed. The session (12 h, its token kept only as a hash) and the control
 * audit row `employee_login` commit together.
 */
import type { AppContext } from '../lib/context.ts';
import { randomToken, sha256Hex } from '../lib/crypto.ts';
import { withTransaction } from '../lib/db.ts';
import { AppError } from '../lib/errors.ts';
import { upgradedHash, verifyPassword } from '../lib/passwords.ts';
import { STAFF_SESSION_TTL_MS } from '../domain/productSessions.ts';
import { recordControlAudit } from '../sql/controlAudit.ts';
import { findEmployeeByEmail, insertEmployeeSession, upgradeEmployeePasswordHash, type EmployeeRow } from '../sql/employees.ts';
import { enforceLoginRateLimit, staffAccountKey } from './loginRateLimit.ts';
import type { SessionOrigin } from './tenantSessions.ts';

/** The employee signed in and the `svc_admin_session` token to set once this returns. */
export async function staffLogin(
  app: AppContext,
  input: { email: string; password: string },
  clientIp: string,
  from: SessionOrigin,
): Promise<{ employee: EmployeeRow; token: string }> {
  await enforceLoginRateLimit(app, clientIp, staffAccountKey(input.email));
  const employee = await findEmployeeByEmail(app.pool, input.email);
  const usable = employee?.active ? employee : null;
  // Always one scrypt, so an unknown or inactive employee answers in the time of a wrong password.
  const ok = await verifyPassword(input.password, usable?.password_hash);
  if (!usable || !ok) throw new AppError('unauthorized', 'Invalid email or password.');
  const upgraded = await upgradedHash(input.password, usable.password_hash);
  if (upgraded) await upgradeEmployeePasswordHash(app.pool, usable.id, usable.password_hash, upgraded);
  const token = randomToken(32);
  await withTransaction(app.pool, async (client) => {
    await insertEmployeeSession(client, {
      employeeId: usable.id,
      tokenHash: sha256Hex(token),
      ip: from.ip,
      userAgent: from.userAgent,
      expiresAt: new Date(app.clock.now().getTime() + STAFF_SESSION_TTL_MS),
    });
    await recordControlAudit(client, {
      action: 'employee_login',
      actorType: 'employee',
      actorId: usable.id,
      resourceType: 'employee',
      resourceId: usable.id,
      clientIp: from.ip,
      userAgent: from.userAgent,
    });
  });
  return { employee: usable, token };
}
