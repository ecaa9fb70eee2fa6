/**
 * Financial arithmetic: the cost of an occurrence under the rate card, and counterfactuals (what a fix
 * at a date, or a reduction of the rate, would have avoided) with binomial thinning. Binomial
 * quantiles checked against R: qbinom(c(0.05, 0.95), 10, 0.3) = 1 5; qbinom(c(0.05, 0.95), 40, 0.6) = 19 29.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { defaultRateCard } from '../../engine/config/rateCard.ts';
import { binomialQuantile, counterfactual } from '../../engine/finance/counterfactual.ts';
import { occurrenceCost } from '../../engine/finance/occurrenceCost.ts';
import { normalQuantile } from '../../engine/hazard/normalQuantile.ts';

const DAY = 86_400_000;
const T0 = Date.parse('2024-01-01T00:00:00.000Z');
const at = (day: number) => new Date(T0 + day * DAY).toISOString();
const rateCard = defaultRateCard;

test('the cost of an occurrence: per-severity cost plus downtime hours at the hourly downtime cost', () => {
  assert.is(occurrenceCost(rateCard, 'critical'), 25_000 + 4 * 5_000);
  assert.is(occurrenceCost(rateCard, 'high'), 8_000 + 5_000);
  assert.is(occurrenceCost(rateCard, 'medium'), 2_000 + 0.25 * 5_000);
  assert.is(occurrenceCost(rateCard, 'low'), 300);
  assert.throws(() => occurrenceCost(rateCard, 'urgent' as 'low'), /unknown severity 'urgent'/);
});

const occurrences = [
  { at: at(0), severity: 'high' as const },
  { at: at(10), severity: 'low' as const },
  { at: at(20), severity: 'critical' as const },
  { at: at(30), severity: 'medium' as const },
  { at: at(45), severity: 'medium' as const }, // after as-of
];

test('a fix at a date avoids every occurrence from then to as-of, exactly', () => {
  const r = counterfactual({ occurrences, fixAt: at(15), rateCard, asOf: at(40) });
  assert.is(r.occurrences_in_window, 2);
  assert.is(r.cost_in_window, 45_000 + 3_250);
  assert.equal(r.occurrences_avoided, { estimate: 2, lower: 2, upper: 2 });
  assert.equal(r.cost_avoided, { estimate: 48_250, lower: 48_250, upper: 48_250 });
  assert.equal([r.fix_at, r.window_start, r.window_end, r.reduction, r.currency], [at(15), at(15), at(40), 1, 'USD']);
});

test('a reduction thins the occurrences: expected share, binomial count interval, normal cost interval', () => {
  const r = counterfactual({ occurrences, reduction: 0.5, rateCard, asOf: at(40), level: 0.9 });
  const costs = [13_000, 300, 45_000, 3_250];
  const sum = costs.reduce((a, b) => a + b);
  assert.is(r.occurrences_in_window, 4);
  assert.is(r.window_start, at(0));
  assert.is(r.occurrences_avoided.estimate, 2);
  // qbinom(c(0.05, 0.95), 4, 0.5) = 0 4 in R.
  assert.equal([r.occurrences_avoided.lower, r.occurrences_avoided.upper], [0, 4]);
  assert.is(r.cost_avoided.estimate, sum / 2);
  const spread = normalQuantile(0.95) * Math.sqrt(0.25 * costs.reduce((a, c) => a + c * c, 0));
  assert.ok(Math.abs(r.cost_avoided.lower - Math.max(0, sum / 2 - spread)) < 1e-9);
  assert.ok(Math.abs(r.cost_avoided.upper - Math.min(sum, sum / 2 + spread)) < 1e-9);
  // Both: a fix at day 15 that removes 30% of what follows.
  const both = counterfactual({ occurrences, fixAt: at(15), reduction: 0.3, rateCard, asOf: at(40) });
  assert.ok(Math.abs(both.occurrences_avoided.estimate - 0.6) < 1e-12);
  assert.ok(Math.abs(both.cost_avoided.estimate - 0.3 * 48_250) < 1e-9);
});

test('binomial quantiles agree with R qbinom', () => {
  assert.equal([binomialQuantile(10, 0.3, 0.05), binomialQuantile(10, 0.3, 0.95)], [1, 5]);
  assert.equal([binomialQuantile(40, 0.6, 0.05), binomialQuantile(40, 0.6, 0.95)], [19, 29]);
  assert.is(binomialQuantile(0, 0.5, 0.5), 0);
  assert.is(binomialQuantile(7, 1, 0.05), 7);
});

test('no occurrences in the window: nothing avoided; bad input is refused', () => {
  const none = counterfactual({ occurrences, fixAt: at(35), rateCard, asOf: at(40) });
  assert.equal([none.occurrences_in_window, none.occurrences_avoided.estimate, none.cost_avoided.upper], [0, 0, 0]);
  assert.throws(() => counterfactual({ occurrences, fixAt: at(50), rateCard, asOf: at(40) }), /fixAt must not be after asOf/);
  assert.throws(() => counterfactual({ occurrences, reduction: 0, rateCard, asOf: at(40) }), /reduction must be in \(0, 1\]/);
  assert.throws(() => counterfactual({ occurrences, reduction: 1.5, rateCard, asOf: at(40) }), /reduction/);
  assert.throws(() => counterfactual({ occurrences, fixAt: 'soon', rateCard, asOf: at(40) }), /fixAt must be an ISO time/);
  assert.throws(() => counterfactual({ occurrences, rateCard, asOf: at(40), level: 1 }), /counterfactual: level must be in \(0, 1\), got 1/);
  assert.throws(() => counterfactual({ occurrences: [{ at: 'x', severity: 'low' }], rateCard, asOf: at(40) }), /occurrences\[0\]\.at/);
});

test.run();
