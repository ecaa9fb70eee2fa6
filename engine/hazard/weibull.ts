/**
 * Maximum-likelihood Weibull fit to right-censored durations, parameterised like R's
 * survreg(Surv(time, status) ~ 1, dist = "weibull"): log T = μ + σ W, W standard extreme value,
 * shape κ = 1/σ, scale λ = exp(μ). With z = (log t - μ)/σ and δ = 1 for an event, the time-scale
 * log-likelihood is ℓ = Σ δ (z - log σ - log t) - Σ e^z (Kalbfleisch & Prentice 2002, §3.6).
 *
 * Starting values solve the profile equation of the shape exactly (it has a unique root, Farnum &
 * Booth 1997): Σ tᵏ log t / Σ tᵏ - 1/κ - mean(log t over events) = 0, then μ = σ log(Σ tᵏ / d).
 * Newton-Raphson on (μ, log σ) with step halving then converges (steps < 1e-12) and gives the
 * observed information, whose inverse is the covariance of (μ, log σ) that R reports as var.
 * Durations are divided by their maximum first, so huge or tiny units cannot overflow.
 *
 * The MLE does not exist without events (`insufficient_events`: the likelihood grows as λ → ∞) or
 * when every event duration equals the longest duration (`no_variation`: κ → ∞); no fit is returned
 * then. Agreement with R (survival 3.5-3) is checked in test/engine/hazard/weibull.test.ts.
 */
import { checkLevel, describeFit, type HazardFitResult, type HazardNotFitted, type NotFittedReason } from './fit.ts';
import { checkSurvivalData, type SurvivalData } from './survivalData.ts';

export interface WeibullOptions {
  /** Level of the shape and scale intervals (default 0.95). */
  level?: number;
  /** Newton-Raphson iterations after the start (default 100). */
  maxIterations?: number;
  /** Starting (μ, log σ) instead of the profile solution; for checking that Newton-Raphson is robust. */
  start?: { mu: number; logSigma: number };
}

interface Evaluation {
  logLik: number;
  gradMu: number;
  gradTau: number;
  hMuMu: number;
  hMuTau: number;
  hTauTau: number;
}

/** ℓ (without the -d·log tMax term), gradient and Hessian in (μ, τ = log σ) on log-durations y scaled by tMax. */
function evaluate(y: Float64Array, event: Uint8Array, mu: number, tau: number): Evaluation {
  const sigma = Math.exp(tau);
  let logLik = 0;
  let gradMu = 0;
  let gradTau = 0;
  let sumEz = 0;
  let hMuTau = 0;
  let hTauTau = 0;
  for (let i = 0; i < y.length; i++) {
    const z = (y[i] - mu) / sigma;
    const ez = Math.exp(z);
    const d = event[i];
    logLik += d * (z - tau - y[i]) - ez;
    gradMu += ez - d;
    gradTau += z * (ez - d) - d;
    sumEz += ez;
    hMuTau += ez - d + z * ez;
    hTauTau += z * (ez - d) + z * z * ez;
  }
  return {
    logLik,
    gradMu: gradMu / sigma,
    gradTau,
    hMuMu: -sumEz / (sigma * sigma),
    hMuTau: -hMuTau / sigma,
    hTauTau: -hTauTau,
  };
}

/**
 * Root in u = log κ of g(κ) = Σ wᵢ yᵢ - 1/κ - ȳ_events with wᵢ ∝ e^{κ yᵢ}; g is strictly increasing
 * (g'(κ) = Var_w(y) + 1/κ²), so bracketing plus safeguarded Newton always finds it. Null if the root
 * lies outside κ ∈ [1e-12, 1e12].
 */
function profileShape(y: Float64Array, meanEventY: number): number | null {
  const g = (u: number): [number, number] => {
    const k = Math.exp(u);
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    for (let i = 0; i < y.length; i++) {
      const w = Math.exp(k * y[i]);
      s0 += w;
      s1 += w * y[i];
      s2 += w * y[i] * y[i];
    }
    const mean = s1 / s0;
    const variance = Math.max(0, s2 / s0 - mean * mean);
    return [mean - 1 / k - meanEventY, k * variance + 1 / k];
  };
  const limit = Math.log(1e12);
  let lo = 0;
  let hi = 0;
  const g0 = g(0)[0];
  if (g0 === 0) return 1;
  if (g0 < 0) {
    for (hi = 1; g(hi)[0] < 0; hi += 1) if (hi > limit) return null;
    lo = hi - 1;
  } else {
    for (lo = -1; g(lo)[0] > 0; lo -= 1) if (lo < -limit) return null;
    hi = lo + 1;
  }
  let u = (lo + hi) / 2;
  for (let iter = 0; iter < 200; iter++) {
    const [value, slope] = g(u);
    if (value === 0) return Math.exp(u);
    if (value < 0) lo = u;
    else hi = u;
    let next = u - value / slope;
    if (!(next > lo && next < hi)) next = (lo + hi) / 2;
    if (Math.abs(next - u) <= 1e-15 * Math.max(1, Math.abs(u)) || hi - lo <= 1e-15 * Math.max(1, Math.abs(u))) return Math.exp(next);
    u = next;
  }
  return Math.exp(u);
}

export function fitWeibull(data: SurvivalData, options: WeibullOptions = {}): HazardFitResult {
  const events = checkSurvivalData(data, 'fitWeibull');
  const level = options.level ?? 0.95;
  checkLevel(level, 'fitWeibull');
  const maxIterations = options.maxIterations ?? 100;
  const n = data.time.length;
  const notFitted = (reason: NotFittedReason, message: string): HazardNotFitted => ({ fitted: false, model: 'weibull', reason, message, n, events });
  if (events === 0) return notFitted('insufficient_events', 'no observed gap between occurrences: the Weibull MLE does not exist');

  // Censored zero durations contribute nothing (S(0) = 1) and are left out.
  let tMax = 0;
  let minEvent = Infinity;
  let kept = 0;
  for (let i = 0; i < n; i++) {
    const t = data.time[i];
    if (t > 0) kept++;
    if (t > tMax) tMax = t;
    if (data.event[i] && t < minEvent) minEvent = t;
  }
  if (minEvent === tMax) {
    return notFitted('no_variation', 'every observed gap equals the longest duration: the Weibull shape estimate is unbounded');
  }
  const y = new Float64Array(kept);
  const event = new Uint8Array(kept);
  let sumEventY = 0;
  for (let i = 0, j = 0; i < n; i++) {
    const t = data.time[i];
    if (!(t > 0)) continue;
    y[j] = Math.log(t / tMax);
    event[j] = data.event[i] ? 1 : 0;
    if (data.event[i]) sumEventY += y[j];
    j++;
  }

  const logScale = Math.log(tMax);
  let mu: number;
  let tau: number;
  if (options.start) {
    if (!Number.isFinite(options.start.mu) || !Number.isFinite(options.start.logSigma)) throw new RangeError('fitWeibull: start must be finite');
    mu = options.start.mu - logScale;
    tau = options.start.logSigma;
  } else {
    const shape0 = profileShape(y, sumEventY / events);
    if (shape0 === null) return notFitted('no_convergence', 'the Weibull shape estimate lies outside [1e-12, 1e12]');
    tau = -Math.log(shape0);
    let sumW = 0;
    for (let i = 0; i < kept; i++) sumW += Math.exp(shape0 * y[i]);
    mu = Math.log(sumW / events) / shape0;
  }

  let current = evaluate(y, event, mu, tau);
  if (!Number.isFinite(current.logLik)) throw new RangeError('fitWeibull: the log-likelihood at start is not finite');
  let iterations = 0;
  let converged = false;
  while (iterations < maxIterations && !converged) {
    iterations++;
    // Newton direction on -H; shifted towards steepest ascent (Levenberg) where -H is not positive definite.
    let a = -current.hMuMu;
    const b = -current.hMuTau;
    let c = -current.hTauTau;
    const minEigen = (a + c) / 2 - Math.sqrt(((a - c) / 2) ** 2 + b * b);
    if (!(minEigen > 0)) {
      const shift = -minEigen + 1e-3 * (Math.abs(a) + Math.abs(c) + 1);
      a += shift;
      c += shift;
    }
    const det = a * c - b * b;
    let stepMu = (c * current.gradMu - b * current.gradTau) / det;
    let stepTau = (a * current.gradTau - b * current.gradMu) / det;
    if (!Number.isFinite(stepMu) || !Number.isFinite(stepTau)) break; // derivatives overflow: only possible from a wild start
    // Keep a first step from overflowing exp(z): at most a unit change in log σ and 5σ in μ.
    const cap = Math.max(Math.abs(stepTau), Math.abs(stepMu) / (5 * Math.exp(tau)));
    if (cap > 1) {
      stepMu /= cap;
      stepTau /= cap;
    }
    let accepted: Evaluation | null = null;
    let halvings = 0;
    for (; halvings < 60; halvings++) {
      const trial = evaluate(y, event, mu + stepMu, tau + stepTau);
      if (Number.isFinite(trial.logLik) && trial.logLik >= current.logLik - 1e-13 * Math.abs(current.logLik)) {
        accepted = trial;
        break;
      }
      stepMu /= 2;
      stepTau /= 2;
    }
    // Far from the optimum (a full step gaining more than one log-likelihood unit), where -Σ e^z dominates
    // and Newton moves z by about 1 per step, keep doubling the step while it still gains.
    if (accepted && halvings === 0 && accepted.logLik - current.logLik > 1) {
      for (let doubling = 0; doubling < 20; doubling++) {
        const trial = evaluate(y, event, mu + 2 * stepMu, tau + 2 * stepTau);
        if (!(Number.isFinite(trial.logLik) && trial.logLik > accepted.logLik)) break;
        accepted = trial;
        stepMu *= 2;
        stepTau *= 2;
      }
    }
    if (!accepted) {
      converged = Math.abs(current.gradMu) + Math.abs(current.gradTau) < 1e-8 * Math.max(1, events);
      break;
    }
    mu += stepMu;
    tau += stepTau;
    current = accepted;
    converged = Math.max(Math.abs(stepMu) / Math.exp(tau), Math.abs(stepTau)) < 1e-12;
  }
  if (!converged) return notFitted('no_convergence', `Newton-Raphson did not converge in ${iterations} iterations`);

  const a = -current.hMuMu;
  const b = -current.hMuTau;
  const c = -current.hTauTau;
  const det = a * c - b * b;
  if (!(a > 0 && det > 0)) return notFitted('no_convergence', 'the observed information is not positive definite at the estimate');
  return describeFit(
    {
      model: 'weibull',
      mu: mu + logScale,
      logSigma: tau,
      covariance: [c / det, -b / det, a / det],
      logLik: current.logLik - events * logScale,
      n,
      events,
      iterations,
    },
    level,
  );
}
