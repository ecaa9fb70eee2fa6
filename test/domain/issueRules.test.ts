/**
 * The issue rules of domain/ as pure functions: every (from, to) pair of the status workflow against
 * CONTRACT.md's list, the severity aliases, and engine eligibility's three outcomes with their edges.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { engineEligibility, FUTURE_TOLERANCE_MS } from '../../domain/engineEligibility.ts';
import { canTransition, issueStatuses } from '../../domain/issueTransitions.ts';
import { normalizeSeverity, severityInputs } from '../../domain/severity.ts';

test('issue transitions: exactly those of CONTRACT.md (open -> in_progress -> resolved -> closed, resolved -> open, open|in_progress -> closed)', () => {
  const allowed = new Set(['open>in_progress', 'in_progress>resolved', 'resolved>closed', 'resolved>open', 'open>closed', 'in_progress>closed']);
  for (const from of issueStatuses) {
    for (const to of issueStatuses) assert.is(canTransition(from, to), allowed.has(`${from}>${to}`), `${from} -> ${to}`);
  }
});

test('severity: the four values and their p/sev aliases, case and spaces ignored; anything else is null', () => {
  assert.is(normalizeSeverity(' P1 '), 'critical');
  assert.is(normalizeSeverity('sev2'), 'high');
  assert.is(normalizeSeverity('Medium'), 'medium');
  assert.is(normalizeSeverity('p4'), 'low');
  assert.is(normalizeSeverity('p5'), null);
  assert.is(normalizeSeverity(''), null);
  assert.is(severityInputs.length, 12);
});

test('eligibility: missing narrative blocks, placeholders and far-future occurrences are ineligible, the rest eligible', () => {
  const received = new Date('2026-01-15T10:00:00Z');
  assert.equal(engineEligibility(null, null, received), { status: 'blocked_no_narrative', reason: 'narrative missing' });
  assert.equal(engineEligibility('   ', null, received).status, 'blocked_no_narrative');
  for (const placeholder of ['N/A', 'tbd', '---', 'see title']) {
    assert.equal(engineEligibility(placeholder, null, received), { status: 'ineligible', reason: 'narrative is a placeholder' }, placeholder);
  }
  const edge = new Date(received.getTime() + FUTURE_TOLERANCE_MS);
  assert.equal(engineEligibility('disk full on node 7', edge, received), { status: 'eligible', reason: null }, 'exactly 24 hours ahead is tolerated');
  assert.equal(engineEligibility('disk full on node 7', new Date(edge.getTime() + 1), received), {
    status: 'ineligible',
    reason: 'occurred_at is more than 24 hours in the future',
  });
});

test.run();
