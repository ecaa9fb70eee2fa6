/**
 * Curves, conditional recurrence probability and mean residual life of a fitted model, against R.
 * The fit is survreg's Weibull fit of the `small` data of weibull.test.ts (our fit agrees with it to
 * 1e-12). R 4.2.2 computed the expectations with this script (intervals: 90% Wald intervals on the
 * stated scale, the gradient by central differences, the mean residual life by integrate()):
 *
 *   library(survival)
 *   d <- data.frame(time = c(2.5, 7.1, 1.3, 4.8, 12.0, 3.3, 6.2, 9.5), status = c(1,1,1,1,1,1,1,0))
 *   f <- survreg(Surv(time, status) ~ 1, data = d, dist = "weibull", control = survreg.control(rel.tolerance = 1e-13))
 *   mu <- unname(coef(f)); tau <- log(f$scale); V <- f$var; q <- qnorm(0.95)
 *   S <- function(t, mu, tau) exp(-exp((log(t) - mu) / exp(tau)))
 *   grad <- function(g, mu, tau, e = 1e-6) c((g(mu + e, tau) - g(mu - e, tau)) / (2 * e), (g(mu, tau + e) - g(mu, tau - e)) / (2 * e))
 *   wald <- function(g, tr, inv) { est <- g(mu, tau); gr <- grad(function(m, s) tr(g(m, s)), mu, tau)
 *     se <- sqrt(drop(t(gr) %*% V %*% gr)); c(est, inv(tr(est) - q * se), inv(tr(est) + q * se)) }
 *   for (t in c(1, 5, 20)) {                                     # H(t) and h(t) on the log scale
 *     print(wald(function(m, s) exp((log(t) - m) / exp(s)), log, exp))
 *     print(wald(function(m, s) exp((log(t) - m) / exp(s)) / (exp(s) * t), log, exp)) }
 *   rp <- function(s, h) function(m, sg) 1 - S(s + h, m, sg) / S(s, m, sg)
 *   cll <- function(p) log(-log(1 - p)); icll <- function(x) 1 - exp(-exp(x))
 *   for (sh in list(c(0, 5), c(3, 5), c(10, 2), c(30, 7))) print(wald(rp(sh[1], sh[2]), cll, icll))
 *   mrl <- function(s) function(m, sg) integrate(function(u) S(u, m, sg), s, Inf, rel.tol = 1e-13, abs.tol = 0)$value / S(s, m, sg)
 *   for (s in c(0, 3, 10, 40)) print(wald(mrl(s), log, exp))
 *   for (cfg in list(c(3, 11.45, 30), c(3, 11.45, 5), c(0.466, 20.43, 500), c(0.466, 20.43, 2), c(1, 7, 13))) {
 *     k <- cfg[1]; l <- cfg[2]; s <- cfg[3]
 *     print(integrate(function(u) exp(-(u / l)^k + (s / l)^k), s, Inf, rel.tol = 1e-13, abs.tol = 0)$value) }
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { evenGrid, hazardCurves } from '../../../engine/hazard/curves.ts';
import { fitExponential } from '../../../engine/hazard/exponential.ts';
import { describeFit, type HazardFit, type HazardFitResult } from '../../../engine/hazard/fit.ts';
import { meanResidualLife } from '../../../engine/hazard/meanResidualLife.ts';
import { recurrenceProbability } from '../../../engine/hazard/recurrenceProbability.ts';
import { fitWeibull } from '../../../engine/hazard/weibull.ts';

const relClose = (actual: number, expected: number, tolerance: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= tolerance * Math.abs(expected), `${what}: ${actual} vs ${expected} (relative tolerance ${tolerance})`);

function fitted(result: HazardFitResult): HazardFit {
  if (!result.fitted) throw new Error(`expected a fit, got ${result.reason}`);
  return result;
}

const small = { time: [2.5, 7.1, 1.3, 4.8, 12.0, 3.3, 6.2, 9.5], event: [true, true, true, true, true, true, true, false] };
const fit = fitted(fitWeibull(small));

/** A Weibull with given shape and scale (and an arbitrary small covariance) for closed-form checks. */
const weibullOf = (shape: number, scale: number): HazardFit =>
  describeFit(
    { model: 'weibull', mu: Math.log(scale), logSigma: -Math.log(shape), covariance: [0.01, 0, 0.01], logLik: 0, n: 10, events: 10, iterations: 0 },
    0.95,
  );

test('survival, cumulative hazard and hazard with their intervals agree with R', () => {
  const c = hazardCurves(fit, [1, 5, 20], 0.9);
  const r = {
    H: [
      [0.0444566704042748395, 0.0073288340418929633, 0.2696739388744356369],
      [0.58681205965719252, 0.28253320518210684, 1.21878910883117864],
      [5.4162497882853344, 2.0571163059410882, 14.2606238083754935],
    ],
    h: [
      [0.071271241296551935, 0.018691754005211909, 0.271755654099394062],
      [0.188150950213909068, 0.099842529378414341, 0.354566138165670564],
      [0.43415627179556326, 0.10758511692975672, 1.75202364154598511],
    ],
    S: [
      [0.95651704469257615, 0.7636284432980931, 0.99269795637485614],
      [0.55609726684830263, 0.29558787505501288, 0.75387160909964757],
      [0.004443780555896136, 6.4075170652887934e-7, 0.12782203859429003],
    ],
  };
  for (let i = 0; i < 3; i++) {
    relClose(c.cumulativeHazard[i], r.H[i][0], 1e-9, `H(${c.times[i]})`);
    relClose(c.cumulativeHazardLower[i], r.H[i][1], 1e-6, `H lower (${c.times[i]})`);
    relClose(c.cumulativeHazardUpper[i], r.H[i][2], 1e-6, `H upper (${c.times[i]})`);
    relClose(c.hazard[i], r.h[i][0], 1e-9, `h(${c.times[i]})`);
    relClose(c.hazardLower[i], r.h[i][1], 1e-6, `h lower (${c.times[i]})`);
    relClose(c.hazardUpper[i], r.h[i][2], 1e-6, `h upper (${c.times[i]})`);
    relClose(c.survival[i], r.S[i][0], 1e-9, `S(${c.times[i]})`);
    relClose(c.survivalLower[i], r.S[i][1], 1e-6, `S lower (${c.times[i]})`);
    relClose(c.survivalUpper[i], r.S[i][2], 1e-6, `S upper (${c.times[i]})`);
  }
});

test('curves on an even grid: S decreasing within its band, hazard monotone in the direction of the shape', () => {
  const grid = evenGrid(30, 60);
  assert.is(grid.length, 60);
  assert.is(grid[0], 0.5);
  assert.is(grid[59], 30);
  const c = hazardCurves(fit, grid);
  for (let i = 0; i < grid.length; i++) {
    assert.ok(c.survivalLower[i] <= c.survival[i] && c.survival[i] <= c.survivalUpper[i]);
    assert.ok(c.hazardLower[i] <= c.hazard[i] && c.hazard[i] <= c.hazardUpper[i]);
    relClose(c.survival[i], Math.exp(-c.cumulativeHazard[i]), 1e-15, 'S = exp(-H)');
    if (i > 0) {
      assert.ok(c.survival[i] < c.survival[i - 1]);
      assert.ok(c.hazard[i] > c.hazard[i - 1], 'shape > 1: increasing hazard');
    }
  }
  const decreasing = hazardCurves(weibullOf(0.5, 10), grid);
  for (let i = 1; i < grid.length; i++) assert.ok(decreasing.hazard[i] < decreasing.hazard[i - 1], 'shape < 1: decreasing hazard');
});

test('the exponential has a flat hazard 1/λ whose interval only reflects μ', () => {
  const e = fitted(fitExponential(small));
  const c = hazardCurves(e, [1, 10, 100], 0.9);
  for (let i = 0; i < 3; i++) relClose(c.hazard[i], 1 / e.scale, 1e-14, 'hazard');
  const z = 1.6448536269514722;
  relClose(c.hazardUpper[0], Math.exp(-e.mu + z * e.se.mu), 1e-14, 'hazard upper');
  relClose(c.hazardLower[2], Math.exp(-e.mu - z * e.se.mu), 1e-14, 'hazard lower');
});

test('conditional recurrence probability P(T ≤ s + h | T > s) and its interval agree with R', () => {
  const r: [number, number, number, number, number][] = [
    [0, 5, 0.44390273315169737, 0.24612839088536453, 0.70441212497033789],
    [3, 5, 0.6276425421456997, 0.40138936527089619, 0.85071526952773757],
    [10, 2, 0.45405791333345924, 0.20238498971214958, 0.80209164285586065],
    [30, 7, 0.98417882368563436, 0.50288321155319227, 0.99999999997925193],
  ];
  for (const [s, h, p, lo, hi] of r) {
    const got = recurrenceProbability(fit, s, h, 0.9);
    relClose(got.estimate, p, 1e-9, `P(s=${s}, h=${h})`);
    relClose(got.lower, lo, 1e-6, `lower (s=${s}, h=${h})`);
    relClose(got.upper, hi, 1e-6, `upper (s=${s}, h=${h})`);
    assert.is(got.level, 0.9);
  }
});

test('recurrence probability: memoryless exponential, extreme ages and short horizons stay finite', () => {
  const e = fitted(fitExponential(small));
  const p0 = recurrenceProbability(e, 0, 7).estimate;
  relClose(p0, 1 - Math.exp(-7 / e.scale), 1e-14, 'exponential');
  relClose(recurrenceProbability(e, 50, 7).estimate, p0, 1e-12, 'memoryless');
  const steep = weibullOf(40, 10);
  const late = recurrenceProbability(steep, 20, 1);
  assert.is(late.estimate, 1);
  assert.ok(Number.isFinite(late.lower) && late.lower <= 1);
  // A tiny horizon: P ≈ h(s)·horizon.
  const tiny = recurrenceProbability(fit, 5, 1e-9).estimate;
  relClose(tiny, 1e-9 * hazardCurves(fit, [5]).hazard[0], 1e-6, 'short horizon');
  assert.throws(() => recurrenceProbability(fit, -1, 5), /sinceLast/);
  assert.throws(() => recurrenceProbability(fit, 1, 0), /horizon/);
  assert.throws(() => recurrenceProbability(fit, NaN, 5), /sinceLast/);
});

test('mean residual life E[T - s | T > s] and its interval agree with R integrate()', () => {
  const r: [number, number, number, number][] = [
    [0, 6.2500061177822879, 4.2375494036657537, 9.2181996600498337],
    [3, 4.5667897022934607, 2.6610947431055454, 7.8372137027465509],
    [10, 3.0355055745591977, 1.1627954022954747, 7.9242608587805066],
    [40, 1.48417665341868266, 0.22114148588857305, 9.96095476930547363],
  ];
  for (const [s, m, lo, hi] of r) {
    const got = meanResidualLife(fit, s, 0.9);
    relClose(got.estimate, m, 1e-10, `m(${s})`);
    relClose(got.lower, lo, 1e-6, `lower m(${s})`);
    relClose(got.upper, hi, 1e-6, `upper m(${s})`);
  }
});

test('mean residual life: the closed form in both incomplete-gamma regimes agrees with R integrate()', () => {
  const r: [number, number, number, number][] = [
    [3, 11.45, 30, 0.53703734284061522],
    [3, 11.45, 5, 5.7887887822785631],
    [0.466, 20.43, 500, 306.00040735373722],
    [0.466, 20.43, 2, 63.626512165237521],
    [1, 7, 13, 7],
  ];
  for (const [shape, scale, s, m] of r) relClose(meanResidualLife(weibullOf(shape, scale), s).estimate, m, 1e-10, `m(${s}) shape ${shape}`);
  // Far in the tail S(s) underflows, yet m(s) ≈ s/(κ (s/λ)^κ) stays finite.
  const far = meanResidualLife(weibullOf(3, 10), 1000).estimate;
  relClose(far, 1000 / (3 * 100 ** 3), 1e-5, 'asymptotic');
  const e = fitted(fitExponential(small));
  relClose(meanResidualLife(e, 123).estimate, e.scale, 1e-12, 'exponential m(s) = λ');
  assert.throws(() => meanResidualLife(fit, -1), /sinceLast/);
});

test('not-fitted results and bad times are refused', () => {
  const notFitted = fitWeibull({ time: [3], event: [false] });
  assert.is(notFitted.fitted, false);
  assert.throws(() => hazardCurves(notFitted as unknown as HazardFit, [1]), /needs a fitted model/);
  assert.throws(() => recurrenceProbability(notFitted as unknown as HazardFit, 1, 1), /needs a fitted model/);
  assert.throws(() => hazardCurves(fit, [1, 0]), /times\[1\] must be a finite number > 0/);
  assert.throws(() => hazardCurves(fit, []), /no times/);
  assert.throws(() => evenGrid(0, 10), /upper/);
  assert.throws(() => evenGrid(10, 1.5), /points/);
});

test.run();
