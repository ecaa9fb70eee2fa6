/** What every /admin/tenants/{tenant_id}/… route shares: the path parameter and the 404. */
import { z } from 'zod';
import type { TenantRow } from '../../../sql/tenants.ts';
import { lifecycleStates } from '../../../domain/tenantLifecycle.ts';

export const tenantParams = z.object({ tenant_id: z.uuid() });

/**
 * The answer of POST provision and POST train: the spec's `{status: queued, job_id}`, a repeat included (the
 * status routes tell how the job fares); only a failed or cancelled job that was not queued again says so.
 */
export const queuedSchema = z.object({ status: z.enum(['queued', 'failed', 'cancelled']), job_id: z.uuid() });

export const queuedBody = (job: { id: string; status: string }) => ({
  status: job.status === 'failed' || job.status === 'cancelled' ? job.status : ('queued' as const),
  job_id: job.id,
});

export { requireTenant } from '../../../usecases/tenants/requireTenant.ts';

export const tenantSchema = z
  .object({
    id: z.uuid(),
    slug: z.string(),
    company: z.string(),
    industry: z.string().nullable(),
    lifecycle_state: z.enum(lifecycleStates),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ title: 'Tenant' });

export const tenantBody = (t: TenantRow) => ({
  id: t.id,
  slug: t.slug,
  company: t.company,
  industry: t.industry,
  lifecycle_state: t.lifecycle_state,
  created_at: t.created_at,
  updated_at: t.updated_at,
});
