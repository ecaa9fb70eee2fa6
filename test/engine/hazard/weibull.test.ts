/**
 * The Weibull and exponential fits of engine/hazard against R's survreg, plus their edge cases, the
 * model choice and the censored gaps.
 *
 * Every number in `fromR` was computed by R 4.2.2 with survival 3.5-3 (Debian r-base-core and
 * r-cran-survival) running the script below, and pasted as printed (17 significant digits). `var` is
 * survreg's variance matrix of ((Intercept), Log(scale)) as [var, cov, var]. The heavy, shapeBelowOne
 * and shapeAboveOne data below are what R's dput printed for the seeded draws; the large case is a
 * deterministic formula computed identically here. survreg's default tolerance agrees with
 * rel.tolerance = 1e-13 to < 1e-9. R stops the exponential's iterations early, so its var there is
 * 1/d to ~1e-10 only.
 *
 * library(survival)
 * frac <- function(x) x - floor(x)
 * cases <- list()
 * cases$small <- list(time = c(2.5, 7.1, 1.3, 4.8, 12.0, 3.3, 6.2, 9.5), status = c(1,1,1,1,1,1,1,0))
 * cases$ties <- list(time = c(3, 3, 3, 5, 5, 8, 2, 2, 10, 3, 4), status = c(1,1,1,1,1,1,1,1,1,1,0))
 * set.seed(20240601)
 * t <- round(rweibull(40, shape = 1.3, scale = 30), 3); cens <- round(runif(40, 0, 40), 3)
 * cases$heavy <- list(time = pmin(t, cens), status = as.numeric(t <= cens))
 * set.seed(7)
 * t <- round(rweibull(30, shape = 0.6, scale = 20), 4)
 * cases$shapeBelowOne <- list(time = c(t, 5.5), status = c(rep(1, 30), 0))
 * set.seed(11)
 * t <- round(rweibull(25, shape = 3, scale = 10), 4)
 * cases$shapeAboveOne <- list(time = c(t, 4.25), status = c(rep(1, 25), 0))
 * i <- 1:400
 * u <- frac(i * 0.6180339887498949)
 * t <- 15 * (-log(1 - u))^(1 / 1.7)
 * cens <- frac(i * 0.4142135623730951) < 0.3
 * cases$large <- list(time = ifelse(cens, t * frac(i * 0.7320508075688772), t), status = as.numeric(!cens))
 * cases$oneEvent <- list(time = c(4, 9), status = c(1, 0))
 * ms <- 86400000
 * cases$hugeUnits <- list(time = cases$small$time * ms, status = cases$small$status)
 * cases$tinyUnits <- list(time = cases$small$time * 1e-6, status = cases$small$status)
 * f17 <- function(x) format(x, digits = 17)
 * for (nm in names(cases)) {
 *   d <- data.frame(time = cases[[nm]]$time, status = cases[[nm]]$status)
 *   f <- survreg(Surv(time, status) ~ 1, data = d, dist = "weibull",
 *                control = survreg.control(rel.tolerance = 1e-13, iter.max = 200))
 *   fe <- survreg(Surv(time, status) ~ 1, data = d, dist = "exponential")
 *   cat(sprintf("  %s: {\n    weibull: { mu: %s, logSigma: %s, logLik: %s, var: [%s] },\n",
 *               nm, f17(unname(coef(f))), f17(log(f$scale)), f17(f$loglik[2]),
 *               paste(f17(as.vector(f$var)[c(1, 2, 4)]), collapse = ", ")))
 *   cat(sprintf("    exponential: { mu: %s, logLik: %s, var: %s },\n  },\n",
 *               f17(unname(coef(fe))), f17(fe$loglik[2]), f17(as.vector(fe$var))))
 * }
 *
 * Required agreement: 1e-6 relative (observed: about 1e-12).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { censoredGaps } from '../../../engine/hazard/censoredGaps.ts';
import { fitExponential } from '../../../engine/hazard/exponential.ts';
import type { HazardFit, HazardFitResult } from '../../../engine/hazard/fit.ts';
import { selectModel } from '../../../engine/hazard/selectModel.ts';
import type { SurvivalData } from '../../../engine/hazard/survivalData.ts';
import { fitWeibull } from '../../../engine/hazard/weibull.ts';

const relClose = (actual: number, expected: number, tolerance: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= tolerance * Math.abs(expected), `${what}: ${actual} vs ${expected} (relative tolerance ${tolerance})`);

function fitted(result: HazardFitResult): HazardFit {
  if (!result.fitted) throw new Error(`expected a fit, got not fitted: ${result.reason}`);
  return result;
}

const data = (time: number[], status: number[]): SurvivalData => ({ time, event: status.map((s) => s === 1) });
const frac = (x: number) => x - Math.floor(x);
const small = data([2.5, 7.1, 1.3, 4.8, 12.0, 3.3, 6.2, 9.5], [1, 1, 1, 1, 1, 1, 1, 0]);
const large = (() => {
  const time: number[] = [];
  const status: number[] = [];
  for (let i = 1; i <= 400; i++) {
    const t = 15 * (-Math.log(1 - frac(i * 0.6180339887498949))) ** (1 / 1.7);
    const censored = frac(i * 0.4142135623730951) < 0.3;
    time.push(censored ? t * frac(i * 0.7320508075688772) : t);
    status.push(censored ? 0 : 1);
  }
  return data(time, status);
})();

const cases: Record<string, SurvivalData> = {
  small,
  ties: data([3, 3, 3, 5, 5, 8, 2, 2, 10, 3, 4], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0]),
  heavy: data(
    [
      4.228, 16.054, 1.07, 20.583, 27.479, 15.846, 29.266, 10.815, 9.169, 12.701, 7.98, 32.229, 3.889, 15.384, 5.165, 39.411, 5.487, 16.472, 2.48, 21.554,
      11.471, 18.635, 10.555, 2.149, 3.644, 2.378, 1.645, 9.172, 11.785, 23.28, 4.675, 24.288, 1.783, 21.909, 20.621, 24.363, 2.38, 14.984, 10.318, 16.789,
    ],
    [0, 1, 1, 0, 1, 1, 0, 1, 0, 1, 0, 0, 1, 1, 1, 0, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 1, 0, 1, 0],
  ),
  shapeBelowOne: data(
    [
      0.0111, 17.4664, 72.0064, 102.3159, 35.5269, 1.7668, 22.689, 0.0527, 53.1045, 13.1757, 51.3958, 37.7201, 2.0874, 82.5037, 13.5273, 90.1828, 8.0358,
      267.8694, 0.017, 25.252, 5.2294, 27.8597, 0.0015, 0.4215, 0.0114, 106.2277, 5.6169, 11.3645, 0.056, 20.5194, 5.5,
    ],
    [...new Array(30).fill(1), 0],
  ),
  shapeAboveOne: data(
    [
      10.8657, 19.6307, 8.7597, 16.2175, 13.99, 3.5883, 13.4767, 10.7375, 5.027, 12.7932, 12.0331, 9.3571, 4.6012, 5.4434, 6.7625, 8.2213, 9.0053, 10.3441,
      12.2701, 9.0193, 11.6742, 7.2756, 10.0371, 10.1602, 14.0623, 4.25,
    ],
    [...new Array(25).fill(1), 0],
  ),
  large,
  oneEvent: data([4, 9], [1, 0]),
  hugeUnits: data(
    small.time.map((t) => t * 86400000),
    [1, 1, 1, 1, 1, 1, 1, 0],
  ),
  tinyUnits: data(
    small.time.map((t) => t * 1e-6),
    [1, 1, 1, 1, 1, 1, 1, 0],
  ),
};

interface Expected {
  weibull: { mu: number; logSigma: number; logLik: number; var: [number, number, number] };
  exponential: { mu: number; logLik: number; var: number };
}

const fromR: Record<string, Expected> = {
  small: {
    weibull: {
      mu: 1.9419375015945683,
      logSigma: -0.47197788213991571,
      logLik: -19.330104595192722,
      var: [0.057458214848004015, -0.01334127508732777, 0.094950600778799618],
    },
    exponential: { mu: 1.8978340156195381, logLik: -20.284838109336768, var: 0.14285714285714285 },
  },
  ties: {
    weibull: {
      mu: 1.6493817887500788,
      logSigma: -0.66464465488491398,
      logLik: -22.784638189972881,
      var: [0.028686462242914601, -0.010922766060643723, 0.053743425022571192],
    },
    exponential: { mu: 1.5686159171897036, logLik: -25.686159179138453, var: 0.09999999992758582 },
  },
  heavy: {
    weibull: {
      mu: 3.3503077026696837,
      logSigma: -0.19243693936792722,
      logLik: -75.180981045145046,
      var: [0.047181043987508907, 0.016953689458859732, 0.040202544272048939],
    },
    exponential: { mu: 3.4473435306261693, logLik: -75.6048400206449, var: 0.058823529411764705 },
  },
  shapeBelowOne: {
    weibull: {
      mu: 3.0172389224060927,
      logSigma: 0.76340364078153822,
      logLik: -120.12515302639233,
      var: [0.16485893313020733, -0.016505945610001072, 0.023876996723676915],
    },
    exponential: { mu: 3.5830694855936747, logLik: -137.49208456846381, var: 0.033333333332607143 },
  },
  shapeAboveOne: {
    weibull: {
      mu: 2.4383002028764169,
      logSigma: -1.1041414753261098,
      logLik: -67.772679229137481,
      var: [0.0048729813231692797, -0.0032999126551191888, 0.0228091618452794034],
    },
    exponential: { mu: 2.3402781013254814, logLik: -83.506952533470454, var: 0.039999999999466546 },
  },
  large: {
    weibull: {
      mu: 2.7974358622642317,
      logSigma: -0.56946487939889434,
      logLik: -997.09895002503652,
      var: [0.00117742886037167939, -0.00025807585904276045, 0.00195920583743481843],
    },
    exponential: { mu: 2.7845987634356684, logLik: -1059.6876537627054, var: 0.003571428571419415 },
  },
  oneEvent: {
    weibull: {
      mu: 2.3530466071116503,
      logSigma: -0.45523305705438988,
      logLik: -3.4551856287230303,
      var: [0.48878754866720142, 0.26004015932365643, 0.78218829428019987],
    },
    exponential: { mu: 2.564949357461523, logLik: -3.5649493574615372, var: 0.99999999999998623 },
  },
  hugeUnits: {
    weibull: {
      mu: 20.216435735368851,
      logSigma: -0.47197788213991637,
      logLik: -147.2515922316127,
      var: [0.057458214848003883, -0.013341275087327974, 0.094950600778799646],
    },
    exponential: { mu: 20.172332249393822, logLik: -148.20632574575677, var: 0.14285714285714285 },
  },
  tinyUnits: {
    weibull: {
      mu: -11.873573056369706,
      logSigma: -0.47197788213991571,
      logLik: 77.378469310557193,
      var: [0.057458214848003994, -0.013341275087327751, 0.094950600778799576],
    },
    exponential: { mu: -11.917676542344736, logLik: 76.423735796413155, var: 0.14285714285714274 },
  },
};

test('the heavy case is heavily censored and the shape cases straddle 1', () => {
  const heavy = cases.heavy.event;
  assert.ok(heavy.filter((e) => !e).length / heavy.length >= 0.5);
  assert.ok(Math.exp(-fromR.shapeBelowOne.weibull.logSigma) < 1);
  assert.ok(Math.exp(-fromR.shapeAboveOne.weibull.logSigma) > 1);
});

for (const [name, expected] of Object.entries(fromR)) {
  test(`Weibull fit agrees with R survreg: ${name}`, () => {
    const fit = fitted(fitWeibull(cases[name]));
    const r = expected.weibull;
    relClose(fit.mu, r.mu, 1e-6, 'mu (Intercept)');
    relClose(fit.logSigma, r.logSigma, 1e-6, 'log sigma (Log(scale))');
    relClose(fit.shape, Math.exp(-r.logSigma), 1e-6, 'shape 1/scale');
    relClose(fit.scale, Math.exp(r.mu), 1e-6, 'scale exp(Intercept)');
    relClose(fit.logLik, r.logLik, 1e-6, 'log-likelihood');
    fit.covariance.forEach((v, i) => relClose(v, r.var[i], 1e-6, `var[${i}]`));
    relClose(fit.se.shape, fit.shape * Math.sqrt(r.var[2]), 1e-6, 'SE of shape (delta method)');
    relClose(fit.se.scale, fit.scale * Math.sqrt(r.var[0]), 1e-6, 'SE of scale (delta method)');
    assert.is(fit.events, cases[name].event.filter(Boolean).length);
    assert.is(fit.n, cases[name].time.length);
  });

  test(`exponential fit agrees with R survreg: ${name}`, () => {
    const fit = fitted(fitExponential(cases[name]));
    relClose(fit.mu, expected.exponential.mu, 1e-9, 'mu (Intercept)');
    relClose(fit.logLik, expected.exponential.logLik, 1e-9, 'log-likelihood');
    relClose(fit.covariance[0], expected.exponential.var, 1e-8, 'var');
    assert.is(fit.shape, 1);
    assert.equal(fit.covariance.slice(1), [0, 0]);
  });
}

test('the fit is within 1e-9 of R on every case (the agreement we report)', () => {
  let worst = 0;
  for (const [name, expected] of Object.entries(fromR)) {
    const fit = fitted(fitWeibull(cases[name]));
    const r = expected.weibull;
    for (const [a, e] of [[fit.mu, r.mu], [fit.logSigma, r.logSigma], [fit.logLik, r.logLik], ...fit.covariance.map((v, i) => [v, r.var[i]])]) {
      worst = Math.max(worst, Math.abs(a - e) / Math.abs(e));
    }
  }
  assert.ok(worst < 1e-9, `worst relative difference ${worst}`);
});

test('Newton-Raphson with step halving reaches the same estimate from poor starting values', () => {
  for (const [name, d] of Object.entries(cases)) {
    const best = fitted(fitWeibull(d));
    for (const dMu of [-3, -1, 0, 1, 3]) {
      for (const dLogSigma of [-2, -1, 0, 1, 2]) {
        const fit = fitted(fitWeibull(d, { start: { mu: best.mu + dMu, logSigma: best.logSigma + dLogSigma } }));
        relClose(fit.mu, best.mu, 1e-10, `${name} mu from start (${dMu}, ${dLogSigma})`);
        assert.ok(Math.abs(fit.logSigma - best.logSigma) < 1e-9, `${name} log sigma from start (${dMu}, ${dLogSigma})`);
        relClose(fit.covariance[2], best.covariance[2], 1e-8, `${name} var log sigma`);
      }
    }
  }
  assert.throws(() => fitWeibull(small, { start: { mu: NaN, logSigma: 0 } }), /start must be finite/);
});

test('intervals are the Wald intervals of log sigma and mu mapped through exp', () => {
  const fit = fitted(fitWeibull(small, { level: 0.9 }));
  const z = 1.6448536269514722; // R: qnorm(0.95)
  relClose(fit.interval.shape[0], Math.exp(-fit.logSigma - z * fit.se.logSigma), 1e-12, 'shape lower');
  relClose(fit.interval.shape[1], Math.exp(-fit.logSigma + z * fit.se.logSigma), 1e-12, 'shape upper');
  relClose(fit.interval.scale[0], Math.exp(fit.mu - z * fit.se.mu), 1e-12, 'scale lower');
  relClose(fit.interval.scale[1], Math.exp(fit.mu + z * fit.se.mu), 1e-12, 'scale upper');
  assert.is(fit.interval.level, 0.9);
  relClose(fit.aic, -2 * fit.logLik + 4, 1e-15, 'AIC');
});

test('no events: neither model is fitted, reason insufficient_events (never a fabricated curve)', () => {
  for (const d of [data([5, 7, 2], [0, 0, 0]), data([], [])]) {
    const w = fitWeibull(d);
    const e = fitExponential(d);
    assert.is(w.fitted, false);
    assert.is(e.fitted, false);
    if (!w.fitted) assert.is(w.reason, 'insufficient_events');
    if (!e.fitted) assert.is(e.reason, 'insufficient_events');
    const s = selectModel(d);
    assert.is(s.chosen.fitted, false);
    assert.is(s.likelihoodRatio, null);
  }
});

test('all gaps equal and none longer: the Weibull shape is unbounded, no_variation; the exponential still fits', () => {
  for (const d of [data([5, 5, 5, 3], [1, 1, 1, 0]), data([5], [1]), data([5, 5], [1, 0])]) {
    const w = fitWeibull(d);
    assert.is(w.fitted, false);
    if (!w.fitted) assert.is(w.reason, 'no_variation');
    const s = selectModel(d);
    assert.is(s.chosen.fitted, true);
    assert.is(s.chosen.model, 'exponential');
    assert.is(s.weibullReason, 'no_variation');
  }
});

test('equal event gaps with a longer open gap do have an MLE', () => {
  const fit = fitted(fitWeibull(data([5, 5, 5, 9], [1, 1, 1, 0])));
  assert.ok(fit.shape > 1 && Number.isFinite(fit.shape));
});

test('no censoring: the uncensored likelihood equations hold at the estimate', () => {
  const d = data([2.5, 7.1, 1.3, 4.8, 12.0, 3.3, 6.2], [1, 1, 1, 1, 1, 1, 1]);
  const fit = fitted(fitWeibull(d));
  // Σ tᵏ log t / Σ tᵏ - 1/κ - mean(log t) = 0 and λᵏ = mean(tᵏ) (Cohen 1965).
  const k = fit.shape;
  const sumTk = d.time.reduce((s, t) => s + t ** k, 0);
  const sumTkLog = d.time.reduce((s, t) => s + t ** k * Math.log(t), 0);
  const meanLog = d.time.reduce((s, t) => s + Math.log(t), 0) / d.time.length;
  assert.ok(Math.abs(sumTkLog / sumTk - 1 / k - meanLog) < 1e-12);
  relClose(fit.scale ** k, sumTk / d.time.length, 1e-12, 'scale^shape');
});

test('censored durations of 0 carry no information and change nothing', () => {
  const a = fitted(fitWeibull(small));
  const b = fitted(fitWeibull(data([...small.time, 0], [1, 1, 1, 1, 1, 1, 1, 0, 0])));
  assert.is(b.mu, a.mu);
  assert.is(b.logSigma, a.logSigma);
  assert.is(b.logLik, a.logLik);
});

test('the fit is deterministic and does not depend on the order of the data', () => {
  const a = fitted(fitWeibull(cases.heavy));
  const order = cases.heavy.time.map((_, i) => i).reverse();
  const b = fitted(fitWeibull({ time: order.map((i) => cases.heavy.time[i]), event: order.map((i) => cases.heavy.event[i]) }));
  relClose(b.mu, a.mu, 1e-13, 'mu');
  relClose(b.logSigma, a.logSigma, 1e-13, 'log sigma');
  assert.equal(fitted(fitWeibull(cases.heavy)), a);
});

test('invalid durations are refused with clear errors', () => {
  assert.throws(() => fitWeibull(data([1, NaN], [1, 1])), /time\[1\] is not a number/);
  assert.throws(() => fitWeibull(data([1, -2], [1, 1])), /time\[1\] = -2 is negative/);
  assert.throws(() => fitWeibull(data([1, Infinity], [1, 0])), /not finite/);
  assert.throws(() => fitWeibull(data([1, 0], [1, 1])), /event at duration 0/);
  assert.throws(() => fitWeibull({ time: [1, 2], event: [true] }), /time has 2 entries but event has 1/);
  assert.throws(() => fitExponential(data([1, -2], [1, 1])), /negative/);
  assert.throws(() => fitWeibull(small, { level: 1 }), /level must be in \(0, 1\)/);
});

test('model choice by AIC and the likelihood-ratio test of shape = 1 agree with R', () => {
  // R: 2 * (loglik_weibull - loglik_exponential) = 1.9094670282880912, pchisq(., 1, lower.tail = FALSE) =
  // 0.16702247403392445, AIC 42.660209190385444 (Weibull) and 42.569676218673536 (exponential); anova() agrees.
  const s = selectModel(small);
  assert.ok(s.likelihoodRatio);
  relClose(s.likelihoodRatio.statistic, 1.9094670282880912, 1e-9, 'LR statistic');
  relClose(s.likelihoodRatio.pValue, 0.16702247403392445, 1e-8, 'p-value');
  relClose(s.aic.weibull ?? NaN, 42.660209190385444, 1e-12, 'Weibull AIC');
  relClose(s.aic.exponential ?? NaN, 42.569676218673536, 1e-12, 'exponential AIC');
  assert.is(s.chosen.model, 'exponential');
  assert.is(selectModel(small, { criterion: 'lrt' }).chosen.model, 'exponential');
  assert.is(selectModel(small, { criterion: 'lrt', alpha: 0.2 }).chosen.model, 'weibull');
  // Shape 0.47 on 30 events: overwhelming evidence against the exponential.
  const below = selectModel(cases.shapeBelowOne);
  assert.is(below.chosen.model, 'weibull');
  assert.ok(below.likelihoodRatio && below.likelihoodRatio.pValue < 1e-8);
  assert.throws(() => selectModel(small, { criterion: 'bic' as 'aic' }), /criterion/);
});

test('censoredGaps: sorted gaps as events, the open gap censored, simultaneous occurrences dropped', () => {
  const g = censoredGaps([10, 3, 3, 7, 15], 20);
  assert.equal(g.time, [4, 3, 5, 5]);
  assert.equal(g.event, [true, true, true, false]);
  assert.is(g.droppedTies, 1);
  assert.is(g.sinceLast, 5);
  const atAsOf = censoredGaps([1, 4], 4);
  assert.equal(atAsOf.time, [3]);
  assert.equal(atAsOf.event, [true]);
  assert.is(atAsOf.sinceLast, 0);
  const single = censoredGaps([4], 4);
  assert.equal(single.time, []);
  assert.is(fitWeibull(single).fitted, false);
  assert.throws(() => censoredGaps([], 1), /no occurrences/);
  assert.throws(() => censoredGaps([1, 5], 4), /after asOf/);
  assert.throws(() => censoredGaps([1, NaN], 4), /not a finite number/);
});

test.run();
