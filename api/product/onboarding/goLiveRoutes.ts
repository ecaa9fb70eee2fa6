/**
 * POST /admin/tenants/{tenant_id}/go-live: the tenant becomes `live` once it has a dataset, an active
 * checkpoint and a pending (unexpired) or accepted invitation; otherwise 409 with
 * `{detail: {message, missing: [...]}}` naming exactly the prerequisites that are missing.
 */
import { z } from 'zod';
import type { AppContext } from '../../../lib/context.ts';
import { withTransaction } from '../../../lib/db.ts';
import { conflict } from '../../../lib/errors.ts';
import { hasActiveCheckpoint } from '../../../sql/tenant/checkpoints.ts';
import { latestDataset } from '../../../sql/tenant/datasets.ts';
import { recordTenantAudit } from '../../../sql/tenant/audit.ts';
import { hasUsableInvitation } from '../../../sql/tenant/invitations.ts';
import { transitionTenant, type TenantRow } from '../../../sql/tenants.ts';
import { lifecycleStates } from '../../../domain/tenantLifecycle.ts';
import { useTenantSchema, withTenant } from '../../../sql/tenant/schema.ts';
import { reply } from '../../http/routes.ts';
import { detailSchema } from '../errors.ts';
import { productRoute } from '../route.ts';
import { requireTenant, tenantBody, tenantParams, tenantSchema } from '../tenants/lookup.ts';
import { hasOnboardingSchema } from './provisioned.ts';

const GO_LIVE_PREREQUISITES = {
  dataset: 'historical data ingested',
  checkpoint: 'a model checkpoint activated',
  invitation: 'at least one user invited',
} as const;
const NOT_READY = 'Tenant cannot go live yet; complete the missing prerequisites.';

const missingSchema = z.object({
  detail: z.object({
    message: z.string(),
    missing: z.array(z.enum(Object.values(GO_LIVE_PREREQUISITES) as [string, ...string[]])),
  }),
});

/** The prerequisites the tenant lacks, in the order of the onboarding steps. */
async function missingPrerequisites(app: AppContext, tenant: TenantRow): Promise<string[]> {
  const all = Object.values(GO_LIVE_PREREQUISITES);
  if (!(await hasOnboardingSchema(app.pool, tenant))) return all;
  return withTenant(app.pool, tenant.schema_name, async (db) => {
    const missing: string[] = [];
    if (!(await latestDataset(db))) missing.push(GO_LIVE_PREREQUISITES.dataset);
    if (!(await hasActiveCheckpoint(db))) missing.push(GO_LIVE_PREREQUISITES.checkpoint);
    if (!(await hasUsableInvitation(db, app.clock.now()))) missing.push(GO_LIVE_PREREQUISITES.invitation);
    return missing;
  });
}

export const goLiveRoutes = [
  productRoute({
    method: 'post',
    path: '/admin/tenants/{tenant_id}/go-live',
    operationId: 'go_live',
    summary: 'Take the tenant live',
    description:
      'Prerequisites: historical data ingested (a dataset version exists), a model checkpoint activated, at least one user ' +
      'invited (a pending, unexpired invitation or an accepted one). Otherwise 409 with `detail.missing` listing exactly ' +
      'the missing ones. Going live again when live changes nothing.',
    tags: ['onboarding'],
    auth: 'staff',
    params: tenantParams,
    responses: {
      200: { description: 'The tenant, now live', schema: tenantSchema },
      404: { description: 'Tenant not found.', schema: detailSchema },
      409: { description: 'Missing prerequisites', schema: missingSchema },
    },
    handler: async ({ app, req, params, staff }) => {
      const tenant = await requireTenant(app.pool, params.tenant_id);
      const missing = await missingPrerequisites(app, tenant);
      if (missing.length) throw conflict(NOT_READY, { message: NOT_READY, missing });
      const live = await withTransaction(app.pool, async (client) => {
        const moved = await transitionTenant(
          client,
          tenant.id,
          lifecycleStates.filter((s) => s !== 'live'),
          'live',
        );
        if (!moved) return requireTenant(client, tenant.id);
        await useTenantSchema(client, tenant.schema_name);
        await recordTenantAudit(client, {
          action: 'tenant_go_live',
          actorType: 'employee',
          actorId: staff.employeeId,
          resourceType: 'tenant',
          resourceId: tenant.id,
          clientIp: req.clientIp ?? null,
          metadata: { from: tenant.lifecycle_state },
        });
        return moved;
      });
      return reply.ok(tenantBody(live));
    },
  }),
];
