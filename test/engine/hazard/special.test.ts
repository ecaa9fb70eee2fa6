/**
 * The special functions under the hazard maths against R 4.2.2: qnorm, lgamma, pgamma and pchisq.
 * Expected values were printed by R with format(x, digits = 17):
 *
 *   qnorm(c(1e-300, 1e-10, 0.001, 0.025, 0.3, 0.5, 0.95, 0.999999))
 *   lgamma(c(1e-5, 0.1, 0.5, 1, 3.7, 10.5, 171.3, 1e5))
 *   c(pgamma(0.5, 0.5), pgamma(3, 2.5), pgamma(12, 10), pgamma(0.01, 3))
 *   c(pgamma(40, 2, lower.tail = FALSE), pgamma(3, 2.5, lower.tail = FALSE), pgamma(150, 100, lower.tail = FALSE))
 *   c(pchisq(3.841458820694124, 1), pchisq(0.5, 1), pchisq(7, 3))
 *   c(pchisq(25, 1, lower.tail = FALSE), pchisq(80, 1, lower.tail = FALSE), pchisq(1.9094, 1, lower.tail = FALSE))
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chiSquareCdf, chiSquareSurvival } from '../../../engine/hazard/chiSquare.ts';
import { normalQuantile } from '../../../engine/hazard/normalQuantile.ts';
import { logGamma, regularizedGammaP, regularizedGammaQ } from '../../../engine/hazard/regularizedGamma.ts';

const relClose = (actual: number, expected: number, tolerance: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= tolerance * Math.abs(expected), `${what}: ${actual} vs ${expected} (relative tolerance ${tolerance})`);

test('normalQuantile matches R qnorm (AS 241) to 1e-14', () => {
  const p = [1e-300, 1e-10, 0.001, 0.025, 0.3, 0.5, 0.95, 0.999999];
  const r = [
    -37.0470962993612005, -6.3613409024040557, -3.09023230616781319, -1.95996398454005383, -0.52440051270804067, 0, 1.64485362695147153, 4.75342430881708911,
  ];
  p.forEach((x, i) => (r[i] === 0 ? assert.is(normalQuantile(x), 0) : relClose(normalQuantile(x), r[i], 1e-14, `qnorm(${x})`)));
  assert.throws(() => normalQuantile(0), /\(0, 1\)/);
  assert.throws(() => normalQuantile(1), /\(0, 1\)/);
  assert.throws(() => normalQuantile(NaN), /\(0, 1\)/);
});

test('logGamma matches R lgamma to 1e-13', () => {
  const x = [1e-5, 0.1, 0.5, 1, 3.7, 10.5, 171.3, 1e5];
  const r = [11.512919692895826, 2.252712651734206, 0.57236494292470008, 0, 1.4280723266653881, 13.940625219403763, 708.11494703899712, 1051287.7089736569];
  x.forEach((v, i) => (r[i] === 0 ? assert.ok(Math.abs(logGamma(v)) < 1e-15) : relClose(logGamma(v), r[i], 1e-13, `lgamma(${v})`)));
  assert.throws(() => logGamma(0), /> 0/);
  assert.throws(() => logGamma(-1), /> 0/);
});

test('regularised incomplete gamma matches R pgamma to 1e-13, tails without cancellation', () => {
  relClose(regularizedGammaP(0.5, 0.5), 0.68268949213708596, 1e-13, 'P(0.5, 0.5)');
  relClose(regularizedGammaP(2.5, 3), 0.69378108158672158, 1e-13, 'P(2.5, 3)');
  relClose(regularizedGammaP(10, 12), 0.75760783832948764, 1e-13, 'P(10, 12)');
  relClose(regularizedGammaP(3, 0.01), 1.6542165280748764e-7, 1e-13, 'P(3, 0.01)');
  relClose(regularizedGammaQ(2, 40), 1.7418252446695517e-16, 1e-13, 'Q(2, 40)');
  relClose(regularizedGammaQ(2.5, 3), 0.30621891841327842, 1e-13, 'Q(2.5, 3)');
  relClose(regularizedGammaQ(100, 150), 5.9245403354839159e-6, 1e-12, 'Q(100, 150)');
  assert.is(regularizedGammaP(2, 0), 0);
  assert.is(regularizedGammaQ(2, 0), 1);
  assert.is(regularizedGammaP(2, Infinity), 1);
  assert.throws(() => regularizedGammaP(0, 1), /a must be/);
  assert.throws(() => regularizedGammaQ(1, -1), /x must be >= 0/);
});

test('chi-square CDF and upper tail match R pchisq', () => {
  relClose(chiSquareCdf(3.841458820694124, 1), 0.95, 1e-14, 'pchisq(3.84, 1)');
  relClose(chiSquareCdf(0.5, 1), 0.52049987781304652, 1e-13, 'pchisq(0.5, 1)');
  relClose(chiSquareCdf(7, 3), 0.92810222750353488, 1e-13, 'pchisq(7, 3)');
  relClose(chiSquareSurvival(25, 1), 5.7330314375838793e-7, 1e-12, 'upper pchisq(25, 1)');
  relClose(chiSquareSurvival(80, 1), 3.7440973842028994e-19, 1e-12, 'upper pchisq(80, 1)');
  relClose(chiSquareSurvival(1.9094, 1), 0.1670299228577648, 1e-13, 'upper pchisq(1.9094, 1)');
  assert.is(chiSquareCdf(0, 1), 0);
  assert.is(chiSquareSurvival(-1, 1), 1);
  assert.throws(() => chiSquareCdf(NaN, 1), /NaN/);
  assert.throws(() => chiSquareSurvival(1, 0), /degrees of freedom/);
});

test.run();
