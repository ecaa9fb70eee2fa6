/**
 * A tenant user's login (POST /login): the login rate limits (per IP, and per account of a live
 * tenant) are taken before any password or user row is read; only a live tenant's active users sign
 * in (domain/tenantLifecycle.ts `isLive`), and every refusal is the same 401 whatever was wrong. A
 * password hashed with old parameters is re-hashed; the session is opened by usecases/tenantSessions.ts.
 */
import type { AppContext } from '../lib/context.ts';
import { AppError } from '../lib/errors.ts';
import { upgradedHash, verifyPassword } from '../lib/passwords.ts';
import { isLive } from '../domain/tenantLifecycle.ts';
import { withTenant } from '../sql/tenant/schema.ts';
import { findTenantUserByEmail, upgradeTenantUserPasswordHash } from '../sql/tenant/users.ts';
import { findTenantBySlug } from '../sql/tenants.ts';
import { enforceLoginRateLimit, tenantAccountKey } from './loginRateLimit.ts';
import { mintTenantSession, type MintedTenantSession, type SessionOrigin } from './tenantSessions.ts';

export const INVALID_TENANT_LOGIN = 'Invalid workspace, email, or password.';

export async function tenantLogin(
  app: AppContext,
  input: { workspace: string; email: string; password: string },
  clientIp: string,
  from: SessionOrigin,
): Promise<MintedTenantSession> {
  const found = await findTenantBySlug(app.pool, input.workspace);
  const tenant = found && isLive(found.lifecycle_state) ? found : null;
  await enforceLoginRateLimit(app, clientIp, tenant && tenantAccountKey(tenant.id, input.email));
  const user = tenant && (await withTenant(app.pool, tenant.schema_name, (client) => findTenantUserByEmail(client, input.email)));
  const usable = user?.active ? user : null;
  // Always one scrypt, so an unknown workspace or user answers in the time of a wrong password.
  const ok = await verifyPassword(input.password, usable?.password_hash);
  if (!tenant || !usable || !ok) throw new AppError('unauthorized', INVALID_TENANT_LOGIN);
  const upgraded = await upgradedHash(input.password, usable.password_hash!);
  if (upgraded) await withTenant(app.pool, tenant.schema_name, (client) => upgradeTenantUserPasswordHash(client, usable.id, usable.password_hash!, upgraded));
  return withTenant(app.pool, tenant.schema_name, (client) => mintTenantSession(app, client, from, tenant, usable));
}
