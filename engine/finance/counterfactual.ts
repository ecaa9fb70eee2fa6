/**
 * What a fix would have avoided, looking back from `asOf`: the occurrences of a pattern in the
 * window [fixAt, asOf] (the whole history up to asOf without `fixAt`), each avoided with probability
 * r = `reduction` (default 1: the fix removes the pattern). With n occurrences in the window the
 * avoided count is Binomial(n, r) (independent thinning): estimate r·n, interval its exact
 * (1 ∓ level)/2 quantiles. The avoided cost is Σ over the window of Bernoulli(r) · cᵢ with cᵢ the
 * occurrence's cost under the rate card (occurrenceCost): estimate r·Σcᵢ, interval by the normal
 * approximation r·Σcᵢ ± z·√(r(1 - r)·Σcᵢ²), clamped to [0, Σcᵢ]. With r = 1 both are exact (no interval
 * width). Occurrences after `asOf` are ignored.
 */
import type { RateCardConfig } from '../config/rateCard.ts';
import { checkLevel } from '../hazard/fit.ts';
import { normalQuantile } from '../hazard/normalQuantile.ts';
import { logGamma } from '../hazard/regularizedGamma.ts';
import { parseIsoTime } from '../time.ts';
import { occurrenceCost, type Severity } from './occurrenceCost.ts';

export interface CounterfactualInput {
  /** The pattern's occurrences: ISO times and the severities that price them. */
  occurrences: ReadonlyArray<{ at: string; severity: Severity }>;
  /** ISO time the fix would have been in place from; omitted: the whole history. */
  fixAt?: string;
  /** Share of occurrences the fix removes, in (0, 1]; default 1. */
  reduction?: number;
  rateCard: RateCardConfig;
  /** ISO end of the window. */
  asOf: string;
  /** Level of the intervals (default 0.9). */
  level?: number;
}

export interface CounterfactualRange {
  estimate: number;
  lower: number;
  upper: number;
}

export interface CounterfactualResult {
  fix_at: string | null;
  reduction: number;
  /** ISO start of the window (fix_at, or the first occurrence; null without occurrences) and its end (as_of). */
  window_start: string | null;
  window_end: string;
  level: number;
  currency: string;
  /** Occurrences in the window and their cost (what happened). */
  occurrences_in_window: number;
  cost_in_window: number;
  /** What the fix would have avoided. */
  occurrences_avoided: CounterfactualRange;
  cost_avoided: CounterfactualRange;
}

const parseTime = (value: string, what: string) => parseIsoTime(value, 'counterfactual', what);

/** Smallest k with P(Binomial(n, r) ≤ k) ≥ p. */
export function binomialQuantile(n: number, r: number, p: number): number {
  if (r <= 0) return 0;
  if (r >= 1) return n;
  const logR = Math.log(r);
  const logQ = Math.log1p(-r);
  const logChoose = logGamma(n + 1);
  let cdf = 0;
  for (let k = 0; k < n; k++) {
    cdf += Math.exp(logChoose - logGamma(k + 1) - logGamma(n - k + 1) + k * logR + (n - k) * logQ);
    if (cdf >= p) return k;
  }
  return n;
}

export function counterfactual(input: CounterfactualInput): CounterfactualResult {
  const asOf = parseTime(input.asOf, 'asOf');
  const fixAt = input.fixAt === undefined ? null : parseTime(input.fixAt, 'fixAt');
  if (fixAt !== null && fixAt > asOf) throw new RangeError('counterfactual: fixAt must not be after asOf');
  const reduction = input.reduction ?? 1;
  if (!(reduction > 0 && reduction <= 1)) throw new RangeError(`counterfactual: reduction must be in (0, 1], got ${reduction}`);
  const level = input.level ?? 0.9;
  checkLevel(level, 'counterfactual');

  let n = 0;
  let sum = 0;
  let sumSquares = 0;
  let first = Infinity;
  input.occurrences.forEach((o, i) => {
    const t = parseTime(o.at, `occurrences[${i}].at`);
    if (t > asOf || (fixAt !== null && t < fixAt)) return;
    const c = occurrenceCost(input.rateCard, o.severity);
    n++;
    sum += c;
    sumSquares += c * c;
    if (t < first) first = t;
  });
  const z = normalQuantile(0.5 + level / 2);
  const costSpread = z * Math.sqrt(reduction * (1 - reduction) * sumSquares);
  return {
    fix_at: fixAt === null ? null : new Date(fixAt).toISOString(),
    reduction,
    window_start: fixAt !== null ? new Date(fixAt).toISOString() : n ? new Date(first).toISOString() : null,
    window_end: new Date(asOf).toISOString(),
    level,
    currency: input.rateCard.currency,
    occurrences_in_window: n,
    cost_in_window: sum,
    occurrences_avoided: {
      estimate: reduction * n,
      lower: binomialQuantile(n, reduction, (1 - level) / 2),
      upper: binomialQuantile(n, reduction, (1 + level) / 2),
    },
    cost_avoided: { estimate: reduction * sum, lower: Math.max(0, reduction * sum - costSpread), upper: Math.min(sum, reduction * sum + costSpread) },
  };
}
