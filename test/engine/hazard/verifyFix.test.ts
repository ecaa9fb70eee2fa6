/**
 * verifyFix: per-period counts after the fix from ISO times, the CUSUM set up to detect a return from
 * the target rate (in control) to the pre-fix rate (out of control), the verdicts, and seeded
 * simulations of occurrence series: in control the mean run length to a (false) signal is the design's
 * ARL₀ within 20% over 100 runs (run lengths are roughly geometric, so the Monte Carlo standard error is
 * about ARL₀/√100 = 10%), at the pre-fix rate the mean detection time is its ARL₁ within 10% over 200
 * runs (standard error about 3%). Every verifyFix call designs its CUSUM (about 15 ms), which bounds the
 * number of runs; test/engine/hazard/cusum.test.ts checks the ARLs of the CUSUM itself on more runs.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cusumDesign } from '../../../engine/hazard/cusumDesign.ts';
import { poissonSample } from '../../../engine/hazard/poissonSample.ts';
import { preFixRate, verifyFix } from '../../../engine/hazard/verifyFix.ts';
import { createRng, deriveSeed, type Rng } from '../../../engine/rng.ts';

const DAY = 86_400_000;
const FIXED = Date.parse('2024-06-01T00:00:00.000Z');
const at = (day: number) => new Date(FIXED + day * DAY).toISOString();

test('counts per complete period after the fix; earlier occurrences and the incomplete last period are left out', () => {
  const r = verifyFix({
    occurrences: [at(-3), at(0), at(6.9), at(7), at(20), at(21.5), at(22)],
    fixedAt: at(0),
    asOf: at(23), // periods [0,7), [7,14), [14,21); [21,28) is not complete
    periodDays: 7,
    preFixRate: 2,
    targetRate: 0.5,
  });
  assert.equal(r.counts, [2, 1, 1]);
  assert.is(r.periods_observed, 3);
  assert.is(r.path.length, 3);
  assert.is(r.fixed_at, at(0));
  assert.is(r.as_of, at(23));
  assert.is(r.period_days, 7);
});

test("in control at the target rate, out of control at the pre-fix rate: Lucas' k, h for ARL0", () => {
  const r = verifyFix({ occurrences: [], fixedAt: at(0), asOf: at(70), periodDays: 7, preFixRate: 1.5, targetRate: 0.3 });
  const d = cusumDesign(0.3, 1.5, 370);
  assert.is(r.in_control_rate, 0.3);
  assert.is(r.out_of_control_rate, 1.5);
  assert.ok(Math.abs(r.k - (1.5 - 0.3) / Math.log(1.5 / 0.3)) < 1e-12);
  assert.equal([r.k_used, r.h, r.arl0, r.arl1, r.target_arl0], [d.kUsed, d.h, d.arl0, d.arl1, 370]);
  assert.ok(r.arl0 >= 370);
  assert.match(r.assumption, /at least 370/);
  // Ten quiet weeks: more than ⌈2·ARL1⌉ periods, so the fix is holding.
  assert.is(r.min_periods, Math.ceil(2 * d.arl1));
  assert.ok(r.periods_observed >= r.min_periods);
  assert.is(r.verdict, 'holding');
  assert.equal(r.path, new Array(10).fill(0));
  // Two quiet weeks are not enough to say.
  assert.is(verifyFix({ occurrences: [], fixedAt: at(0), asOf: at(14), periodDays: 7, preFixRate: 1.5, targetRate: 0.3 }).verdict, 'insufficient_data');
  // A target of 0 is floored at 1% of the pre-fix rate.
  assert.is(verifyFix({ occurrences: [], fixedAt: at(0), asOf: at(14), periodDays: 7, preFixRate: 2, targetRate: 0 }).in_control_rate, 0.02);
});

test('a return to the old rate signals: regressed, with the period and its end', () => {
  const occurrences = [at(1), at(2), at(8), at(9), at(10), at(15), at(16)];
  const r = verifyFix({ occurrences, fixedAt: at(0), asOf: at(21), periodDays: 7, preFixRate: 2, targetRate: 0.2 });
  let s = 0;
  const expected = [2, 3, 2].map((x) => (s = Math.max(0, s + x - r.k_used)));
  r.path.forEach((v, i) => assert.ok(Math.abs(v - expected[i]) < 1e-6, `S_${i + 1}`));
  assert.is(r.verdict, 'regressed');
  const first = expected.findIndex((v) => v >= r.h - 1e-9) + 1;
  assert.is(r.signal_period, first);
  assert.is(r.signal_at, at(7 * first));
});

/** Occurrence times of `periods` periods of `periodDays` with Poisson(rate) counts, spread uniformly in each period. */
function series(rng: Rng, rate: number, periods: number, periodDays: number): string[] {
  const out: string[] = [];
  for (let p = 0; p < periods; p++) {
    const n = poissonSample(rng, rate);
    for (let i = 0; i < n; i++) out.push(at((p + rng.next()) * periodDays));
  }
  return out;
}

test('seeded simulations: mean run length in control near ARL0, detection at the pre-fix rate near ARL1', () => {
  const options = { periodDays: 7, preFixRate: 1.2, targetRate: 0.3 };
  const d = cusumDesign(0.3, 1.2, 370);
  const runLength = (rate: number, runs: number, periods: number, label: string) => {
    const rng = createRng(deriveSeed(5, label));
    let sum = 0;
    for (let i = 0; i < runs; i++) {
      const r = verifyFix({ ...options, occurrences: series(rng, rate, periods, 7), fixedAt: at(0), asOf: at(periods * 7) });
      sum += r.signal_period ?? periods; // censored runs are counted at their length (rare: P ≈ e^-periods/ARL)
    }
    return sum / runs;
  };
  const inControl = runLength(0.3, 100, Math.ceil(8 * d.arl0), 'in control');
  assert.ok(Math.abs(inControl - d.arl0) <= 0.2 * d.arl0, `simulated ARL0 ${inControl} vs computed ${d.arl0}`);
  const shifted = runLength(1.2, 200, 60, 'regression');
  assert.ok(Math.abs(shifted - d.arl1) <= 0.1 * d.arl1, `simulated ARL1 ${shifted} vs computed ${d.arl1}`);
});

test('seeded series: a fix that held is holding, a regression is regressed', () => {
  const options = { periodDays: 7, preFixRate: 1.2, targetRate: 0.3, fixedAt: at(0), asOf: at(26 * 7) };
  const held = verifyFix({ ...options, occurrences: series(createRng(deriveSeed(8, 'held')), 0.3, 26, 7) });
  assert.is(held.verdict, 'holding');
  const back = verifyFix({ ...options, occurrences: series(createRng(deriveSeed(8, 'back')), 1.2, 26, 7) });
  assert.is(back.verdict, 'regressed');
});

test('preFixRate: the exponential MLE of the occurrences before the fix, per period', () => {
  // Occurrences on days -30, -20, -10 before a fix on day 0: 2 gaps over 30 days → 2/30 per day, 7·2/30 per week.
  assert.ok(Math.abs(preFixRate([at(-30), at(-20), at(-10), at(3)], at(0), 7)! - (7 * 2) / 30) < 1e-12);
  assert.is(preFixRate([at(-30), at(5)], at(0), 7), null);
});

test('a pattern recurring hundreds of times a week before the fix: a sane design and holding while quiet', () => {
  // 1000 occurrences in the week before the fix, and 500 in the second after it, at 0.1 per second.
  const before = Array.from({ length: 1000 }, (_, i) => new Date(FIXED - 7 * DAY + i * 600_000).toISOString());
  const rate = preFixRate(before, at(0), 7)!;
  // No timing assertion: the O(rate) design this replaced took minutes here, beyond the runner's per-file limit.
  const quiet = verifyFix({ occurrences: before, fixedAt: at(0), asOf: at(70), periodDays: 7, preFixRate: rate, targetRate: rate * 0.3 });
  assert.ok(quiet.arl0 >= 370 && quiet.arl1 >= 1, `ARL0 ${quiet.arl0}, ARL1 ${quiet.arl1}`);
  assert.is(quiet.verdict, 'holding');
  // Two occurrences a second before the fix: a pre-fix rate of 604800 a week. The in-control ARL is
  // beyond floating point (stored and served as null), and the assumption says so in words.
  const burst = [new Date(FIXED - 1000).toISOString(), new Date(FIXED - 1000).toISOString()];
  const extreme = verifyFix({ occurrences: burst, fixedAt: at(0), asOf: at(70), periodDays: 7, preFixRate: preFixRate(burst, at(0), 7)!, targetRate: 0 });
  assert.is(extreme.arl0, Infinity);
  assert.is(extreme.verdict, 'holding');
  assert.match(extreme.assumption, /average run length of more than 1e308 periods/);
});

test('bad input is refused with clear errors', () => {
  const base = { occurrences: [], fixedAt: at(0), asOf: at(14), periodDays: 7, preFixRate: 1, targetRate: 0.5 };
  assert.throws(() => verifyFix({ ...base, asOf: at(-1) }), /asOf must not be before fixedAt/);
  assert.throws(() => verifyFix({ ...base, periodDays: 0 }), /periodDays/);
  assert.throws(() => verifyFix({ ...base, preFixRate: 0 }), /preFixRate/);
  assert.throws(() => verifyFix({ ...base, targetRate: 1 }), /targetRate/);
  assert.throws(() => verifyFix({ ...base, fixedAt: 'yesterday' }), /fixedAt must be an ISO time/);
  assert.throws(() => verifyFix({ ...base, occurrences: ['nope'] }), /occurrences\[0\]/);
});

test.run();
