/**
 * Did a fix hold? Counts the pattern's occurrences per period of `periodDays` after the fix (complete
 * periods [fixedAt + i·P, fixedAt + (i+1)·P) that end by `asOf`) and runs the upper Poisson CUSUM of
 * poissonCusum on them. The CUSUM must stay quiet while the fix holds and signal when the pattern
 * returns to its old rate, so:
 * - in control, λ₀ = `targetRate`, the post-fix rate the fix is expected to leave (for a playbook,
 *   pre-fix rate × (1 - expected_reduction));
 * - out of control, λ₁ = `preFixRate`, the rate before the fix: the reference the CUSUM detects a shift
 *   back to. Lucas' k = (λ₁ - λ₀)/(ln λ₁ - ln λ₀) (symmetric in the two rates), h the smallest decision
 *   interval with in-control ARL ≥ `targetArl0` periods (cusumDesign, Brook & Evans).
 * A target of 0 (a fix expected to remove the pattern) is no Poisson in-control rate: the in-control
 * rate is floored at 1% of the pre-fix rate (`in_control_rate` reports the value used).
 *
 * Verdict (poissonCusum): `regressed` once the CUSUM has signalled; else `insufficient_data` while fewer
 * than `minPeriods` (default ⌈2·ARL₁⌉) complete periods are observed; else `holding`.
 */
import { round } from '../round.ts';
import { DAY_MS, parseIsoTime } from '../time.ts';
import { poissonCusum, type CusumVerdict } from './cusum.ts';

/** Floor of the in-control rate as a share of the pre-fix rate. */
const MIN_TARGET_SHARE = 0.01;

export interface VerifyFixInput {
  /** ISO times of the pattern's occurrences (any order; those before the fix are ignored). */
  occurrences: readonly string[];
  /** ISO time the fix was implemented. */
  fixedAt: string;
  /** ISO end of observation. */
  asOf: string;
  /** Length of a counting period in days (> 0). */
  periodDays: number;
  /** Occurrences per period before the fix (λ₁, > 0). */
  preFixRate: number;
  /** Occurrences per period expected after the fix (λ₀, 0 ≤ target < preFixRate). */
  targetRate: number;
  /** In-control average run length to guarantee, in periods (default 370). */
  targetArl0?: number;
  /** Complete periods needed before `holding` can be said (default ⌈2·ARL₁⌉). */
  minPeriods?: number;
}

export interface VerifyFixResult {
  verdict: CusumVerdict;
  fixed_at: string;
  as_of: string;
  period_days: number;
  /** Complete periods after the fix. */
  periods_observed: number;
  /** Occurrences in each complete period. */
  counts: number[];
  /** CUSUM statistic S_t after each period. */
  path: number[];
  /** 1-based period of the first signal, and the ISO end of that period; null when none. */
  signal_period: number | null;
  signal_at: string | null;
  /** λ₀ used (target, floored) and λ₁ (pre-fix), occurrences per period. */
  in_control_rate: number;
  out_of_control_rate: number;
  /** Lucas' reference value, the lattice value the CUSUM uses, and the decision interval. */
  k: number;
  k_used: number;
  h: number;
  /** Requested and achieved in-control ARL (Infinity beyond floating point), and the ARL at the pre-fix rate, in periods. */
  target_arl0: number;
  arl0: number;
  arl1: number;
  min_periods: number;
  /** The run-length assumption in words. */
  assumption: string;
}

const parseTime = (value: string, what: string) => parseIsoTime(value, 'verifyFix', what);

export function verifyFix(input: VerifyFixInput): VerifyFixResult {
  const fixedAt = parseTime(input.fixedAt, 'fixedAt');
  const asOf = parseTime(input.asOf, 'asOf');
  if (asOf < fixedAt) throw new RangeError('verifyFix: asOf must not be before fixedAt');
  const { periodDays, preFixRate, targetRate } = input;
  if (!(periodDays > 0) || !Number.isFinite(periodDays)) throw new RangeError(`verifyFix: periodDays must be a finite number > 0, got ${periodDays}`);
  if (!(preFixRate > 0) || !Number.isFinite(preFixRate)) throw new RangeError(`verifyFix: preFixRate must be a finite number > 0, got ${preFixRate}`);
  if (!(targetRate >= 0 && targetRate < preFixRate)) throw new RangeError(`verifyFix: targetRate must be in [0, preFixRate ${preFixRate}), got ${targetRate}`);

  const periodMs = periodDays * DAY_MS;
  const periods = Math.floor((asOf - fixedAt) / periodMs);
  const counts = new Array<number>(periods).fill(0);
  input.occurrences.forEach((at, i) => {
    const t = parseTime(at, `occurrences[${i}]`);
    if (t < fixedAt) return;
    const period = Math.floor((t - fixedAt) / periodMs);
    if (period < periods) counts[period]++;
  });

  const inControlRate = Math.max(targetRate, MIN_TARGET_SHARE * preFixRate);
  const result = poissonCusum(counts, { inControlRate, outOfControlRate: preFixRate, targetArl0: input.targetArl0, minPeriods: input.minPeriods });
  return {
    verdict: result.verdict,
    fixed_at: new Date(fixedAt).toISOString(),
    as_of: new Date(asOf).toISOString(),
    period_days: periodDays,
    periods_observed: periods,
    counts,
    path: result.path.map((s) => round(s)),
    signal_period: result.signalPeriod,
    signal_at: result.signalPeriod === null ? null : new Date(fixedAt + result.signalPeriod * periodMs).toISOString(),
    in_control_rate: inControlRate,
    out_of_control_rate: preFixRate,
    k: result.k,
    k_used: result.kUsed,
    h: result.h,
    target_arl0: result.targetArl0,
    arl0: result.arl0,
    arl1: result.arl1,
    min_periods: result.minPeriods,
    assumption:
      `Poisson counts per ${periodDays}-day period; in control at ${round(inControlRate, 4)} per period (the fix's target) ` +
      `with an average run length of ${Number.isFinite(result.arl0) ? round(result.arl0, 1) : 'more than 1e308'} periods (at least ${result.targetArl0}) before a false alarm; ` +
      `a return to the pre-fix rate ${round(preFixRate, 4)} is detected after ${round(result.arl1, 1)} periods on average`,
  };
}

/**
 * The pre-fix rate per period: the exponential MLE d / Σt over the occurrences before the fix, with
 * d the occurrences after the first and Σt the time from the first occurrence to the fix (the gaps and
 * the open gap up to the fix), in periods of `periodDays`. Null with fewer than two occurrences before
 * the fix (no rate to compare with).
 */
export function preFixRate(occurrences: readonly string[], fixedAt: string, periodDays: number): number | null {
  const fix = parseTime(fixedAt, 'fixedAt');
  if (!(periodDays > 0) || !Number.isFinite(periodDays)) throw new RangeError(`preFixRate: periodDays must be a finite number > 0, got ${periodDays}`);
  let n = 0;
  let first = Infinity;
  occurrences.forEach((at, i) => {
    const t = parseTime(at, `occurrences[${i}]`);
    if (t >= fix) return;
    n++;
    if (t < first) first = t;
  });
  return n < 2 ? null : ((n - 1) * periodDays * DAY_MS) / (fix - first);
}
