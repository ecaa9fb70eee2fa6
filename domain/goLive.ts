/**
 * Tenant go-live prerequisites (product-api.md): a tenant goes live once it has historical data (a
 * dataset version), an active model checkpoint and at least one user invited (a pending, unexpired
 * invitation or an accepted one). Pure: the facts are read by usecases/tenants/goLive.ts.
 */
import type { LifecycleState } from './tenantLifecycle.ts';
import { lifecycleStates } from './tenantLifecycle.ts';

export const GO_LIVE_PREREQUISITES = {
  dataset: 'historical data ingested',
  checkpoint: 'a model checkpoint activated',
  invitation: 'at least one user invited',
} as const;
export type GoLivePrerequisite = (typeof GO_LIVE_PREREQUISITES)[keyof typeof GO_LIVE_PREREQUISITES];

export const NOT_READY = 'Tenant cannot go live yet; complete the missing prerequisites.';

/** What a tenant has of the prerequisites; a tenant whose schema has no onboarding tables has none. */
export interface GoLiveFacts {
  dataset: boolean;
  checkpoint: boolean;
  invitation: boolean;
}

/** The prerequisites the tenant lacks, in the order of the onboarding steps. */
export function missingPrerequisites(facts: GoLiveFacts): GoLivePrerequisite[] {
  return (Object.keys(GO_LIVE_PREREQUISITES) as Array<keyof GoLiveFacts>).filter((k) => !facts[k]).map((k) => GO_LIVE_PREREQUISITES[k]);
}

/** The states going live moves a tenant from: every one but `live` (going live again changes nothing). */
export const GO_LIVE_FROM: readonly LifecycleState[] = lifecycleStates.filter((s) => s !== 'live');
