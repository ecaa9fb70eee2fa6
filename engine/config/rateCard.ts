/**
 * rate-card: what an occurrence costs and what a fix costs, for engine stage 10's financials.
 * cost of an occurrence = cost_per_occurrence[severity] + downtime_hours[severity] × downtime_cost_per_hour.
 */
import { z } from 'zod';

const bySeverity = z.strictObject({ critical: z.number().min(0), high: z.number().min(0), medium: z.number().min(0), low: z.number().min(0) });

export const rateCardSchema = z.strictObject({
  currency: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as USD'),
  cost_per_occurrence: bySeverity,
  downtime_hours: bySeverity,
  downtime_cost_per_hour: z.number().min(0),
  engineering_hourly_rate: z.number().min(0),
  default_fix_hours: z.number().min(0).max(10_000),
});
export type RateCardConfig = z.infer<typeof rateCardSchema>;

const knownCurrencies = new Set(Intl.supportedValuesOf('currency'));

export function checkRateCard(doc: RateCardConfig, issue: (path: string, message: string) => void): void {
  if (!knownCurrencies.has(doc.currency)) issue('currency', `'${doc.currency}' is not an ISO 4217 currency code`);
  const c = doc.cost_per_occurrence;
  if (!(c.critical >= c.high && c.high >= c.medium && c.medium >= c.low)) issue('cost_per_occurrence', 'must not decrease from critical to low');
}

export const defaultRateCard: RateCardConfig = {
  currency: 'USD',
  cost_per_occurrence: { critical: 25_000, high: 8_000, medium: 2_000, low: 300 },
  downtime_hours: { critical: 4, high: 1, medium: 0.25, low: 0 },
  downtime_cost_per_hour: 5_000,
  engineering_hourly_rate: 120,
  default_fix_hours: 40,
};
