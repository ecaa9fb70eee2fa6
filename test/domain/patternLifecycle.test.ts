/** The pattern lifecycle of domain/patternLifecycle.ts: one pattern's rule, and the statuses of every pattern a run touches. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { lifecycleStatus, runPatternStatuses } from '../../domain/patternLifecycle.ts';

test('lifecycle rules: a pattern no run finds is watched (never active with zero issues), then resolved; a holding fix resolves it', () => {
  assert.is(lifecycleStatus('active', null, 12), 'watching');
  assert.is(lifecycleStatus('watching', null, 0), 'resolved');
  assert.is(lifecycleStatus('resolved', null, 0), 'resolved');
  assert.is(lifecycleStatus(null, { memberStatuses: ['open', 'closed'], verdict: null }, 2), 'active');
  assert.is(lifecycleStatus('active', { memberStatuses: ['resolved', 'closed'], verdict: null }, 2), 'watching');
  assert.is(lifecycleStatus('watching', { memberStatuses: ['resolved', 'closed'], verdict: 'holding' }, 2), 'resolved');
  assert.is(lifecycleStatus('resolved', { memberStatuses: ['closed'], verdict: 'regressed' }, 1), 'active');
});

test('a run decides every pattern it found and every stored one it did not; an issue it did not read counts as open', () => {
  const stored = new Map([
    ['a', { status: 'active' as const, issue_count: 2 }],
    ['gone', { status: 'active' as const, issue_count: 5 }],
    ['watched', { status: 'watching' as const, issue_count: 0 }],
  ]);
  const statuses = runPatternStatuses(
    [
      { id: 'a', member_ids: ['i1', 'i2'], issue_count: 2 },
      { id: 'new', member_ids: ['i3'], issue_count: 1 },
      { id: 'fixed', member_ids: ['i1'], issue_count: 1 },
    ],
    stored,
    new Map([
      ['i1', 'resolved'],
      ['i2', 'closed'],
    ]),
    new Map([['fixed', 'holding']]),
  );
  assert.equal(Object.fromEntries(statuses), { a: 'watching', new: 'active', fixed: 'resolved', gone: 'watching', watched: 'resolved' });
});

test.run();
