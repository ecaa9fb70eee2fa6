/**
 * POST /admin/tenants/{tenant_id}/go-live: the tenant becomes `live` once it has a dataset, an active
 * checkpoint and a pending (unexpired) or accepted invitation; otherwise 409 with
 * `{detail: {message, missing: [...]}}` naming exactly the prerequisites that are missing.
 */
import { z } from 'zod';
import { GO_LIVE_PREREQUISITES } from '../../../domain/goLive.ts';
import { goLive } from '../../../usecases/tenants/goLive.ts';
import { reply } from '../../http/routes.ts';
import { detailSchema } from '../errors.ts';
import { productRoute } from '../route.ts';
import { tenantBody, tenantParams, tenantSchema } from '../tenants/lookup.ts';

const missingSchema = z.object({
  detail: z.object({
    message: z.string(),
    missing: z.array(z.enum(Object.values(GO_LIVE_PREREQUISITES) as [string, ...string[]])),
  }),
});

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
    handler: async ({ app, req, params, staff }) =>
      reply.ok(tenantBody(await goLive(app, params.tenant_id, { employeeId: staff.employeeId, clientIp: req.clientIp ?? null }))),
  }),
];
