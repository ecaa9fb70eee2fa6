/**
 * The Poisson CUSUM for "a fix held": Brook & Evans ARLs against a hand-solved chain and against R's
 * surveillance::arlCusum (an independent implementation, of Hawkins 1992; R 4.2.2, surveillance
 * 1.20.3), the design (Lucas' k, the smallest h reaching ARL₀), the verdicts, and seeded simulations:
 * the empirical run lengths of simulated Poisson series match the computed ARL₀ and ARL₁.
 *
 * The R values were printed by
 *   library(surveillance)
 *   a <- function(h, k, theta, digits = 1) format(arlCusum(h = h, k = k, theta = theta, distr = "poisson", digits = digits)$ARL, digits = 15)
 *   a(10, 3, 2.4); a(10, 5, 4, 0); a(10, 4.9, 4); a(10, 4.9, 6); a(3.2, 0.4, 0.2); a(3.2, 0.4, 0.6)
 *   a(2.5, 0.75, 0.5, 2); a(2.5, 0.75, 1, 2); a(2, 1, 0.5, 0)
 * (arlCusum rounds k and h to `digits` decimals, i.e. the lattice m = 10^digits.)
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRng, deriveSeed } from '../../../engine/rng.ts';
import { poissonCusum } from '../../../engine/hazard/cusum.ts';
import { cusumArl } from '../../../engine/hazard/cusumArl.ts';
import { cusumDesign, type CusumDesign } from '../../../engine/hazard/cusumDesign.ts';
import { poissonSample } from '../../../engine/hazard/poissonSample.ts';

const relClose = (actual: number, expected: number, tolerance: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= tolerance * Math.abs(expected), `${what}: ${actual} vs ${expected} (relative tolerance ${tolerance})`);

test('Brook & Evans ARL of a two-state chain solved by hand', () => {
  // k = 1, h = 2: states S ∈ {0, 1}; from 0, x ≤ 1 → 0, x = 2 → 1; from 1, x = 0 → 0, x = 1 → 1; else signal.
  // (I - R) L = 1 gives L₀ = (1 - p₁ + p₂) / ((1 - p₀ - p₁)(1 - p₁) - p₀ p₂).
  for (const rate of [0.1, 0.5, 2]) {
    const p0 = Math.exp(-rate);
    const p1 = rate * p0;
    const p2 = (rate * p1) / 2;
    const expected = (1 - p1 + p2) / ((1 - p0 - p1) * (1 - p1) - p0 * p2);
    relClose(cusumArl(rate, { m: 1, referenceSteps: 1, thresholdSteps: 2 }), expected, 1e-10, `rate ${rate}`);
  }
  // h below one count: the first count of at least k + h signals, a geometric run length.
  relClose(cusumArl(0.3, { m: 10, referenceSteps: 5, thresholdSteps: 4 }), 1 / (1 - Math.exp(-0.3)), 1e-13, 'geometric');
});

test('ARLs agree with R surveillance::arlCusum (Hawkins 1992)', () => {
  const cases: [number, number, number, number, number][] = [
    // [rate, m, k·m, h·m, R's ARL]
    [2.4, 10, 30, 100, 548.362265528738],
    [4, 1, 5, 10, 421.650098486126],
    [4, 10, 49, 100, 377.624455071981],
    [6, 10, 49, 100, 9.48082357770862],
    [0.2, 10, 4, 32, 443.47855403187],
    [0.6, 10, 4, 32, 14.0281291533408],
    [0.5, 100, 75, 250, 47.9966138036535],
    [1, 100, 75, 250, 8.03668979644354],
    [0.5, 1, 1, 2, 45.812478480593],
  ];
  for (const [rate, m, K, H, r] of cases)
    relClose(cusumArl(rate, { m, referenceSteps: K, thresholdSteps: H }), r, 1e-10, `rate ${rate}, k ${K / m}, h ${H / m}`);
  // The lattice is only a representation: k = 0.75, h = 2.5 on steps of 1/4 is the same chain.
  relClose(cusumArl(0.5, { m: 4, referenceSteps: 3, thresholdSteps: 10 }), 47.9966138036535, 1e-10, 'coarser lattice');
});

test('ARLs stay accurate when a false alarm is rarer than 1e-16 per period, and cost nothing at large rates', () => {
  // Expectations from R 4.2.2 (stats::dpois, ppois with lower.tail = FALSE, so no cancellation):
  //   l <- 1e-5; p1 <- dpois(1, l); p2 <- dpois(2, l); T2 <- ppois(1, l, lower.tail = FALSE); T3 <- ppois(2, l, lower.tail = FALSE)
  //   (1 - p1 + p2) / (p2 * T2 + T3 * (1 - p1))          # the two-state chain above, rearranged: 5999955001057491
  //   1 / ppois(30, 1, lower.tail = FALSE)                # h below one count, k = 30: 2.16541732937836e+34
  //   1 / ppois(1005000, 1e6, lower.tail = FALSE)         # k five standard deviations above a rate of 1e6: 3425956.97273749
  // Forming 1 - P(stay) gave a negative ARL for the first two and lost six digits on the third.
  relClose(cusumArl(1e-5, { m: 1, referenceSteps: 1, thresholdSteps: 2 }), 5999955001057491, 1e-12, 'two states, rate 1e-5');
  relClose(cusumArl(1, { m: 1, referenceSteps: 30, thresholdSteps: 1 }), 2.16541732937836e34, 1e-12, 'k = 30 at rate 1');
  relClose(cusumArl(1e6, { m: 1, referenceSteps: 1_005_000, thresholdSteps: 1 }), 3425956.97273749, 1e-8, 'rate 1e6');
  // A pre-fix rate of 6e8 per period (two occurrences a millisecond before a fix) halved: no O(rate)
  // work (it took minutes), a false alarm so rare that its ARL is beyond floating point, and a
  // return to the pre-fix rate seen at once.
  const lattice = { m: 50, referenceSteps: 50 * 436_270_980, thresholdSteps: 1 };
  assert.is(cusumArl(3e8, lattice), Infinity);
  assert.is(cusumArl(6e8, lattice), 1);
  // Designs for high pre-fix rates: every in-control ARL is at least the target, never negative.
  for (const [l0, l1] of [
    [1, 100],
    [10, 1000],
    [300, 1000],
    [5000, 10000],
  ]) {
    const d = cusumDesign(l0, l1, 370);
    assert.ok(d.arl0 >= 370 && d.arl1 >= 1, `λ0 ${l0}, λ1 ${l1}: ARL0 ${d.arl0}, ARL1 ${d.arl1}`);
  }
});

test("design: Lucas' k, the smallest h on the lattice with ARL0 at least the target", () => {
  for (const [l0, l1] of [
    [0.2, 0.6],
    [1, 2],
    [4, 6],
    [0.05, 0.2],
    [40, 50],
  ]) {
    const d = cusumDesign(l0, l1, 370);
    relClose(d.k, (l1 - l0) / (Math.log(l1) - Math.log(l0)), 1e-15, 'k');
    assert.ok(Math.abs(d.kUsed - d.k) <= 0.03 * d.k, `k rounded within 3%: ${d.kUsed} vs ${d.k}`);
    assert.ok(d.arl0 >= 370, `ARL0 ${d.arl0}`);
    const oneStepLess = cusumArl(l0, { m: d.m, referenceSteps: d.referenceSteps, thresholdSteps: d.thresholdSteps - 1 });
    assert.ok(oneStepLess < 370, `h is the smallest: ${oneStepLess}`);
    assert.ok(d.arl1 < d.arl0 / 10, `the regression is detected much sooner: ARL1 ${d.arl1}`);
    assert.ok(d.thresholdSteps <= 400);
  }
  assert.throws(() => cusumDesign(0.6, 0.2), /greater than inControlRate/);
  assert.throws(() => cusumDesign(0, 1), /inControlRate/);
  assert.throws(() => cusumDesign(1, 2, 1), /targetArl0/);
});

/** Run length of the design's CUSUM on a seeded Poisson(rate) series. */
function runLength(design: CusumDesign, rate: number, seed: number): number {
  const rng = createRng(seed);
  let state = 0;
  for (let t = 1; ; t++) {
    state = Math.max(0, state + design.m * poissonSample(rng, rate) - design.referenceSteps);
    if (state >= design.thresholdSteps) return t;
  }
}

function meanRunLength(design: CusumDesign, rate: number, runs: number, label: string): number {
  let total = 0;
  for (let r = 0; r < runs; r++) total += runLength(design, rate, deriveSeed(2024, `${label}:${r}`));
  return total / runs;
}

test('simulated in-control series run as long as the computed ARL0, shifted ones as the computed ARL1', () => {
  for (const [l0, l1] of [
    [0.2, 0.6],
    [4, 6],
    [40, 50],
  ]) {
    const d = cusumDesign(l0, l1, 370);
    const inControl = meanRunLength(d, l0, 1000, `in ${l0}`);
    assert.ok(Math.abs(inControl - d.arl0) <= 0.15 * d.arl0, `λ0 ${l0}: simulated ARL0 ${inControl} vs computed ${d.arl0}`);
    const shifted = meanRunLength(d, l1, 2000, `out ${l1}`);
    assert.ok(Math.abs(shifted - d.arl1) <= 0.1 * d.arl1, `λ1 ${l1}: simulated ARL1 ${shifted} vs computed ${d.arl1}`);
  }
});

test('poissonCusum: the path S_t = max(0, S_{t-1} + x_t - k), the signal period and the verdicts', () => {
  const options = { inControlRate: 0.2, outOfControlRate: 0.6 };
  const d = cusumDesign(0.2, 0.6);
  const counts = [0, 1, 0, 2, 0, 0, 1, 1, 2, 0];
  const result = poissonCusum(counts, options);
  let s = 0;
  const expectedPath = counts.map((x) => (s = Math.max(0, s + x - d.kUsed)));
  expectedPath.forEach((v, i) => assert.ok(Math.abs(result.path[i] - v) < 1e-12, `S_${i + 1}: ${result.path[i]} vs ${v}`));
  const first = expectedPath.findIndex((v) => v >= d.h - 1e-12);
  assert.is(result.signalPeriod, first + 1);
  assert.is(result.verdict, 'regressed');
  assert.is(result.periodsObserved, counts.length);

  const quiet = poissonCusum(new Array(40).fill(0), options);
  assert.is(quiet.verdict, 'holding');
  assert.is(quiet.signalPeriod, null);
  assert.equal(quiet.path, new Array(40).fill(0));
  assert.is(quiet.minPeriods, Math.ceil(2 * d.arl1));

  const early = poissonCusum([0, 1, 0], options);
  assert.is(early.verdict, 'insufficient_data');
  assert.is(poissonCusum([], options).verdict, 'insufficient_data');
  // A regression is reported even before minPeriods.
  assert.is(poissonCusum([5], options).verdict, 'regressed');
  assert.is(poissonCusum([0, 1, 0], { ...options, minPeriods: 3 }).verdict, 'holding');
});

test('poissonCusum: seeded series after a fix that held and after a regression', () => {
  const options = { inControlRate: 0.1, outOfControlRate: 0.5, targetArl0: 370 };
  const rng = createRng(deriveSeed(99, 'held'));
  const held = Array.from({ length: 60 }, () => poissonSample(rng, 0.1));
  assert.is(poissonCusum(held, options).verdict, 'holding');
  const rng2 = createRng(deriveSeed(99, 'regressed'));
  const regressed = Array.from({ length: 60 }, () => poissonSample(rng2, 0.5));
  const r = poissonCusum(regressed, options);
  assert.is(r.verdict, 'regressed');
  assert.ok(r.signalPeriod !== null && r.signalPeriod <= 60);
});

test('poissonCusum refuses bad counts and rates', () => {
  const options = { inControlRate: 0.2, outOfControlRate: 0.6 };
  assert.throws(() => poissonCusum([1, -1], options), /counts\[1\]/);
  assert.throws(() => poissonCusum([1, 0.5], options), /counts\[1\]/);
  assert.throws(() => poissonCusum([1, NaN], options), /counts\[1\]/);
  assert.throws(() => poissonCusum([1], { inControlRate: 0.6, outOfControlRate: 0.2 }), /greater than/);
  assert.throws(() => poissonCusum([1], { ...options, minPeriods: 0 }), /minPeriods/);
});

test('poissonSample: seeded draws have the Poisson mean and variance (inversion and PTRS)', () => {
  for (const rate of [0.05, 0.7, 5, 29.9, 30, 250]) {
    const rng = createRng(deriveSeed(1, `poisson ${rate}`));
    const n = 20000;
    let sum = 0;
    let sumSquares = 0;
    for (let i = 0; i < n; i++) {
      const x = poissonSample(rng, rate);
      assert.ok(Number.isInteger(x) && x >= 0);
      sum += x;
      sumSquares += x * x;
    }
    const mean = sum / n;
    const variance = (sumSquares - n * mean * mean) / (n - 1);
    assert.ok(Math.abs(mean - rate) <= 4 * Math.sqrt(rate / n), `rate ${rate}: mean ${mean}`);
    assert.ok(Math.abs(variance - rate) <= 0.05 * rate + 0.01, `rate ${rate}: variance ${variance}`);
  }
  assert.is(poissonSample(createRng(1), 0), 0);
  assert.throws(() => poissonSample(createRng(1), -1), /lambda/);
  const a = createRng(5);
  const b = createRng(5);
  assert.equal(
    Array.from({ length: 20 }, () => poissonSample(a, 40)),
    Array.from({ length: 20 }, () => poissonSample(b, 40)),
  );
});

test('poissonSample: the distribution at λ = 40 (PTRS) matches the Poisson probabilities', () => {
  // Chi-square goodness of fit over 0..≥60 pooled into cells with expected count ≥ 20.
  const rate = 40;
  const n = 50000;
  const rng = createRng(77);
  const counts = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const x = poissonSample(rng, rate);
    counts.set(x, (counts.get(x) ?? 0) + 1);
  }
  const pmf = (x: number) => Math.exp(-rate + x * Math.log(rate) - lnFactorial(x));
  let chi = 0;
  let cells = 0;
  let low = 0;
  let observedLow = 0;
  for (let x = 0; x <= 200; x++) {
    low += pmf(x) * n;
    observedLow += counts.get(x) ?? 0;
    if (low >= 20 || x === 200) {
      chi += (observedLow - low) ** 2 / low;
      cells++;
      low = 0;
      observedLow = 0;
    }
  }
  // χ² with cells - 1 df: mean cells - 1, sd √(2(cells - 1)); 5 sd is a generous deterministic bound.
  assert.ok(chi < cells - 1 + 5 * Math.sqrt(2 * (cells - 1)), `chi-square ${chi} on ${cells - 1} df`);
});

function lnFactorial(x: number): number {
  let s = 0;
  for (let i = 2; i <= x; i++) s += Math.log(i);
  return s;
}

test.run();
