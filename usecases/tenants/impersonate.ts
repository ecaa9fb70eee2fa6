/**
 * An employee impersonating a live tenant (POST /admin/tenants/{tenant_id}/impersonate): a real tenant
 * session as the tenant's earliest-created active user, audited in the control log
 * (`employee_impersonation`, actor the employee, resource the user) and in the tenant's own log, in
 * the same transaction as the session. 409 for a tenant not live (domain/tenantLifecycle.ts `isLive`)
 * or without an active user.
 */
import type { AppContext } from '../../lib/context.ts';
import { conflict } from '../../lib/errors.ts';
import { isLive } from '../../domain/tenantLifecycle.ts';
import { recordControlAudit } from '../../sql/controlAudit.ts';
import { withTenant } from '../../sql/tenant/schema.ts';
import { earliestActiveUser } from '../../sql/tenant/users.ts';
import { mintTenantSession, type MintedTenantSession, type SessionOrigin } from '../tenantSessions.ts';
import { requireTenant } from './requireTenant.ts';

export interface Impersonator {
  employeeId: string;
  sessionId: string;
  email: string;
  fullName: string;
}

export async function impersonateTenant(app: AppContext, tenantId: string, staff: Impersonator, from: SessionOrigin): Promise<MintedTenantSession> {
  const tenant = await requireTenant(app.pool, tenantId);
  if (!isLive(tenant.lifecycle_state)) throw conflict('Tenant is not live yet.');
  return withTenant(app.pool, tenant.schema_name, async (client) => {
    const user = await earliestActiveUser(client);
    if (!user) throw conflict('Tenant has no active users to impersonate.');
    await recordControlAudit(client, {
      action: 'employee_impersonation',
      actorType: 'employee',
      actorId: staff.employeeId,
      resourceType: 'tenant_user',
      resourceId: user.id,
      tenantId: tenant.id,
      clientIp: from.ip,
      userAgent: from.userAgent,
      metadata: { workspace: tenant.slug, email: user.email },
    });
    return mintTenantSession(app, client, from, tenant, user, staff);
  });
}
