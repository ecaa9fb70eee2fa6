/** Forecast scores on hand-computed examples (every expected number is worked out in the comments). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { brierScore, brierSkillScore, calibrationBins, intervalCoverage } from '../../../engine/hazard/brier.ts';

const close = (actual: number | null, expected: number, what: string) =>
  assert.ok(actual !== null && Math.abs(actual - expected) <= 1e-15, `${what}: ${actual} vs ${expected}`);

const p = [0.9, 0.2, 0.6, 0.1];
const o = [true, false, false, false];

test('Brier score: mean squared error of the probabilities', () => {
  // (0.1² + 0.2² + 0.6² + 0.1²) / 4 = (0.01 + 0.04 + 0.36 + 0.01) / 4 = 0.105
  close(brierScore(p, o), 0.105, 'BS');
  close(brierScore(p, [1, 0, 0, 0]), 0.105, 'BS with 0/1 outcomes');
  assert.is(brierScore([1, 0], [true, false]), 0);
  assert.is(brierScore([0, 1], [true, false]), 1);
});

test('Brier skill against the observed base rate and against a given one', () => {
  // Base rate 1/4: reference (0.75² + 3 · 0.25²) / 4 = (0.5625 + 0.1875) / 4 = 0.1875; skill 1 - 0.105/0.1875 = 0.44.
  const s = brierSkillScore(p, o);
  close(s.baseRate, 0.25, 'base rate');
  close(s.reference, 0.1875, 'reference');
  close(s.skill, 0.44, 'skill');
  // Base rate 0.5: reference 0.25, skill 1 - 0.105/0.25 = 0.58.
  close(brierSkillScore(p, o, 0.5).skill, 0.58, 'skill against 0.5');
  // Forecasting the base rate itself has zero skill; worse than it, negative skill.
  close(brierSkillScore([0.25, 0.25, 0.25, 0.25], o).skill, 0, 'base-rate forecast');
  // (0.9² + 0.8² + 0.4² + 0.9²)/4 = 0.605: skill 1 - 0.605/0.1875 = -2.2266…
  close(brierSkillScore([0.1, 0.8, 0.4, 0.9], o).skill, 1 - 0.605 / 0.1875, 'negative skill');
  // All outcomes alike and the base rate taken from them: the reference is perfect, skill undefined.
  const none = brierSkillScore([0.1, 0.3], [false, false]);
  assert.is(none.reference, 0);
  assert.is(none.skill, null);
});

test('calibration bins: equal width, lower edge inclusive, p = 1 in the last bin, empty bins null', () => {
  const bins = calibrationBins([0.05, 0.15, 0.2, 0.55, 0.65, 1], [false, true, false, true, true, true], 5);
  assert.is(bins.length, 5);
  assert.equal(
    bins.map((b) => [b.lower, b.upper, b.count]),
    [
      [0, 0.2, 2],
      [0.2, 0.4, 1],
      [0.4, 0.6, 1],
      [0.6, 0.8, 1],
      [0.8, 1, 1],
    ],
  );
  close(bins[0].meanForecast, 0.1, 'mean forecast bin 0'); // (0.05 + 0.15) / 2
  close(bins[0].observedRate, 0.5, 'observed bin 0');
  close(bins[1].observedRate, 0, 'observed bin 1');
  close(bins[4].meanForecast, 1, 'mean forecast bin 4');
  const sparse = calibrationBins([0.05], [true], 10);
  assert.is(sparse[9].count, 0);
  assert.is(sparse[9].meanForecast, null);
  assert.is(sparse[9].observedRate, null);
});

test('interval coverage counts inclusive endpoints', () => {
  // [0, 2] ∋ 1, [1, 3] ∌ 5, [2, 2] ∋ 2: 2 of 3.
  const c = intervalCoverage([0, 1, 2], [2, 3, 2], [1, 5, 2]);
  assert.equal({ covered: c.covered, total: c.total }, { covered: 2, total: 3 });
  close(c.coverage, 2 / 3, 'coverage');
});

test('invalid inputs are refused with clear errors', () => {
  assert.throws(() => brierScore([], []), /no forecasts/);
  assert.throws(() => brierScore([0.5], [true, false]), /1 forecasts but 2 outcomes/);
  assert.throws(() => brierScore([1.2], [true]), /forecast 0 must be a probability/);
  assert.throws(() => brierScore([NaN], [true]), /forecast 0/);
  assert.throws(() => brierScore([0.5], [2 as 1]), /outcome 0/);
  assert.throws(() => brierSkillScore([0.5], [true], -0.1), /baseRate/);
  assert.throws(() => calibrationBins([0.5], [true], 0), /bins/);
  assert.throws(() => intervalCoverage([0], [1, 2], [0]), /lengths differ/);
  assert.throws(() => intervalCoverage([], [], []), /no intervals/);
  assert.throws(() => intervalCoverage([3], [1], [2]), /lower 3 > upper 1/);
  assert.throws(() => intervalCoverage([0], [1], [NaN]), /not a number/);
});

test.run();
