/** The tenant record of the registry (GET /admin/tenants) and its lifecycle states. */
export interface Tenant {
  id: string;
  slug: string;
  company: string;
  industry: string | null;
  lifecycle_state: 'draft' | 'provisioning' | 'onboarding' | 'live' | 'offboarded';
  created_at: string;
  updated_at: string;
}

export const LIFECYCLE_STATES: Tenant['lifecycle_state'][] = ['draft', 'provisioning', 'onboarding', 'live', 'offboarded'];

export const formatDate = (iso: string | null | undefined) =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '—';
