/** The ingest plan of domain/ingestPlan.ts and the PATCH rule of domain/issueUpdate.ts as pure functions. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { IssueInput } from '../../domain/ingestRecord.ts';
import { planIngest } from '../../domain/ingestPlan.ts';
import { issueUpdate, type IssueState } from '../../domain/issueUpdate.ts';
import { AppError } from '../../lib/errors.ts';

const received = new Date('2026-03-01T12:00:00Z');
const record = (external_id: string | null, narrative: string | null = 'disk full on node 7', source = 'ops'): IssueInput => ({
  source,
  external_id,
  title: `t ${external_id}`,
  narrative,
  severity: 'medium',
  occurred_at: null,
});

test('the last record of a key decides its issue; records without a key each get one; keys are per source', () => {
  const plan = planIngest([record('A'), record(null), record('A', null), record('A', null, 'other'), record(null)], received);
  assert.equal(plan.decidingIndex, [2, 1, 2, 3, 4]);
  assert.equal(
    plan.effective.map((e) => e.index),
    [1, 2, 3, 4],
  );
  assert.equal(
    plan.effective.map((e) => e.key === null),
    [true, false, false, true],
  );
});

test('each deciding record is judged for the engine at the time the batch was received', () => {
  const future = { ...record('F'), occurred_at: new Date(received.getTime() + 25 * 3600_000) };
  const plan = planIngest([record('A', 'n/a'), record('B', null), future, record('C')], received);
  assert.equal(
    plan.effective.map((e) => e.eligibility.status),
    ['ineligible', 'blocked_no_narrative', 'ineligible', 'eligible'],
  );
  assert.equal(planIngest([], received), { decidingIndex: [], effective: [] });
});

const issue: IssueState = {
  title: 'Disk full',
  narrative: null,
  severity: 'medium',
  status: 'open',
  occurred_at: null,
  engine_status: 'blocked_no_narrative',
  ineligible_reason: 'narrative missing',
};

test('a PATCH changes what differs; a narrative recomputes the engine status; nothing to change is null', () => {
  assert.is(issueUpdate(issue, { title: 'Disk full', status: 'open' }, received), null);
  assert.equal(issueUpdate(issue, { narrative: 'disk full on node 7', severity: 'high' }, received), {
    changes: { severity: 'high', narrative: 'disk full on node 7', engine_status: 'eligible', ineligible_reason: null },
    statusChange: null,
  });
  assert.equal(issueUpdate(issue, { status: 'in_progress' }, received), { changes: {}, statusChange: { from: 'open', to: 'in_progress' } });
});

test('a status the workflow forbids is a 409 naming both ends', () => {
  try {
    issueUpdate({ ...issue, status: 'closed' }, { status: 'open' }, received);
    assert.unreachable('expected a conflict');
  } catch (err) {
    assert.instance(err, AppError);
    assert.is((err as AppError).code, 'conflict');
    assert.equal((err as AppError).details, { from: 'closed', to: 'open' });
  }
});

test.run();
