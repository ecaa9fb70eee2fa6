/**
 * Maximum-likelihood exponential fit to right-censored durations (constant hazard): with d events and
 * total time at risk Σt, the rate is d / Σt, so μ = log(Σt / d) (R survreg's intercept with
 * dist = "exponential"), var μ = 1/d from the observed information, and the time-scale
 * log-likelihood is ℓ = d log(d / Σt) - d (Cox & Oakes 1984, §3.2). It is the Weibull with σ = 1,
 * reported in the same form (log σ = 0 with zero variance). Without events the MLE does not exist
 * (`insufficient_events`). Checked against R in the tests.
 */
import { checkLevel, describeFit, type HazardFitResult } from './fit.ts';
import { checkSurvivalData, type SurvivalData } from './survivalData.ts';

export interface ExponentialOptions {
  /** Level of the scale interval (default 0.95). */
  level?: number;
}

export function fitExponential(data: SurvivalData, options: ExponentialOptions = {}): HazardFitResult {
  const events = checkSurvivalData(data, 'fitExponential');
  const level = options.level ?? 0.95;
  checkLevel(level, 'fitExponential');
  const n = data.time.length;
  if (events === 0) {
    return {
      fitted: false,
      model: 'exponential',
      reason: 'insufficient_events',
      message: 'no observed gap between occurrences: the exponential MLE does not exist',
      n,
      events,
    };
  }
  let exposure = 0;
  for (const t of data.time) exposure += t;
  const mu = Math.log(exposure / events);
  return describeFit({ model: 'exponential', mu, logSigma: 0, covariance: [1 / events, 0, 0], logLik: -events * mu - events, n, events, iterations: 0 }, level);
}
