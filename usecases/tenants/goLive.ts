/**
 * Taking a tenant live (POST /admin/tenants/{tenant_id}/go-live): the prerequisites of
 * domain/goLive.ts, read from the tenant's schema, else 409 `{message, missing}`; the transition and
 * the tenant audit row `tenant_go_live` commit together. Going live again when live changes nothing.
 */
import type { AppContext } from '../../lib/context.ts';
import { withTransaction } from '../../lib/db.ts';
import { conflict } from '../../lib/errors.ts';
import { GO_LIVE_FROM, type GoLiveFacts, missingPrerequisites, NOT_READY } from '../../domain/goLive.ts';
import { recordTenantAudit } from '../../sql/tenant/audit.ts';
import { hasActiveCheckpoint } from '../../sql/tenant/checkpoints.ts';
import { latestDataset } from '../../sql/tenant/datasets.ts';
import { hasUsableInvitation } from '../../sql/tenant/invitations.ts';
import { useTenantSchema, withTenant } from '../../sql/tenant/schema.ts';
import { transitionTenant, type TenantRow } from '../../sql/tenants.ts';
import { hasOnboardingSchema, requireTenant } from './requireTenant.ts';

async function goLiveFacts(app: AppContext, tenant: TenantRow): Promise<GoLiveFacts> {
  if (!(await hasOnboardingSchema(app.pool, tenant))) return { dataset: false, checkpoint: false, invitation: false };
  return withTenant(app.pool, tenant.schema_name, async (db) => ({
    dataset: (await latestDataset(db)) !== null,
    checkpoint: await hasActiveCheckpoint(db),
    invitation: await hasUsableInvitation(db, app.clock.now()),
  }));
}

export async function goLive(app: AppContext, tenantId: string, by: { employeeId: string; clientIp: string | null }): Promise<TenantRow> {
  const tenant = await requireTenant(app.pool, tenantId);
  const missing = missingPrerequisites(await goLiveFacts(app, tenant));
  if (missing.length) throw conflict(NOT_READY, { message: NOT_READY, missing });
  return withTransaction(app.pool, async (client) => {
    const moved = await transitionTenant(client, tenant.id, GO_LIVE_FROM, 'live');
    if (!moved) return requireTenant(client, tenant.id);
    await useTenantSchema(client, tenant.schema_name);
    await recordTenantAudit(client, {
      action: 'tenant_go_live',
      actorType: 'employee',
      actorId: by.employeeId,
      resourceType: 'tenant',
      resourceId: tenant.id,
      clientIp: by.clientIp,
      metadata: { from: tenant.lifecycle_state },
    });
    return moved;
  });
}
