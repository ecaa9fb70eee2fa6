/**
 * The severity vocabulary of an issue: the four stored values and the aliases accepted on input
 * (p1..p4, sev1..sev4), stored normalised. Pure: no I/O.
 */
export const severities = ['critical', 'high', 'medium', 'low'] as const;
export type Severity = (typeof severities)[number];

/** Severity aliases accepted on input, stored normalised. */
const severityAliases: Record<string, Severity> = {
  critical: 'critical',
  p1: 'critical',
  sev1: 'critical',
  high: 'high',
  p2: 'high',
  sev2: 'high',
  medium: 'medium',
  p3: 'medium',
  sev3: 'medium',
  low: 'low',
  p4: 'low',
  sev4: 'low',
};
export const severityInputs = Object.keys(severityAliases);
export const DEFAULT_SEVERITY: Severity = 'medium';

export function normalizeSeverity(value: string): Severity | null {
  return severityAliases[value.trim().toLowerCase()] ?? null;
}
