/**
 * What the onboarding-data routes share: the tenant must exist (404 `Tenant not found.`) and own a
 * provisioned schema, i.e. be `onboarding` or `live` (409 otherwise), before data goes into it.
 */
import { z } from 'zod';
import type { Queryable } from '../../../lib/db.ts';
import { conflict } from '../../../lib/errors.ts';
import type { TenantRow } from '../../../sql/tenants.ts';
import { requireTenant } from '../tenants/lookup.ts';

export const detailSchema = z.object({ detail: z.string() });

export const PROVISIONED_STATES = ['onboarding', 'live'] as const;

export async function requireProvisionedTenant(db: Queryable, tenantId: string): Promise<TenantRow> {
  const tenant = await requireTenant(db, tenantId);
  if (!(PROVISIONED_STATES as readonly string[]).includes(tenant.lifecycle_state)) {
    throw conflict(`Tenant is '${tenant.lifecycle_state}'; onboarding data needs a provisioned tenant -- provision it first.`);
  }
  return tenant;
}

export const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());
