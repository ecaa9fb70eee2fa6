/**
 * Rolling-origin backtest of recurrence forecasts (Tashman 2000, "Out-of-sample tests of forecasting
 * accuracy", IJF 16): at each origin o every series is refitted on its occurrences strictly before o
 * as the engine fits it (fitTrendRenewal, engine/hazard/trend.ts: the renewal model of selectModel,
 * or the trend-renewal process when its power-law trend pays for itself by AIC; the open gap to o
 * censored), and a series with at least `minGaps` gaps and a fit forecasts, for the window [o, o + H):
 * - p, the probability of at least one occurrence (recurrenceProbability given the age o - last, both
 *   on the model's clock);
 * - a predictive interval [lower, upper] of the number of occurrences (forecastOccurrences, seeded
 *   per series and origin);
 * and is scored against its occurrences in the window. A series that is dormant at the origin (the
 * silence o - last is one its fit gives less than `dormancyLevel`, engine/hazard/dormancy.ts) makes no
 * forecast, as the engine makes none: it is listed among the origin's abstentions with its outcome, so
 * that what abstaining cost or saved can be measured. Only origins whose whole window is observed
 * (o + H ≤ asOf) are forecast at all; the others are returned with `fullyObserved: false` and no
 * forecasts. Times are numbers in one unit (days in the stages).
 */
import { deriveSeed } from '../rng.ts';
import { DORMANCY_LEVEL, silenceProbability } from './dormancy.ts';
import { forecastOccurrences } from './forecast.ts';
import { forecastPaths, type PathBudget } from './forecastPaths.ts';
import { recurrenceProbability } from './recurrenceProbability.ts';
import { clockHorizon, fitTrendRenewal } from './trend.ts';

export interface BacktestSeries {
  id: string;
  /** Occurrence times, ascending. */
  times: readonly number[];
}

export interface BacktestForecast {
  id: string;
  /** Observed gaps before the origin. */
  gaps: number;
  probability: number;
  lower: number;
  upper: number;
  /** Occurrences in [o, o + H). */
  actual: number;
}

/** A series that was dormant at the origin: no forecast, but its outcome is known. */
export interface BacktestAbstention {
  id: string;
  gaps: number;
  /** P(a silence this long) under the fit (silenceProbability). */
  silenceProbability: number;
  /** Occurrences in [o, o + H). */
  actual: number;
}

export interface BacktestOriginResult {
  origin: number;
  fullyObserved: boolean;
  forecasts: BacktestForecast[];
  abstentions: BacktestAbstention[];
}

export interface BacktestOptions {
  origins: readonly number[];
  horizon: number;
  asOf: number;
  minGaps: number;
  /** Level of the count intervals. */
  level: number;
  seed: number;
  /** Simulated paths per set of each count forecast (forecastPaths). */
  paths: PathBudget;
  /** Dormancy level (default DORMANCY_LEVEL); 0 never abstains (the behaviour before dormancy, for comparison). */
  dormancyLevel?: number;
  /** Consider the trend-renewal model (engine/hazard/trend.ts; default true); false fits the renewal model alone (the behaviour before, for comparison). */
  trend?: boolean;
}

/** Index of the first element ≥ x in an ascending array. */
function lowerBound(sorted: readonly number[], x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function rollingBacktest(series: readonly BacktestSeries[], options: BacktestOptions): BacktestOriginResult[] {
  const { horizon, asOf, minGaps, level, seed, paths } = options;
  const dormancyLevel = options.dormancyLevel ?? DORMANCY_LEVEL;
  if (!(horizon > 0) || !Number.isFinite(horizon)) throw new RangeError(`rollingBacktest: horizon must be a finite number > 0, got ${horizon}`);
  if (!Number.isInteger(minGaps) || minGaps < 1) throw new RangeError(`rollingBacktest: minGaps must be an integer >= 1, got ${minGaps}`);
  return [...options.origins]
    .sort((a, b) => a - b)
    .map((origin) => {
      const fullyObserved = origin + horizon <= asOf;
      const forecasts: BacktestForecast[] = [];
      const abstentions: BacktestAbstention[] = [];
      if (!fullyObserved) return { origin, fullyObserved, forecasts, abstentions };
      for (const s of series) {
        const before = lowerBound(s.times, origin);
        // Fewer occurrences than minGaps + 1 cannot hold minGaps gaps: skip the fit.
        if (before < minGaps + 1) continue;
        const times = s.times.slice(0, before);
        let observed = 0;
        for (let i = 1; i < before; i++) if (times[i] > times[i - 1]) observed++;
        if (observed < minGaps) continue;
        const model = fitTrendRenewal(times, origin, { trend: options.trend ?? true });
        const fit = model.chosen;
        if (!fit.fitted) continue;
        const actual = lowerBound(s.times, origin + horizon) - before;
        // On the model's clock (the identity without a trend): the age of the open gap and the window.
        const age = model.clockSinceLast;
        const window = clockHorizon(model.clock, horizon);
        const silence = silenceProbability(fit, age);
        if (silence < dormancyLevel) {
          abstentions.push({ id: s.id, gaps: observed, silenceProbability: silence, actual });
          continue;
        }
        const probability = recurrenceProbability(fit, age, window).estimate;
        const count = forecastOccurrences(fit, {
          sinceLast: age,
          horizons: [window],
          seed: deriveSeed(seed, `backtest:${s.id}:${origin}`),
          paths: forecastPaths(fit, window, paths),
          level,
        }).horizons[0];
        forecasts.push({ id: s.id, gaps: observed, probability, lower: count.lower, upper: count.upper, actual });
      }
      return { origin, fullyObserved, forecasts, abstentions };
    });
}
