/** Creating a tenant (POST /admin/tenants) in state `draft`: 422 for a slug breaking domain/tenantLifecycle.ts's rule, 409 for a taken one. */
import type { AppContext } from '../../lib/context.ts';
import { AppError, conflict } from '../../lib/errors.ts';
import { TENANT_SLUG_MESSAGE, TENANT_SLUG_RULE } from '../../domain/tenantLifecycle.ts';
import { insertTenant, type TenantRow } from '../../sql/tenants.ts';

export async function createTenant(app: AppContext, input: { slug: string; company: string; industry: string | null }): Promise<TenantRow> {
  if (!TENANT_SLUG_RULE.test(input.slug)) throw new AppError('unprocessable', TENANT_SLUG_MESSAGE);
  const tenant = await insertTenant(app.pool, input);
  if (!tenant) throw conflict(`Tenant slug '${input.slug}' already exists.`);
  return tenant;
}
