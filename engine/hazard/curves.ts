/**
 * Survival, hazard and cumulative hazard of a fitted Weibull or exponential on a time grid, with
 * pointwise delta-method intervals. With z = (log t - μ)/σ: H(t) = e^z, S(t) = exp(-e^z),
 * h(t) = e^z / (σ t). Intervals are Wald intervals of log H = z (gradient (-1/σ, -z), the
 * complementary log-log scale of S, as in Kalbfleisch & Prentice 2002, §3.6) and of
 * log h = z - log σ - log t (gradient (-1/σ, -z - 1)), mapped back; S's interval follows from H's.
 * Times must be > 0 (the Weibull hazard at 0 is infinite when κ < 1).
 */
import { deltaStandardError } from './deltaMethod.ts';
import { checkFitted, checkLevel, type HazardFit } from './fit.ts';
import { normalQuantile } from './normalQuantile.ts';

export interface HazardCurves {
  level: number;
  times: number[];
  survival: number[];
  survivalLower: number[];
  survivalUpper: number[];
  hazard: number[];
  hazardLower: number[];
  hazardUpper: number[];
  cumulativeHazard: number[];
  cumulativeHazardLower: number[];
  cumulativeHazardUpper: number[];
}

/** `points` evenly spaced times upper/points, 2·upper/points, …, upper. */
export function evenGrid(upper: number, points: number): number[] {
  if (!(upper > 0) || !Number.isFinite(upper)) throw new RangeError(`evenGrid: upper must be a finite number > 0, got ${upper}`);
  if (!Number.isInteger(points) || points < 1) throw new RangeError(`evenGrid: points must be an integer >= 1, got ${points}`);
  return Array.from({ length: points }, (_, i) => (upper * (i + 1)) / points);
}

export function hazardCurves(fit: HazardFit, times: readonly number[], level = 0.95): HazardCurves {
  checkFitted(fit, 'hazardCurves');
  checkLevel(level, 'hazardCurves');
  if (times.length === 0) throw new RangeError('hazardCurves: no times');
  const q = normalQuantile(0.5 + level / 2);
  const sigma = Math.exp(fit.logSigma);
  const out: HazardCurves = {
    level,
    times: [...times],
    survival: [],
    survivalLower: [],
    survivalUpper: [],
    hazard: [],
    hazardLower: [],
    hazardUpper: [],
    cumulativeHazard: [],
    cumulativeHazardLower: [],
    cumulativeHazardUpper: [],
  };
  for (let i = 0; i < times.length; i++) {
    const t = times[i];
    if (!(t > 0) || !Number.isFinite(t)) throw new RangeError(`hazardCurves: times[${i}] must be a finite number > 0, got ${t}`);
    const z = (Math.log(t) - fit.mu) / sigma;
    const seZ = deltaStandardError(fit, -1 / sigma, -z);
    const cumulative = Math.exp(z);
    const cumulativeLower = Math.exp(z - q * seZ);
    const cumulativeUpper = Math.exp(z + q * seZ);
    out.cumulativeHazard.push(cumulative);
    out.cumulativeHazardLower.push(cumulativeLower);
    out.cumulativeHazardUpper.push(cumulativeUpper);
    out.survival.push(Math.exp(-cumulative));
    out.survivalLower.push(Math.exp(-cumulativeUpper));
    out.survivalUpper.push(Math.exp(-cumulativeLower));
    const logHazard = z - fit.logSigma - Math.log(t);
    const seLogHazard = deltaStandardError(fit, -1 / sigma, -z - 1);
    out.hazard.push(Math.exp(logHazard));
    out.hazardLower.push(Math.exp(logHazard - q * seLogHazard));
    out.hazardUpper.push(Math.exp(logHazard + q * seLogHazard));
  }
  return out;
}
