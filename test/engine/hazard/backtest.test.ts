/**
 * Rolling-origin backtest: refits on the data strictly before each origin, scores only origins whose
 * whole horizon is observed, counts what happened in [o, o + H); and the path budget of the forecasts.
 * Equal gaps make the fit the exponential (rate d/Σt), so the probabilities are checked by hand.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rollingBacktest } from '../../../engine/hazard/backtest.ts';
import { fitExponential } from '../../../engine/hazard/exponential.ts';
import { forecastPaths } from '../../../engine/hazard/forecastPaths.ts';
import { fitWeibull } from '../../../engine/hazard/weibull.ts';
import type { HazardFit } from '../../../engine/hazard/fit.ts';

const every10 = { id: 'a', times: Array.from({ length: 11 }, (_, i) => 10 * i) }; // 0, 10, …, 100
const options = { horizon: 30, asOf: 100, minGaps: 3, level: 0.9, seed: 7, paths: { maxPaths: 400, minPaths: 100, budget: 50_000 } };

test('only origins whose whole horizon is observed are scored; the refit uses the data strictly before the origin', () => {
  const [o50, o80, o70] = [50, 80, 70];
  const results = rollingBacktest([every10], { ...options, origins: [o80, o50, o70] });
  assert.equal(
    results.map((r) => [r.origin, r.fullyObserved]),
    [
      [50, true],
      [70, true], // 70 + 30 = 100 = as-of: observed to the end
      [80, false],
    ],
  );
  assert.equal(results[2].forecasts, []);
  // Origin 50: occurrences 0 … 40 (not 50), gaps 10 × 4 and the open gap 10 → λ = 50/4; what happened in [50, 80): 50, 60, 70.
  const f = results[0].forecasts[0];
  assert.equal([f.id, f.gaps, f.actual], ['a', 4, 3]);
  assert.ok(Math.abs(f.probability - (1 - Math.exp((-30 * 4) / 50))) < 1e-12);
  assert.ok(Number.isInteger(f.lower) && f.lower <= f.upper);
  // Origin 70: six gaps before it, [70, 100) holds 70, 80, 90 (100 is outside).
  assert.equal([results[1].forecasts[0].gaps, results[1].forecasts[0].actual], [6, 3]);
});

test('series with fewer than minGaps gaps before the origin are not forecast', () => {
  const short = { id: 'b', times: [10, 20, 30, 45] };
  const results = rollingBacktest([every10, short], { ...options, origins: [40, 50] });
  assert.equal(
    results[0].forecasts.map((f) => f.id),
    ['a'],
  ); // b has 2 gaps before 40
  assert.equal(
    results[1].forecasts.map((f) => f.id),
    ['a', 'b'],
  ); // and 3 before 50
  assert.equal(rollingBacktest([every10], { ...options, origins: [20] })[0].forecasts, []); // 1 gap before 20
});

test('deterministic for a seed', () => {
  const a = rollingBacktest([every10], { ...options, origins: [40, 60] });
  assert.equal(
    a.map((r) => r.forecasts.length),
    [1, 1],
  ); // something was forecast at each origin
  assert.equal(rollingBacktest([every10], { ...options, origins: [40, 60] }), a);
});

test('forecastPaths: the budget over the draws a path takes, within [minPaths, maxPaths]', () => {
  const budget = { maxPaths: 2000, minPaths: 200, budget: 200_000 };
  const exponential = (meanGap: number) => fitExponential({ time: [meanGap, meanGap], event: [true, true] }) as HazardFit;
  assert.is(forecastPaths(exponential(30), 90, budget), 2000); // 4 draws a path
  assert.is(forecastPaths(exponential(0.9), 90, budget), 1980); // 101 draws a path
  assert.is(forecastPaths(exponential(0.01), 90, budget), 200); // 9001 draws a path: the floor
  // A Weibull's mean gap is λ Γ(1 + 1/κ).
  const weibull = fitWeibull({ time: [1, 2, 3, 5, 8], event: [true, true, true, true, false] }) as HazardFit;
  const meanGap = weibull.scale * Math.exp(lgamma(1 + 1 / weibull.shape));
  assert.is(forecastPaths(weibull, 90, { ...budget, budget: 20_000 }), Math.max(200, Math.min(2000, Math.floor(20_000 / (1 + 90 / meanGap)))));
  assert.throws(() => forecastPaths(weibull, 0, budget), /horizon/);
  assert.throws(() => forecastPaths(weibull, 90, { ...budget, minPaths: 3000 }), /minPaths <= maxPaths/);
});

/** ln Γ(x) by the Lanczos series (g = 7), independent of the engine's implementation. */
function lgamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012,
    9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  x -= 1;
  let a = c[0];
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i] / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

test.run();
