/**
 * A client tenant's lifecycle (product-api.md, states table) and the gates that read it. Pure.
 *
 *   draft ──provision──> provisioning ──> onboarding ──go-live──> live ──> offboarded
 *
 * Provisioning may run (again) from draft, provisioning or onboarding; onboarding data goes only into
 * a provisioned tenant (onboarding or live); only a live tenant's users sign in.
 */
import { type AppError, conflict } from '../lib/errors.ts';

export const lifecycleStates = ['draft', 'provisioning', 'onboarding', 'live', 'offboarded'] as const;
export type LifecycleState = (typeof lifecycleStates)[number];

/** States from which provisioning may run. */
export const PROVISIONABLE_STATES: readonly LifecycleState[] = ['draft', 'provisioning', 'onboarding'];

/** States whose schema holds the onboarding tables. */
export const PROVISIONED_STATES: readonly LifecycleState[] = ['onboarding', 'live'];

export const isProvisioned = (state: LifecycleState) => PROVISIONED_STATES.includes(state);
export const beforeProvisioning = (state: LifecycleState) => state === 'draft' || state === 'provisioning';

/** Whether provisioning may run (again) in this state. */
export const mayProvision = (state: LifecycleState) => PROVISIONABLE_STATES.includes(state);

/**
 * Whether the tenant is in service: only a live tenant's users sign in (login, password reset, an
 * existing session), are listed in the workspace picker, and can be impersonated by staff.
 */
export const isLive = (state: LifecycleState) => state === 'live';

/**
 * The 409 for onboarding data sent to a tenant that is not provisioned, or null when it is. A route
 * may word the refusal for a tenant not provisioned yet (train's "no dataset").
 */
export function onboardingDataRefusal(state: LifecycleState, unprovisionedMessage?: string): AppError | null {
  if (isProvisioned(state)) return null;
  return conflict(
    beforeProvisioning(state) && unprovisionedMessage
      ? unprovisionedMessage
      : `Tenant is '${state}'; onboarding data needs a provisioned tenant -- provision it first.`,
  );
}

/** A tenant's slug (its schema and workspace name): lowercase letters, digits and hyphens, no hyphen at either end. */
export const TENANT_SLUG_RULE = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
export const TENANT_SLUG_MESSAGE = 'Slug must contain only lowercase letters, digits and hyphens, and must not start or end with a hyphen.';
