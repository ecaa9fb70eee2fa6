/**
 * The trend-renewal process (engine/hazard/trend.ts) against known values: with exponential gaps the
 * profile estimate of β is the closed form of the time-truncated Crow-AMSAA MLE, β̂ = n / Σ log(D/(tᵢ - t₀)),
 * and its AIC the closed-form log-likelihood's; the clock's maps and their inverse; Gauss-Laguerre nodes
 * (n = 2: 2 ∓ √2, weights (2 ± √2)/4) and exactness on polynomials; the mean residual time in days
 * against a numerical integral of the conditional survival; the trend kept for a process that slows
 * down and not for one that does not; and the backtest forecasting on the model's clock.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRng } from '../../../engine/rng.ts';
import { rollingBacktest } from '../../../engine/hazard/backtest.ts';
import { censoredGaps } from '../../../engine/hazard/censoredGaps.ts';
import { describeFit, type HazardFit } from '../../../engine/hazard/fit.ts';
import { meanResidualLife } from '../../../engine/hazard/meanResidualLife.ts';
import { recurrenceProbability } from '../../../engine/hazard/recurrenceProbability.ts';
import { selectModel } from '../../../engine/hazard/selectModel.ts';
import { clockAge, clockHorizon, daysAfter, fitTrendRenewal, gaussLaguerre, meanResidualDays, NO_TREND } from '../../../engine/hazard/trend.ts';

const close = (a: number, b: number, tol: number, what: string) => assert.ok(Math.abs(a - b) <= tol * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);

/** A power-law Poisson process (Crow-AMSAA) from t₀ = 0: Λ(t) = (t/θ)^β, occurrences at Λ⁻¹ of unit-rate arrivals. */
function powerLawProcess(seed: number, beta: number, theta: number, end: number): number[] {
  const rng = createRng(seed);
  const times = [0];
  let cumulative = 0;
  for (;;) {
    cumulative += -Math.log(1 - rng.next());
    const t = theta * cumulative ** (1 / beta);
    if (t >= end) return times;
    times.push(t);
  }
}

test('exponential gaps: β̂ is the closed-form Crow-AMSAA MLE n / Σ log(D/(tᵢ - t₀)), and the AIC its log-likelihood', () => {
  // Every gap equal: the Weibull has no estimate, so the family is the exponential.
  const regular = Array.from({ length: 11 }, (_, i) => 10 * i);
  // A Poisson process (the exponential is chosen for it without a trend).
  const poisson = powerLawProcess(1, 1, 5, 400);
  for (const [times, asOf] of [
    [regular, 105],
    [poisson, 400],
  ] as const) {
    const model = fitTrendRenewal(times, asOf);
    assert.is(selectModel(censoredGaps(times, asOf)).chosen.model, 'exponential');
    const t0 = times[0];
    const span = asOf - t0;
    const n = times.length - 1;
    let sumLog = 0;
    for (const t of times.slice(1)) sumLog += Math.log(span / (t - t0));
    const beta = n / sumLog;
    close(model.beta, beta, 1e-6, 'β̂');
    // ℓ(β) = n log(nβ/D) - n + (β - 1) Σ log((tᵢ - t₀)/D), two parameters.
    const logLik = n * Math.log((n * beta) / span) - n - (beta - 1) * sumLog;
    close(model.aicTrend!, -2 * logLik + 4, 1e-9, 'AIC of the trend');
    close(model.aicRenewal!, -2 * (n * Math.log(n / span) - n) + 2, 1e-9, 'AIC of the renewal');
  }
});

test('the clock: Λ(T + h) - Λ(T) and its inverse, the age of a silence, and the identity without a trend', () => {
  const clock = { beta: 0.6, span: 1000 };
  // Λ(t) = (D/β)((t - t₀)/D)^β with t₀ = T - D.
  const big = (t: number) => (clock.span / clock.beta) * (t / clock.span) ** clock.beta;
  close(clockHorizon(clock, 30), big(1030) - big(1000), 1e-12, 'horizon');
  close(clockAge(clock, 30), big(1000) - big(970), 1e-12, 'age');
  close(clockAge(clock, 1000), big(1000), 1e-12, 'age of the whole span');
  for (const h of [0.5, 7, 30, 90, 5000]) close(daysAfter(clock, clockHorizon(clock, h)), h, 1e-12, `inverse at ${h}`);
  // The clock runs at the speed of days at as-of: Λ'(T) = 1.
  close(clockHorizon(clock, 1e-6) / 1e-6, 1, 1e-6, "Λ'(T)");
  assert.is(clockHorizon(NO_TREND, 30), 30);
  assert.is(clockAge(NO_TREND, 30), 30);
  assert.is(daysAfter(NO_TREND, 30), 30);
});

test('Gauss-Laguerre: the 2-point rule and exactness on x^k, k < 2n', () => {
  const two = gaussLaguerre(2);
  close(two.nodes[0], 2 - Math.SQRT2, 1e-14, 'x₁');
  close(two.nodes[1], 2 + Math.SQRT2, 1e-14, 'x₂');
  close(two.weights[0], (2 + Math.SQRT2) / 4, 1e-14, 'w₁');
  close(two.weights[1], (2 - Math.SQRT2) / 4, 1e-14, 'w₂');
  const rule = gaussLaguerre(10);
  let factorial = 1;
  for (let k = 0; k < 20; k++) {
    if (k > 0) factorial *= k;
    let sum = 0;
    for (let i = 0; i < 10; i++) sum += rule.weights[i] * rule.nodes[i] ** k;
    close(sum, factorial, 1e-10, `∫ x^${k} e^-x`);
  }
});

const weibull = (shape: number, scale: number): HazardFit =>
  describeFit(
    { model: 'weibull', mu: Math.log(scale), logSigma: -Math.log(shape), covariance: [0.01, 0, 0.01], logLik: 0, n: 10, events: 10, iterations: 1 },
    0.9,
  );

test('mean residual time in days with a trend equals ∫ S(age + Λ(T + u) - Λ(T)) du / S(age), and meanResidualLife without one', () => {
  for (const [shape, scale, beta, span, since] of [
    [0.8, 20, 0.6, 1000, 15],
    [1.4, 10, 1.5, 600, 4],
    [1, 30, 0.5, 1500, 0],
  ]) {
    const fit = weibull(shape, scale);
    const clock = { beta, span };
    const age = clockAge(clock, since);
    const survival = (x: number) => Math.exp(-((x / scale) ** shape));
    const conditional = (u: number) => survival(age + clockHorizon(clock, u)) / survival(age);
    // Simpson's rule on u = v², which smooths the start, up to where the conditional survival is below e^-40.
    let upper = 1;
    while (conditional(upper) > Math.exp(-40)) upper *= 2;
    const steps = 200_000;
    const vMax = Math.sqrt(upper);
    const hStep = vMax / steps;
    const f = (v: number) => 2 * v * conditional(v * v);
    let sum = f(0) + f(vMax);
    for (let i = 1; i < steps; i++) sum += (i % 2 ? 4 : 2) * f(i * hStep);
    const integral = (sum * hStep) / 3;
    close(meanResidualDays(fit, clock, since, 0.9).estimate, integral, 1e-7, `E residual (κ ${shape}, β ${beta})`);
  }
  const fit = weibull(0.7, 12);
  assert.equal(meanResidualDays(fit, NO_TREND, 9, 0.9), meanResidualLife(fit, 9, 0.9));
});

test('the trend is kept for a process that slows down (β = 0.4), not for a homogeneous one', () => {
  const slowing = powerLawProcess(11, 0.4, 0.05, 1500);
  const model = fitTrendRenewal(slowing, 1500);
  assert.ok(model.trended, `aic ${model.aicTrend} vs ${model.aicRenewal}`);
  assert.ok(model.beta > 0.25 && model.beta < 0.6, `β̂ ${model.beta}`);
  assert.ok(model.aicTrend! < model.aicRenewal!);
  assert.equal(model.clock, { beta: model.beta, span: 1500 });
  close(model.clockSinceLast, clockAge(model.clock, 1500 - slowing.at(-1)!), 1e-12, 'clock age');
  const homogeneous = powerLawProcess(5, 1, 4, 1500);
  const flat = fitTrendRenewal(homogeneous, 1500);
  assert.not.ok(flat.trended, `β̂ ${flat.beta}`);
  assert.equal(flat.clock, NO_TREND);
  assert.equal(flat.chosen, selectModel(censoredGaps(homogeneous, 1500)).chosen);
  assert.equal(fitTrendRenewal(slowing, 1500, { trend: false }).clock, NO_TREND);
});

test('backtest: forecasts on the model clock, and the renewal model alone with trend: false', () => {
  const slowing = powerLawProcess(11, 0.4, 0.05, 1500);
  const series = [{ id: 's', times: slowing }];
  const options = { origins: [1200], horizon: 30, asOf: 1500, minGaps: 3, level: 0.9, seed: 1, paths: { maxPaths: 50, minPaths: 50, budget: 10_000 } };
  const before = slowing.filter((t) => t < 1200);
  const [withTrend] = rollingBacktest(series, options);
  const model = fitTrendRenewal(before, 1200);
  assert.ok(model.trended);
  if (!model.chosen.fitted) throw new Error('not fitted');
  close(
    withTrend.forecasts[0].probability,
    recurrenceProbability(model.chosen, model.clockSinceLast, clockHorizon(model.clock, 30)).estimate,
    1e-12,
    'p with the trend',
  );
  const [renewal] = rollingBacktest(series, { ...options, trend: false });
  const fit = selectModel(censoredGaps(before, 1200)).chosen;
  if (!fit.fitted) throw new Error('not fitted');
  close(renewal.forecasts[0].probability, recurrenceProbability(fit, 1200 - before.at(-1)!, 30).estimate, 1e-12, 'p of the renewal model');
  // The process slows down: the renewal model, fitted on the whole history, forecasts more.
  assert.ok(renewal.forecasts[0].probability > withTrend.forecasts[0].probability);
});

test.run();
