/**
 * The seeded renewal forecast: the Monte Carlo mean count against an independent numerical solution
 * of the delayed renewal equation E[N(h) | age s] = F_s(h) + ∫₀ʰ M(h - u) dF_s(u), with
 * M(t) = F(t) + ∫₀ᵗ M(t - u) dF(u) and F_s(u) = 1 - S(s + u)/S(s), and against closed forms for the
 * exponential (Poisson process: E N(h) = h/λ, P(N ≥ 1) = 1 - e^{-h/λ}). Tolerances are in Monte Carlo
 * standard errors; all runs are seeded, so the assertions are deterministic.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fitExponential } from '../../../engine/hazard/exponential.ts';
import { describeFit, type HazardFit, type HazardFitResult } from '../../../engine/hazard/fit.ts';
import { forecastOccurrences } from '../../../engine/hazard/forecast.ts';
import { recurrenceProbability } from '../../../engine/hazard/recurrenceProbability.ts';
import { fitWeibull } from '../../../engine/hazard/weibull.ts';

function fitted(result: HazardFitResult): HazardFit {
  if (!result.fitted) throw new Error(`expected a fit, got ${result.reason}`);
  return result;
}

const small = { time: [2.5, 7.1, 1.3, 4.8, 12.0, 3.3, 6.2, 9.5], event: [true, true, true, true, true, true, true, false] };
const weibullOf = (shape: number, scale: number, variance = 0.01): HazardFit =>
  describeFit(
    { model: 'weibull', mu: Math.log(scale), logSigma: -Math.log(shape), covariance: [variance, 0, variance], logLik: 0, n: 10, events: 10, iterations: 0 },
    0.95,
  );

/** E[N(h) | age s] by the discretised renewal equation (trapezoidal in M, n steps). */
function renewalExpectation(shape: number, scale: number, sinceLast: number, horizon: number, n = 4000): number {
  const F = (t: number) => 1 - Math.exp(-((t / scale) ** shape));
  const logS = (t: number) => -((t / scale) ** shape);
  const Fs = (u: number) => 1 - Math.exp(logS(sinceLast + u) - logS(sinceLast));
  const dt = horizon / n;
  const m = new Float64Array(n + 1);
  const f = new Float64Array(n + 1);
  for (let j = 1; j <= n; j++) f[j] = F(j * dt) - F((j - 1) * dt);
  for (let i = 1; i <= n; i++) {
    let sum = F(i * dt) + (f[1] / 2) * m[i - 1];
    for (let j = 2; j <= i; j++) sum += ((m[i - j] + m[i - j + 1]) / 2) * f[j];
    m[i] = sum / (1 - f[1] / 2);
  }
  let expected = Fs(horizon);
  for (let j = 1; j <= n; j++) expected += ((m[n - j] + m[n - j + 1]) / 2) * (Fs(j * dt) - Fs((j - 1) * dt));
  return expected;
}

test('exponential gaps: a Poisson process, E N(h) = h/λ and P(N ≥ 1) = 1 - exp(-h/λ)', () => {
  const e = fitted(fitExponential(small));
  const f = forecastOccurrences(e, { sinceLast: 4, horizons: [7, 30, 90], seed: 42, paths: 4000 });
  for (const h of f.horizons) {
    const exact = h.horizon / e.scale;
    assert.ok(Math.abs(h.expected - exact) <= 4 * h.monteCarloError, `h = ${h.horizon}: ${h.expected} vs ${exact} ± ${h.monteCarloError}`);
    const p = 1 - Math.exp(-exact);
    assert.ok(Math.abs(h.probabilityAny - p) <= 4 * Math.sqrt((p * (1 - p)) / f.paths) + 1e-12, `P(N ≥ 1) ${h.probabilityAny} vs ${p}`);
  }
});

test('Weibull gaps: the Monte Carlo renewal function agrees with the renewal equation', () => {
  const fit = fitted(fitWeibull(small));
  const cases: [HazardFit, number][] = [
    [fit, 0],
    [fit, 3],
    [fit, 10],
    [weibullOf(0.5, 20), 0],
    [weibullOf(0.5, 20), 15],
    [weibullOf(3, 10), 8],
  ];
  for (const [model, sinceLast] of cases) {
    const f = forecastOccurrences(model, { sinceLast, horizons: [7, 30, 90], seed: 7 });
    for (const h of f.horizons) {
      const exact = renewalExpectation(model.shape, model.scale, sinceLast, h.horizon);
      assert.ok(
        Math.abs(h.expected - exact) <= 4 * h.monteCarloError + 0.002 * exact,
        `shape ${model.shape.toFixed(3)}, age ${sinceLast}, h ${h.horizon}: ${h.expected} vs ${exact} ± ${h.monteCarloError}`,
      );
    }
  }
});

test('the share of paths with an occurrence estimates the conditional recurrence probability', () => {
  const fit = fitted(fitWeibull(small));
  for (const sinceLast of [0, 3, 10]) {
    const f = forecastOccurrences(fit, { sinceLast, horizons: [2, 7], seed: 3, paths: 4000 });
    for (const h of f.horizons) {
      const p = recurrenceProbability(fit, sinceLast, h.horizon).estimate;
      assert.ok(
        Math.abs(h.probabilityAny - p) <= 4 * Math.sqrt((p * (1 - p)) / f.paths) + 1e-12,
        `age ${sinceLast}, h ${h.horizon}: ${h.probabilityAny} vs ${p}`,
      );
    }
  }
});

test('intervals are integer quantiles of the predictive counts and widen with the horizon', () => {
  const fit = fitted(fitWeibull(small));
  const f = forecastOccurrences(fit, { sinceLast: 2, horizons: [7, 30, 90], seed: 11, level: 0.9 });
  let previousWidth = -1;
  for (const h of f.horizons) {
    assert.ok(Number.isInteger(h.lower) && Number.isInteger(h.upper));
    assert.ok(h.lower <= h.expected && h.expected <= h.upper, `${h.lower} ≤ ${h.expected} ≤ ${h.upper}`);
    assert.ok(h.lower <= h.predictiveMean && h.predictiveMean <= h.upper);
    assert.ok(h.upper - h.lower >= previousWidth);
    previousWidth = h.upper - h.lower;
  }
  // Parameter uncertainty widens the interval: a fit with almost no uncertainty gives a narrower one.
  const certain = describeFit({ ...fit, covariance: [1e-12, 0, 1e-12], iterations: 0 }, 0.95);
  const narrow = forecastOccurrences(certain, { sinceLast: 2, horizons: [90], seed: 11 }).horizons[0];
  assert.ok(narrow.upper - narrow.lower < f.horizons[2].upper - f.horizons[2].lower);
  assert.is(f.truncatedPaths, 0);
});

test('deterministic for a seed, different across seeds, horizons returned in the order given', () => {
  const fit = fitted(fitWeibull(small));
  const a = forecastOccurrences(fit, { sinceLast: 1, horizons: [90, 7, 30], seed: 5, paths: 500 });
  const b = forecastOccurrences(fit, { sinceLast: 1, horizons: [90, 7, 30], seed: 5, paths: 500 });
  assert.equal(a, b);
  assert.equal(
    a.horizons.map((h) => h.horizon),
    [90, 7, 30],
  );
  const sorted = forecastOccurrences(fit, { sinceLast: 1, horizons: [7, 30, 90], seed: 5, paths: 500 });
  assert.equal(sorted.horizons[0], a.horizons[1]);
  const c = forecastOccurrences(fit, { sinceLast: 1, horizons: [90, 7, 30], seed: 6, paths: 500 });
  assert.not.equal(a.horizons[0].expected, c.horizons[0].expected);
});

test('huge and tiny time units give the same counts in their own unit', () => {
  const days = weibullOf(1.4, 5);
  const ms = describeFit({ ...days, mu: days.mu + Math.log(86400000), iterations: 0 }, 0.95);
  const a = forecastOccurrences(days, { sinceLast: 2, horizons: [30], seed: 9, paths: 1000 });
  const b = forecastOccurrences(ms, { sinceLast: 2 * 86400000, horizons: [30 * 86400000], seed: 9, paths: 1000 });
  assert.ok(Math.abs(a.horizons[0].expected - b.horizons[0].expected) <= 4 * a.horizons[0].monteCarloError);
});

test('a path stops at maxEventsPerPath and is counted as truncated', () => {
  const rapid = weibullOf(1, 0.001, 0);
  const f = forecastOccurrences(rapid, { sinceLast: 0, horizons: [10], seed: 1, paths: 10, maxEventsPerPath: 50 });
  assert.is(f.truncatedPaths, 20);
  assert.is(f.horizons[0].expected, 50);
});

test('invalid forecasts are refused', () => {
  const fit = fitted(fitWeibull(small));
  assert.throws(() => forecastOccurrences(fit, { sinceLast: -1, horizons: [7], seed: 1 }), /sinceLast/);
  assert.throws(() => forecastOccurrences(fit, { sinceLast: 0, horizons: [], seed: 1 }), /no horizons/);
  assert.throws(() => forecastOccurrences(fit, { sinceLast: 0, horizons: [7, 0], seed: 1 }), /horizons\[1\]/);
  assert.throws(() => forecastOccurrences(fit, { sinceLast: 0, horizons: [7], seed: 1.5 }), /seed/);
  assert.throws(() => forecastOccurrences(fit, { sinceLast: 0, horizons: [7], seed: 1, paths: 1 }), /paths/);
  const notFitted = fitWeibull({ time: [1], event: [false] });
  assert.throws(() => forecastOccurrences(notFitted as unknown as HazardFit, { sinceLast: 0, horizons: [7], seed: 1 }), /needs a fitted model/);
});

test.run();
