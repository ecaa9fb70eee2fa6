/**
 * A client tenant's lifecycle (product-api.md, states table) and the gates that read it. Pure.
 *
 *   draft ──provision──> provisioning ──> onboarding ──go-live──> live ──> offboarded
 *
 * Provisioning may run (again) from draft, provisioning or onboarding; onboarding data goes only into
 * a provisioned tenant (onboarding or live); only a live tenant's users sign in.
 */
export const lifecycleStates = ['draft', 'provisioning', 'onboarding', 'live', 'offboarded'] as const;
export type LifecycleState = (typeof lifecycleStates)[number];

/** States from which provisioning may run. */
export const PROVISIONABLE_STATES: readonly LifecycleState[] = ['draft', 'provisioning', 'onboarding'];

/** States whose schema holds the onboarding tables. */
export const PROVISIONED_STATES: readonly LifecycleState[] = ['onboarding', 'live'];

export const isProvisioned = (state: LifecycleState) => PROVISIONED_STATES.includes(state);
export const beforeProvisioning = (state: LifecycleState) => state === 'draft' || state === 'provisioning';
