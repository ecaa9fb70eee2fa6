/**
 * The CAP workflow of domain/capWorkflow.ts as pure functions: who may move a CAP where, and the 409
 * that explains each refused move.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { assertNotFinal, assertTransition, capStatuses, isTerminal, nextStatuses, requestsReview, type CapStatus } from '../../domain/capWorkflow.ts';
import { AppError } from '../../lib/errors.ts';

function refusal(fn: () => void): string {
  try {
    fn();
  } catch (err) {
    assert.instance(err, AppError);
    assert.is((err as AppError).code, 'conflict');
    return (err as AppError).message;
  }
  throw new Error('expected a refusal');
}

test('the moves of an edit and of a review decision', () => {
  const edits = Object.fromEntries(capStatuses.map((s) => [s, nextStatuses(s)]));
  assert.equal(edits, {
    draft: ['submitted', 'cancelled'],
    submitted: [],
    approved: ['in_progress', 'cancelled'],
    in_progress: ['verified', 'cancelled'],
    verified: ['in_progress', 'closed', 'cancelled'],
    closed: [],
    rejected: [],
    cancelled: [],
  });
  assert.equal(nextStatuses('submitted', 'review'), ['approved', 'rejected']);
  for (const s of capStatuses.filter((x) => x !== 'submitted')) assert.equal(nextStatuses(s, 'review'), [], s);
  assert.ok(requestsReview('submitted'));
  assert.not.ok(requestsReview('approved'));
});

test('terminal statuses cannot change at all', () => {
  const terminal: CapStatus[] = ['closed', 'rejected', 'cancelled'];
  for (const s of capStatuses) assert.is(isTerminal(s), terminal.includes(s), s);
  assert.is(
    refusal(() => assertNotFinal('closed')),
    "This CAP is 'closed', a final status; it can no longer change.",
  );
  assert.not.throws(() => assertNotFinal('draft'));
});

test('each refused move says why', () => {
  assert.not.throws(() => assertTransition('draft', 'submitted', 'edit'));
  assert.not.throws(() => assertTransition('submitted', 'approved', 'review'));
  assert.is(
    refusal(() => assertTransition('submitted', 'cancelled', 'edit')),
    "This CAP is 'submitted': only a decision on its review moves it.",
  );
  assert.is(
    refusal(() => assertTransition('draft', 'approved', 'edit')),
    "A CAP becomes 'approved' only by a decision on its review.",
  );
  assert.is(
    refusal(() => assertTransition('approved', 'rejected', 'review')),
    "This CAP is 'approved', not 'submitted'; its review can no longer move it.",
  );
  assert.is(
    refusal(() => assertTransition('draft', 'verified', 'edit')),
    "A CAP cannot move from 'draft' to 'verified'; from 'draft' it can move to 'submitted', 'cancelled'.",
  );
  assert.is(
    refusal(() => assertTransition('rejected', 'draft', 'edit')),
    "This CAP is 'rejected', a final status; it can no longer change.",
  );
});

test.run();
