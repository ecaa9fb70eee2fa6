/**
 * The tenant registry and provisioning (staff): create, list, get, provision and its status. Reads
 * are open to every staff role; writes need `onboarding_admin` and CSRF (the guard's default).
 */
import { z } from 'zod';
import { provisionJobKey } from '../../../jobs/queue/tenant__provision.ts';
import { findJobRunByKey, jobStatuses } from '../../../sql/jobRuns.ts';
import { listTenants } from '../../../sql/tenants.ts';
import { createTenant } from '../../../usecases/tenants/createTenant.ts';
import { startProvisioning } from '../../../usecases/tenants/startProvisioning.ts';
import { reply } from '../../http/routes.ts';
import { detailSchema } from '../errors.ts';
import { productRoute } from '../route.ts';
import { queuedBody, queuedSchema, requireTenant, tenantBody, tenantParams, tenantSchema } from './lookup.ts';

const provisionStatusSchema = z.object({
  status: z.enum(['not_started', ...jobStatuses]),
  progress: z.number().int(),
  steps_completed: z.array(z.string()),
  error_detail: z.string().nullable(),
});

export const tenantRoutes = [
  productRoute({
    method: 'post',
    path: '/admin/tenants',
    operationId: 'create_tenant',
    summary: 'Create a tenant (state draft)',
    tags: ['onboarding'],
    auth: 'staff',
    body: z.object({
      slug: z.string().min(3).max(63).describe('3-63 lowercase letters, digits and hyphens; no leading or trailing hyphen'),
      company: z.string().trim().min(1).max(200),
      industry: z.string().trim().min(1).max(100).nullish(),
    }),
    responses: {
      201: { description: 'Created', schema: tenantSchema },
      409: { description: "Tenant slug '<slug>' already exists.", schema: detailSchema },
      422: { description: 'Validation failed; a slug breaking the character rule has a string detail' },
    },
    handler: async ({ app, body }) =>
      reply.created(tenantBody(await createTenant(app, { slug: body.slug, company: body.company, industry: body.industry ?? null }))),
  }),
  productRoute({
    method: 'get',
    path: '/admin/tenants',
    operationId: 'list_tenants',
    summary: 'The tenant registry (unpaginated, oldest first)',
    tags: ['onboarding'],
    auth: 'staff',
    responses: { 200: { description: 'Every tenant', schema: z.array(tenantSchema) } },
    handler: async ({ app }) => reply.ok((await listTenants(app.pool)).map(tenantBody)),
  }),
  productRoute({
    method: 'get',
    path: '/admin/tenants/{tenant_id}',
    operationId: 'get_tenant',
    summary: 'One tenant',
    tags: ['onboarding'],
    auth: 'staff',
    params: tenantParams,
    responses: {
      200: { description: 'The tenant', schema: tenantSchema },
      404: { description: 'Tenant not found.', schema: detailSchema },
    },
    handler: async ({ app, params }) => reply.ok(tenantBody(await requireTenant(app.pool, params.tenant_id))),
  }),
  productRoute({
    method: 'post',
    path: '/admin/tenants/{tenant_id}/provision',
    operationId: 'provision_tenant',
    summary: 'Queue provisioning of the tenant’s schema',
    description:
      'Idempotent through the durable job key `provision:{tenant_id}`: a repeat returns the existing job_id; a failed or ' +
      'cancelled provisioning is queued again and resumes where it stopped. Poll `/provision/status` for the job’s state.',
    tags: ['onboarding'],
    auth: 'staff',
    params: tenantParams,
    responses: {
      202: { description: '`{status: queued, job_id}` (a repeat: the existing job_id)', schema: queuedSchema },
      404: { description: 'Tenant not found.', schema: detailSchema },
      409: { description: "Tenant is '<state>'; provisioning only applies to draft/onboarding tenants.", schema: detailSchema },
    },
    handler: async ({ app, params }) => reply.accepted(queuedBody(await startProvisioning(app, params.tenant_id))),
  }),
  productRoute({
    method: 'get',
    path: '/admin/tenants/{tenant_id}/provision/status',
    operationId: 'provision_status',
    summary: 'Provisioning job status (`not_started` when none was queued)',
    tags: ['onboarding'],
    auth: 'staff',
    params: tenantParams,
    responses: {
      200: { description: 'Job status', schema: provisionStatusSchema },
      404: { description: 'Tenant not found.', schema: detailSchema },
    },
    handler: async ({ app, params }) => {
      const tenant = await requireTenant(app.pool, params.tenant_id);
      const job = await findJobRunByKey(app.pool, provisionJobKey(tenant.id));
      if (!job) return reply.ok({ status: 'not_started', progress: 0, steps_completed: [], error_detail: null });
      return reply.ok({ status: job.status, progress: job.progress, steps_completed: job.steps_completed, error_detail: job.error_detail });
    },
  }),
];
