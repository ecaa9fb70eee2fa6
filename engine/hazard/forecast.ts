/**
 * Expected number of occurrences in the next h time units (for each horizon), given `sinceLast`
 * time since the last one, for a renewal process whose gaps follow the fitted Weibull (or
 * exponential): E[N(h) | age s], the delayed renewal function, by seeded Monte Carlo (Ross 1996,
 * Stochastic Processes §3; Tijms 2003 §8.2). Each path draws the residual first gap from T - s | T > s
 * by inversion, r = s·(exp(log1p(E/x)/κ) - 1) with x = (s/λ)^κ and E ~ Exp(1), then whole gaps λE^{1/κ},
 * and counts the occurrences that fall within each horizon.
 *
 * Two sets of `paths` are run. At the estimate (μ̂, log σ̂): `expected` is their mean count, with its
 * Monte Carlo standard error, and `probabilityAny` the share of paths with at least one occurrence
 * (which estimates the conditional recurrence probability). Predictive: each path first draws
 * (μ, log σ) from the asymptotic normal N((μ̂, log σ̂), V) (parameter uncertainty), so
 * `lower`/`upper`, the (1 ∓ level)/2 quantiles (inverse empirical CDF, integers) of those counts,
 * combine parameter and process uncertainty; `predictiveMean` is their mean. Deterministic for a seed.
 * A path stops after `maxEventsPerPath` occurrences (counted in `truncatedPaths`).
 */
import { createRng, deriveSeed, type Rng } from '../rng.ts';
import { checkFitted, checkLevel, type HazardFit } from './fit.ts';

export interface ForecastOptions {
  /** Time since the last occurrence (the age of the open gap), ≥ 0, in the unit of the fit. */
  sinceLast: number;
  /** Horizons > 0 in the unit of the fit, e.g. [7, 30, 90] days. */
  horizons: readonly number[];
  seed: number;
  /** Simulated paths per set (default 2000). */
  paths?: number;
  /** Level of the count interval (default 0.9). */
  level?: number;
  /** Occurrences after which a path stops (default 100000). */
  maxEventsPerPath?: number;
}

export interface HorizonForecast {
  horizon: number;
  expected: number;
  monteCarloError: number;
  probabilityAny: number;
  predictiveMean: number;
  lower: number;
  upper: number;
}

export interface OccurrenceForecast {
  model: HazardFit['model'];
  sinceLast: number;
  level: number;
  paths: number;
  seed: number;
  truncatedPaths: number;
  horizons: HorizonForecast[];
}

/** Counts of one path's occurrences within each horizon (ascending `horizons`) into `out`; false if truncated. */
function simulatePath(rng: Rng, mu: number, logSigma: number, sinceLast: number, horizons: Float64Array, out: Int32Array, maxEvents: number): boolean {
  const scale = Math.exp(mu);
  const inverseShape = Math.exp(logSigma);
  const shape = 1 / inverseShape;
  const last = horizons[horizons.length - 1];
  const exp1 = () => -Math.log(1 - rng.next());
  let t: number;
  const e = exp1();
  if (sinceLast === 0) {
    t = scale * e ** inverseShape;
  } else {
    const x = Math.exp(shape * (Math.log(sinceLast) - mu));
    t = x > 0 ? sinceLast * Math.expm1(inverseShape * Math.log1p(e / x)) : scale * e ** inverseShape;
  }
  let total = 0;
  let j = 0;
  while (t <= last) {
    while (t > horizons[j]) out[j++] = total;
    total++;
    if (total >= maxEvents) {
      while (j < horizons.length) out[j++] = total;
      return false;
    }
    t += scale * exp1() ** inverseShape;
  }
  while (j < horizons.length) out[j++] = total;
  return true;
}

/** Inverse empirical CDF: the smallest value x with F̂(x) ≥ p. */
function quantile(sorted: Int32Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

export function forecastOccurrences(fit: HazardFit, options: ForecastOptions): OccurrenceForecast {
  checkFitted(fit, 'forecastOccurrences');
  const { sinceLast, seed } = options;
  const paths = options.paths ?? 2000;
  const level = options.level ?? 0.9;
  const maxEvents = options.maxEventsPerPath ?? 100_000;
  checkLevel(level, 'forecastOccurrences');
  if (!(sinceLast >= 0) || !Number.isFinite(sinceLast)) throw new RangeError(`forecastOccurrences: sinceLast must be a finite number >= 0, got ${sinceLast}`);
  if (!Number.isInteger(seed)) throw new RangeError(`forecastOccurrences: seed must be an integer, got ${seed}`);
  if (!Number.isInteger(paths) || paths < 2) throw new RangeError(`forecastOccurrences: paths must be an integer >= 2, got ${paths}`);
  if (!Number.isInteger(maxEvents) || maxEvents < 1) throw new RangeError(`forecastOccurrences: maxEventsPerPath must be an integer >= 1, got ${maxEvents}`);
  if (options.horizons.length === 0) throw new RangeError('forecastOccurrences: no horizons');
  options.horizons.forEach((h, i) => {
    if (!(h > 0) || !Number.isFinite(h)) throw new RangeError(`forecastOccurrences: horizons[${i}] must be a finite number > 0, got ${h}`);
  });
  const order = options.horizons.map((_, i) => i).sort((a, b) => options.horizons[a] - options.horizons[b]);
  const horizons = Float64Array.from(order, (i) => options.horizons[i]);
  const m = horizons.length;

  const plugIn = Array.from({ length: m }, () => new Int32Array(paths));
  const predictive = Array.from({ length: m }, () => new Int32Array(paths));
  const counts = new Int32Array(m);
  let truncatedPaths = 0;

  const rngPlugIn = createRng(deriveSeed(seed, 'hazard.forecast.plugIn'));
  for (let p = 0; p < paths; p++) {
    if (!simulatePath(rngPlugIn, fit.mu, fit.logSigma, sinceLast, horizons, counts, maxEvents)) truncatedPaths++;
    for (let j = 0; j < m; j++) plugIn[j][p] = counts[j];
  }

  const [vMu, cov, vLogSigma] = fit.covariance;
  const l11 = Math.sqrt(vMu);
  const l21 = l11 > 0 ? cov / l11 : 0;
  const l22 = Math.sqrt(Math.max(0, vLogSigma - l21 * l21));
  const rngParameters = createRng(deriveSeed(seed, 'hazard.forecast.parameters'));
  const rngPredictive = createRng(deriveSeed(seed, 'hazard.forecast.predictive'));
  for (let p = 0; p < paths; p++) {
    const z1 = rngParameters.normal();
    const z2 = rngParameters.normal();
    const mu = fit.mu + l11 * z1;
    const logSigma = fit.logSigma + l21 * z1 + l22 * z2;
    if (!simulatePath(rngPredictive, mu, logSigma, sinceLast, horizons, counts, maxEvents)) truncatedPaths++;
    for (let j = 0; j < m; j++) predictive[j][p] = counts[j];
  }

  const byHorizon: HorizonForecast[] = new Array(m);
  for (let j = 0; j < m; j++) {
    let sum = 0;
    let sumSquares = 0;
    let any = 0;
    for (const c of plugIn[j]) {
      sum += c;
      sumSquares += c * c;
      if (c > 0) any++;
    }
    const mean = sum / paths;
    const variance = Math.max(0, (sumSquares - paths * mean * mean) / (paths - 1));
    let predictiveSum = 0;
    for (const c of predictive[j]) predictiveSum += c;
    const sorted = predictive[j].slice().sort();
    byHorizon[order[j]] = {
      horizon: horizons[j],
      expected: mean,
      monteCarloError: Math.sqrt(variance / paths),
      probabilityAny: any / paths,
      predictiveMean: predictiveSum / paths,
      lower: quantile(sorted, (1 - level) / 2),
      upper: quantile(sorted, (1 + level) / 2),
    };
  }
  return { model: fit.model, sinceLast, level, paths, seed, truncatedPaths, horizons: byHorizon };
}
