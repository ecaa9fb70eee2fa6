/**
 * Scores for probability forecasts of a binary outcome (did the pattern recur within the horizon?) and
 * for interval forecasts, used by the rolling-origin backtests:
 * - Brier score BS = (1/n) Σ (pᵢ - oᵢ)² (Brier 1950), 0 is perfect;
 * - Brier skill score BSS = 1 - BS / BS_ref with BS_ref = (1/n) Σ (b - oᵢ)² for a constant base-rate
 *   forecast b (Wilks 2011, Statistical Methods in the Atmospheric Sciences, §8.4.2); > 0 beats the base
 *   rate; undefined (null) when BS_ref = 0;
 * - calibration (reliability) bins: equal-width bins of p over [0, 1], each with its mean forecast and
 *   observed frequency (Wilks §8.4.4); p = 1 falls in the last bin;
 * - interval coverage: the share of actual values with lower ≤ actual ≤ upper.
 */

import { mean } from 'simple-statistics';

export type Outcome = boolean | 0 | 1;

function checkForecasts(p: readonly number[], o: readonly Outcome[], where: string): void {
  if (p.length !== o.length) throw new RangeError(`${where}: ${p.length} forecasts but ${o.length} outcomes`);
  if (p.length === 0) throw new RangeError(`${where}: no forecasts`);
  p.forEach((x, i) => {
    if (typeof x !== 'number' || !(x >= 0 && x <= 1)) throw new RangeError(`${where}: forecast ${i} must be a probability in [0, 1], got ${x}`);
  });
  o.forEach((x, i) => {
    if (x !== true && x !== false && x !== 0 && x !== 1) throw new RangeError(`${where}: outcome ${i} must be a boolean or 0/1, got ${String(x)}`);
  });
}

const value = (o: Outcome) => (o === true || o === 1 ? 1 : 0);

/** Means are simple-statistics' `mean`, whose compensated (Kahan-Babuska) sum is exact to the last bits where a plain loop drifts. */
export function brierScore(p: readonly number[], o: readonly Outcome[]): number {
  checkForecasts(p, o, 'brierScore');
  return mean(p.map((x, i) => (x - value(o[i])) ** 2));
}

export interface BrierSkill {
  brier: number;
  baseRate: number;
  reference: number;
  /** 1 - brier/reference, or null when the reference score is 0. */
  skill: number | null;
}

/** `baseRate` defaults to the observed frequency of the outcomes (in-sample climatology). */
export function brierSkillScore(p: readonly number[], o: readonly Outcome[], baseRate?: number): BrierSkill {
  const brier = brierScore(p, o);
  if (baseRate !== undefined && !(baseRate >= 0 && baseRate <= 1)) throw new RangeError(`brierSkillScore: baseRate must be in [0, 1], got ${baseRate}`);
  const b = baseRate ?? mean(o.map(value));
  const reference = mean(o.map((x) => (b - value(x)) ** 2));
  return { brier, baseRate: b, reference, skill: reference === 0 ? null : 1 - brier / reference };
}

export interface CalibrationBin {
  lower: number;
  upper: number;
  count: number;
  /** Mean forecast in the bin, null when empty. */
  meanForecast: number | null;
  /** Observed frequency of the outcome in the bin, null when empty. */
  observedRate: number | null;
}

export function calibrationBins(p: readonly number[], o: readonly Outcome[], bins = 10): CalibrationBin[] {
  checkForecasts(p, o, 'calibrationBins');
  if (!Number.isInteger(bins) || bins < 1) throw new RangeError(`calibrationBins: bins must be an integer >= 1, got ${bins}`);
  const count = new Array<number>(bins).fill(0);
  const sumP = new Array<number>(bins).fill(0);
  const sumO = new Array<number>(bins).fill(0);
  for (let i = 0; i < p.length; i++) {
    const b = Math.min(bins - 1, Math.floor(p[i] * bins));
    count[b]++;
    sumP[b] += p[i];
    sumO[b] += value(o[i]);
  }
  return count.map((c, b) => ({
    lower: b / bins,
    upper: (b + 1) / bins,
    count: c,
    meanForecast: c === 0 ? null : sumP[b] / c,
    observedRate: c === 0 ? null : sumO[b] / c,
  }));
}

export interface Coverage {
  covered: number;
  total: number;
  coverage: number;
}

export function intervalCoverage(lower: readonly number[], upper: readonly number[], actual: readonly number[]): Coverage {
  if (lower.length !== upper.length || lower.length !== actual.length) {
    throw new RangeError(`intervalCoverage: lengths differ (lower ${lower.length}, upper ${upper.length}, actual ${actual.length})`);
  }
  if (actual.length === 0) throw new RangeError('intervalCoverage: no intervals');
  let covered = 0;
  for (let i = 0; i < actual.length; i++) {
    if ([lower[i], upper[i], actual[i]].some((x) => typeof x !== 'number' || Number.isNaN(x)))
      throw new RangeError(`intervalCoverage: entry ${i} is not a number`);
    if (lower[i] > upper[i]) throw new RangeError(`intervalCoverage: entry ${i} has lower ${lower[i]} > upper ${upper[i]}`);
    if (lower[i] <= actual[i] && actual[i] <= upper[i]) covered++;
  }
  return { covered, total: actual.length, coverage: covered / actual.length };
}
