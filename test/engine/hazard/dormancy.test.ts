/**
 * Dormancy: P(A > s) = Q(1/κ, (s/λ)^κ) checked against the numerical integral ∫ₛ^∞ S(u) du / E[T]
 * (trapezoid rule on a fine grid) and the exponential's closed form e^{-s/λ}; the example (a
 * Weibull of scale 8.6 days, a 709-day silence) is dormant; a series that stops is not forecast by the
 * backtest after it stops, and is with dormancy off (the behaviour before).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rollingBacktest } from '../../../engine/hazard/backtest.ts';
import { DORMANCY_LEVEL, dormancyOf, silenceProbability } from '../../../engine/hazard/dormancy.ts';
import { describeFit, type HazardFit } from '../../../engine/hazard/fit.ts';
import { logGamma } from '../../../engine/hazard/regularizedGamma.ts';

const weibull = (shape: number, scale: number): HazardFit =>
  describeFit(
    { model: 'weibull', mu: Math.log(scale), logSigma: -Math.log(shape), covariance: [0.01, 0, 0.01], logLik: 0, n: 10, events: 10, iterations: 1 },
    0.9,
  );

function integral(shape: number, scale: number, s: number): number {
  const survival = (t: number) => Math.exp(-((t / scale) ** shape));
  const upper = scale * 200 ** (1 / shape); // S is below e^-200 beyond
  const steps = 400_000;
  const h = (upper - s) / steps;
  let sum = (survival(s) + survival(upper)) / 2;
  for (let i = 1; i < steps; i++) sum += survival(s + i * h);
  const mean = scale * Math.exp(logGamma(1 + 1 / shape));
  return (sum * h) / mean;
}

test('P(A > s) equals the integral of the survival beyond s over the mean gap', () => {
  for (const [shape, scale, s] of [
    [0.7, 8.6, 20],
    [1.5, 10, 12],
    [0.5, 3, 40],
  ]) {
    const p = silenceProbability(weibull(shape, scale), s);
    const q = integral(shape, scale, s);
    assert.ok(Math.abs(p - q) <= 1e-6 + 1e-4 * q, `κ ${shape}, λ ${scale}, s ${s}: ${p} vs ${q}`);
  }
  const exponential = describeFit(
    { model: 'exponential', mu: Math.log(12), logSigma: 0, covariance: [0.1, 0, 0], logLik: 0, n: 5, events: 5, iterations: 1 },
    0.9,
  );
  assert.ok(Math.abs(silenceProbability(exponential, 30) - Math.exp(-30 / 12)) < 1e-12);
  assert.is(silenceProbability(exponential, 0), 1);
});

test("the issue's example: a 709-day silence under a Weibull of scale 8.6 days is dormant; a recent one is not", () => {
  const fit = weibull(0.7, 8.6);
  const stopped = dormancyOf(fit, 709);
  assert.ok(stopped.dormant && stopped.silence_probability < 1e-6, JSON.stringify(stopped));
  assert.is(stopped.level, DORMANCY_LEVEL);
  assert.not.ok(dormancyOf(fit, 5).dormant);
});

test('backtest: a series that stopped is not forecast from origins in its silence, and is listed with its outcome', () => {
  // Every 2 days from day 0 to day 200, then nothing until day 600.
  const times = Array.from({ length: 101 }, (_, i) => 2 * i);
  const options = { origins: [100, 300, 500], horizon: 30, asOf: 600, minGaps: 3, level: 0.9, seed: 1, paths: { maxPaths: 50, minPaths: 50, budget: 10_000 } };
  const [active, silent1, silent2] = rollingBacktest([{ id: 'a', times }], options);
  assert.is(active.forecasts.length, 1);
  assert.equal(active.abstentions, []);
  for (const o of [silent1, silent2]) {
    assert.equal(o.forecasts, []);
    assert.is(o.abstentions.length, 1);
    assert.equal([o.abstentions[0].id, o.abstentions[0].actual], ['a', 0]);
    assert.ok(o.abstentions[0].silenceProbability < DORMANCY_LEVEL);
  }
  // Dormancy off: the old behaviour forecasts a recurrence the pattern no longer has.
  const old = rollingBacktest([{ id: 'a', times }], { ...options, dormancyLevel: 0 });
  assert.is(old[1].forecasts.length, 1);
  assert.ok(old[1].forecasts[0].probability > 0.1, `forecast ${old[1].forecasts[0].probability}`);
});

test.run();
