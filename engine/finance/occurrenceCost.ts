/**
 * The cost of one occurrence of a given severity under the rate card:
 * c(s) = cost_per_occurrence[s] + downtime_hours[s] · downtime_cost_per_hour, in the rate card's currency.
 */
import type { RateCardConfig } from '../config/rateCard.ts';

export type Severity = keyof RateCardConfig['cost_per_occurrence'];

export function occurrenceCost(rateCard: RateCardConfig, severity: Severity): number {
  const cost = rateCard.cost_per_occurrence[severity];
  if (cost === undefined) throw new RangeError(`occurrenceCost: unknown severity '${String(severity)}'`);
  return cost + rateCard.downtime_hours[severity] * rateCard.downtime_cost_per_hour;
}
