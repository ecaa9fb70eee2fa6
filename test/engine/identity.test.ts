/**
 * Pattern identity across runs and people's corrections (issue 31), on the pure engine: ids kept under
 * 15% growth and by a run with nothing new, lineage of merges and splits, each grouping decision
 * (merge, move, move out, keep apart) respected and gone once undone, and replay with decisions.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { assignIdentity, type IdentityInput, type IdentityResult } from '../../engine/cluster/identity.ts';
import type { GroupingDecision } from '../../engine/cluster/constraints.ts';
import { runPipeline, type StageOutputs } from '../../engine/pipeline.ts';
import { syntheticInput, testContext, testUuid } from '../helpers/engineInput.ts';

const ids = Array.from({ length: 12 }, (_, i) => testUuid(`issue-${i}`));
const P = testUuid('pattern-P');
const Q = testUuid('pattern-Q');
const R = testUuid('pattern-R');

/** Hand-made groups over `ids` (no embedding: no anchoring, only votes and constraints). */
function run(groups: number[][], previous: Array<{ id: string; members: number[] }>, decisions: GroupingDecision[] = []) {
  const input: IdentityInput = {
    issueIds: ids,
    groups: new Map(groups.map((g, label) => [label, g])),
    previous: previous.map((p) => ({ id: p.id, member_ids: p.members.map((i) => ids[i]) })),
    decisions,
    templated: new Uint8Array(ids.length),
    labels: Int32Array.from(ids, (_, i) => groups.findIndex((g) => g.includes(i))),
    embedding: new Float32Array(0),
    dimensions: 0,
    outlierSimilarity: 0.2,
    newId: (first) => testUuid(`new:${first}`),
  };
  const result = assignIdentity(input);
  return { ...result, patternOf: patternIn(result) };
}

/** The pattern issue i is in, in `result` (null: none). */
function patternIn(result: IdentityResult) {
  return (i: number) => result.groups.find((g) => g.members.includes(i))?.id ?? null;
}

/** Reports on the unit circle at `angles` (degrees), clustered into `groups`, with the `previous` patterns. */
function onCircle(angles: number[], groups: number[][], previous: Array<{ id: string; members: number[] }>): IdentityInput {
  const at = (degrees: number) => [Math.cos((degrees * Math.PI) / 180), Math.sin((degrees * Math.PI) / 180)];
  return {
    issueIds: ids.slice(0, angles.length),
    groups: new Map(groups.map((g, label) => [label, g])),
    previous: previous.map((p) => ({ id: p.id, member_ids: p.members.map((i) => ids[i]) })),
    decisions: [],
    templated: new Uint8Array(angles.length),
    labels: Int32Array.from(angles, (_, i) => groups.findIndex((g) => g.includes(i))),
    embedding: Float32Array.from(angles.flatMap(at)),
    dimensions: 2,
    outlierSimilarity: 0.2,
    newId: (first) => testUuid(`new:${first}`),
  };
}

/** Two clusters of three, each continuing a previous pattern of the same members (P, then Q). */
const TWO_GROUPS = [
  [0, 1, 2],
  [3, 4, 5],
];
const TWO_PATTERNS = [
  { id: P, members: [0, 1, 2] },
  { id: Q, members: [3, 4, 5] },
];

const decision = (n: number, d: Omit<GroupingDecision, 'id' | 'decided_at'>): GroupingDecision => ({
  id: testUuid(`decision-${n}`),
  decided_at: `2024-10-0${n}T00:00:00.000Z`,
  ...d,
});

test('same groups, same ids: a run with nothing new changes no id and records no lineage', () => {
  const r = run(TWO_GROUPS, TWO_PATTERNS);
  assert.equal(
    r.groups.map((g) => g.id),
    [P, Q],
  );
  assert.equal(r.lineage, []);
  assert.is(r.groups[0].match_score, 1);
});

test('a split keeps the id where most members went and names its successor', () => {
  const r = run(
    [
      [0, 1, 2, 3],
      [4, 5, 6],
    ],
    [{ id: P, members: [0, 1, 2, 3, 4, 5] }],
  );
  assert.is(r.patternOf(0), P);
  const successor = r.patternOf(4)!;
  assert.is.not(successor, P);
  assert.equal(r.lineage, [{ kind: 'split', from: P, to: [P, successor], by: 'engine', decision_id: null, issues: 2 }]);
});

test('an engine merge: the smaller pattern goes into the larger and says where', () => {
  const r = run(
    [[0, 1, 2, 3, 4]],
    [
      { id: P, members: [0, 1, 2] },
      { id: Q, members: [3, 4] },
    ],
  );
  assert.is(r.patternOf(3), P);
  assert.equal(r.lineage, [{ kind: 'merge', from: Q, to: [P], by: 'engine', decision_id: null, issues: 2 }]);
});

test("a person's merge unites the two patterns under the target and is reported as theirs; undone, they part again", () => {
  const groups = [
    [0, 1, 2],
    [3, 4, 5, 6],
  ];
  const previous = [
    { id: P, members: [0, 1, 2] },
    { id: Q, members: [3, 4, 5] },
  ];
  const merge = decision(1, { kind: 'merge', source_pattern_id: P, target_pattern_id: Q, issue_ids: [ids[0], ids[1], ids[2]] });
  const r = run(groups, previous, [merge]);
  for (const i of [0, 1, 2, 3, 6]) assert.is(r.patternOf(i), Q, `issue ${i}`);
  assert.equal(r.lineage, [{ kind: 'merge', from: P, to: [Q], by: 'person', decision_id: merge.id, issues: 3 }]);
  assert.ok(r.person_placements.some((p) => p.issue_id === ids[0] && p.decision_id === merge.id && p.kind === 'merge'));
  assert.equal(r.groups.find((g) => g.id === Q)!.decisions, [merge.id]);
  // The next run: the previous run had only Q (with P's members); the merge still holds them together.
  const next = run(groups, [{ id: Q, members: [0, 1, 2, 3, 4, 5, 6] }], [merge]);
  for (const i of [0, 1, 2, 3, 6]) assert.is(next.patternOf(i), Q, `next run, issue ${i}`);
  // Undone (the decision is no longer in force): the clustering's two groups come back apart.
  const undone = run(groups, previous, []);
  assert.is(undone.patternOf(0), P);
  assert.is(undone.patternOf(3), Q);
});

test('a move pins an issue to a pattern (or out of every one), over what the clustering says', () => {
  const [groups, previous] = [TWO_GROUPS, TWO_PATTERNS];
  const move = decision(1, { kind: 'move', source_pattern_id: P, target_pattern_id: Q, issue_ids: [ids[0]] });
  const out = decision(2, { kind: 'move', source_pattern_id: Q, target_pattern_id: null, issue_ids: [ids[5]] });
  const r = run(groups, previous, [move, out]);
  assert.is(r.patternOf(0), Q);
  assert.is(r.patternOf(5), null);
  assert.is(r.patternOf(1), P);
  assert.equal(
    r.person_placements.map((p) => [p.issue_id, p.pattern_id, p.kind]),
    [
      [ids[0], Q, 'move'],
      [ids[5], null, 'move'],
    ],
  );
  // To a pattern no cluster continues this run: the pin keeps that id alive with the issue.
  const toR = decision(3, { kind: 'move', source_pattern_id: P, target_pattern_id: R, issue_ids: [ids[1]] });
  const kept = run(groups, previous, [toR]);
  assert.is(kept.patternOf(1), R);
  // A later decision on the same issue wins.
  const back = decision(4, { kind: 'move', source_pattern_id: R, target_pattern_id: P, issue_ids: [ids[1]] });
  assert.is(run(groups, previous, [toR, back]).patternOf(1), P);
});

test('pins are placed in decision order, not by snapshot position: the same issues in another order give the same placements', () => {
  const [groups, previous] = [TWO_GROUPS, TWO_PATTERNS];
  // The later issue pinned first.
  const first = decision(1, { kind: 'move', source_pattern_id: Q, target_pattern_id: R, issue_ids: [ids[4]] });
  const second = decision(2, { kind: 'move', source_pattern_id: P, target_pattern_id: null, issue_ids: [ids[1]] });
  const placed = (order: number[]) => {
    // Snapshot position k holds issue order[k].
    const at = new Map(order.map((issue, k) => [issue, k]));
    const r = assignIdentity({
      issueIds: order.map((issue) => ids[issue]),
      groups: new Map(groups.map((g, label) => [label, g.map((issue) => at.get(issue)!)])),
      previous: previous.map((p) => ({ id: p.id, member_ids: p.members.map((i) => ids[i]) })),
      decisions: [first, second],
      templated: new Uint8Array(order.length),
      labels: Int32Array.from(order, (issue) => groups.findIndex((g) => g.includes(issue))),
      embedding: new Float32Array(0),
      dimensions: 0,
      outlierSimilarity: 0.2,
      newId: (id) => testUuid(`new:${id}`),
    });
    return r.person_placements.map((p) => [p.issue_id, p.pattern_id, p.decision_id]);
  };
  const forward = placed([0, 1, 2, 3, 4, 5]);
  assert.equal(forward, [
    [ids[4], R, first.id],
    [ids[1], null, second.id],
  ]);
  assert.equal(placed([5, 4, 3, 2, 1, 0]), forward);
  assert.equal(placed([3, 1, 5, 0, 4, 2]), forward);
});

test('keep apart: two issues kept apart never share a pattern; the one a person pinned stays', () => {
  const groups = [[0, 1, 2, 3]];
  const previous = [{ id: P, members: [0, 1, 2, 3] }];
  const apart = decision(1, { kind: 'keep_apart', source_pattern_id: null, target_pattern_id: null, issue_ids: [ids[0], ids[1]] });
  const r = run(groups, previous, [apart]);
  assert.ok(r.patternOf(0) !== r.patternOf(1) || r.patternOf(0) === null);
  assert.is(r.person_placements.length, 1);
  assert.is(r.person_placements[0].kind, 'keep_apart');
  const pin = decision(2, { kind: 'move', source_pattern_id: P, target_pattern_id: P, issue_ids: [ids[1]] });
  const pinned = run(groups, previous, [apart, pin]);
  assert.is(pinned.patternOf(1), P);
  assert.is(pinned.patternOf(0), null);
  // Undone: together again.
  assert.is(run(groups, previous, []).patternOf(1), P);
  assert.is(run(groups, previous, []).patternOf(0), P);
});

test("a near-duplicate pair of left-out reports made mostly of a previous pattern's members continues it; a split pair does not", () => {
  // Label 2 is a pair stage 7 formed from reports the clustering left out (placeProse's labels >= k).
  const groups = new Map([
    [0, [0, 1, 2, 3]],
    [1, [6, 7, 8]],
    [2, [4, 9]],
    [3, [5, 10]],
  ]);
  const input: IdentityInput = {
    issueIds: ids,
    groups,
    previous: [
      { id: P, member_ids: [0, 1, 2, 3, 4, 5].map((i) => ids[i]) },
      { id: Q, member_ids: [6, 7, 8, 10].map((i) => ids[i]) },
    ],
    decisions: [],
    templated: new Uint8Array(ids.length),
    labels: Int32Array.from(ids, (_, i) => (i < 4 ? 0 : i >= 6 && i <= 8 ? 1 : -1)),
    formed: new Set([2, 3]),
    embedding: new Float32Array(0),
    dimensions: 0,
    outlierSimilarity: 0.2,
    newId: (first) => testUuid(`new:${first}`),
  };
  const result = assignIdentity(input);
  const patternOf = patternIn(result);
  // {4 (P), 9 (new)}: half P's, so it continues P, the new report with it; no split recorded.
  assert.is(patternOf(4), P);
  assert.is(patternOf(9), P);
  // {5 (P), 10 (Q)}: no pattern has most of it, so neither pattern takes the other's report with it.
  assert.is.not(patternOf(10), P);
  assert.is.not(patternOf(5), Q);
  assert.equal(
    result.lineage.filter((l) => l.kind === 'split'),
    [],
  );
});

test('a report the clustering left out stays with its pattern wherever a neighbour rule placed it; a clustered one moves on evidence', () => {
  // Two directions in a 2-d embedding: P's reports along x, Q's along y.
  const at = (x: number, y: number) => [x / Math.hypot(x, y), y / Math.hypot(x, y)];
  const rows = [at(1, 0), at(1, 0.1), at(1, -0.1), at(0, 1), at(0.1, 1), at(-0.1, 1), at(0.2, 1), at(0.2, 1)];
  const input: IdentityInput = {
    issueIds: ids.slice(0, 8),
    // Issues 6 and 7 were P's; both are in Q's group this run: 6 by the clustering, 7 by a neighbour rule.
    groups: new Map([
      [0, [0, 1, 2]],
      [1, [3, 4, 5, 6, 7]],
    ]),
    previous: [
      { id: P, member_ids: [0, 1, 2, 6, 7].map((i) => ids[i]) },
      { id: Q, member_ids: [3, 4, 5].map((i) => ids[i]) },
    ],
    decisions: [],
    templated: new Uint8Array(8),
    labels: Int32Array.from([0, 0, 0, 1, 1, 1, 1, 1]),
    // 7 was in an unstable cluster (stage 5 label 1, left out by the stability filter).
    clustered: Int32Array.from([0, 0, 0, 1, 1, 1, 1, -1]),
    embedding: Float32Array.from(rows.flat()),
    dimensions: 2,
    outlierSimilarity: 0.2,
    newId: (first) => testUuid(`new:${first}`),
  };
  const result = assignIdentity(input);
  const patternOf = patternIn(result);
  assert.is(patternOf(6), Q);
  assert.is(patternOf(7), P);
  // With its nearest report (near enough for a neighbour rule to join it) still in P, 6 stays too.
  const linked = assignIdentity({ ...input, nearest: Int32Array.from([1, 0, 0, 4, 3, 3, 0, 3]) });
  assert.is(linked.groups.find((g) => g.members.includes(6))?.id, P);
});

test("a pattern re-cut by a larger k keeps the members at its edge; one the run shows to be another pattern's leaves", () => {
  // P's reports at 0° and, at its edge, 50°; Q's at 90°; one of P's at 88°. This run cuts P: its edge
  // (4, 5) and issue 6 land in the cluster that continues Q.
  const input = onCircle(
    [0, 0, 0, 0, 50, 50, 88, 90, 90, 90, 90],
    [
      [0, 1, 2, 3],
      [4, 5, 6, 7, 8, 9, 10],
    ],
    [
      { id: P, members: [0, 1, 2, 3, 4, 5, 6] },
      { id: Q, members: [7, 8, 9, 10] },
    ],
  );
  const result = assignIdentity(input);
  // 4 and 5: cosine 0.88 to Q's cluster, 0.64 to the part of P that kept its id, 0.83 to P as a
  // whole: within ANCHOR_MARGIN of their pattern, so they stay. 6 (0.99 against 0.46) leaves.
  assert.equal([4, 5, 6].map(patternIn(result)), [P, P, Q]);
  assert.equal(result.lineage, []);
  // The same clusters again, with these patterns as the previous run's: nothing moves.
  const again = assignIdentity({ ...input, previous: result.groups.map((g) => ({ id: g.id, member_ids: g.members.map((i) => ids[i]) })) });
  const shape = (r: typeof result) => r.groups.map((g) => [g.id, [...g.members].sort((a, b) => a - b)]);
  assert.equal(shape(again), shape(result));
});

test("a block of a pattern's members clustered beside another pattern is weighed against that cluster's other reports, not its own pull", () => {
  // P: six reports at 0° and three at 60°; Q: three at 90°. This run puts P's three at 60° with Q's.
  const result = assignIdentity(
    onCircle(
      [0, 0, 0, 0, 0, 0, 60, 60, 60, 90, 90, 90],
      [
        [0, 1, 2, 3, 4, 5],
        [6, 7, 8, 9, 10, 11],
      ],
      [
        { id: P, members: [0, 1, 2, 3, 4, 5, 6, 7, 8] },
        { id: Q, members: [9, 10, 11] },
      ],
    ),
  );
  // Cosine 0.87 to Q's reports and 0.76 to P: they stay. With their own pull in the cluster's
  // centroid (0.97) they would have left.
  assert.equal([6, 7, 8].map(patternIn(result)), [P, P, P]);
  assert.equal([9, 10, 11].map(patternIn(result)), [Q, Q, Q]);
});

// The pipeline: growth of a generated workspace by 15%, a run with nothing new, decisions and replay.
const base = syntheticInput(400, 7, 6);
const grown = (previous: StageOutputs['patterns'], runId: string) =>
  syntheticInput(460, 7, 6, { runId, patterns: previous.patterns.map((p) => ({ id: p.id, member_ids: p.member_ids, terms: p.terms })) }).input;
const first = (await runPipeline({ ctx: testContext({ runId: testUuid('run-1') }), snapshotInput: base.input, to: 'patterns' })).outputs as StageOutputs;
const second = (await runPipeline({ ctx: testContext({ runId: testUuid('run-2') }), snapshotInput: grown(first.patterns, testUuid('run-1')), to: 'patterns' }))
  .outputs as StageOutputs;

test('after 15% growth at least 95% of the issues that had a pattern keep its id', () => {
  const before = new Map(first.snapshot.issues.map((issue, i) => [issue.id, first.patterns.pattern_ids[i]]));
  const after = new Map(second.snapshot.issues.map((issue, i) => [issue.id, second.patterns.pattern_ids[i]]));
  const placed = [...before].filter(([, p]) => p !== null);
  assert.ok(placed.length > 300, `placed ${placed.length}`);
  const kept = placed.filter(([id, p]) => after.get(id) === p).length;
  assert.ok(kept / placed.length >= 0.95, `kept ${kept}/${placed.length}`);
});

test('a run with nothing new changes no id', async () => {
  const third = (
    await runPipeline({ ctx: testContext({ runId: testUuid('run-3') }), snapshotInput: grown(second.patterns, testUuid('run-2')), to: 'patterns' })
  ).outputs as StageOutputs;
  assert.equal(third.patterns.pattern_ids, second.patterns.pattern_ids);
  assert.equal(third.patterns.lineage, []);
});

test('decisions reach the run through the snapshot, are placed by a person, and replay bit-identically', async () => {
  const input = grown(first.patterns, testUuid('run-1'));
  const [a, b] = first.patterns.patterns;
  const moved = b.member_ids[0];
  const decisions: GroupingDecision[] = [
    {
      id: testUuid('d-merge'),
      kind: 'merge',
      source_pattern_id: b.id,
      target_pattern_id: a.id,
      issue_ids: b.member_ids,
      decided_at: '2024-10-20T00:00:00.000Z',
    },
    { id: testUuid('d-move'), kind: 'move', source_pattern_id: a.id, target_pattern_id: null, issue_ids: [moved], decided_at: '2024-10-21T00:00:00.000Z' },
  ];
  const ctx = testContext({ runId: testUuid('run-2d') });
  const one = await runPipeline({ ctx, snapshotInput: { ...input, grouping_decisions: decisions }, to: 'patterns' });
  const two = await runPipeline({ ctx, snapshotInput: { ...input, grouping_decisions: [...decisions].reverse() }, to: 'patterns' });
  assert.equal(
    two.records.map((r) => r.digest),
    one.records.map((r) => r.digest),
  );
  const o = one.outputs as StageOutputs;
  const at = new Map(o.snapshot.issues.map((issue, i) => [issue.id, o.patterns.pattern_ids[i]]));
  assert.is(at.get(moved), null);
  for (const m of b.member_ids.filter((m) => m !== moved)) assert.is(at.get(m), a.id);
  assert.ok(!o.patterns.patterns.some((p) => p.id === b.id));
  assert.ok(o.patterns.lineage!.some((l) => l.kind === 'merge' && l.from === b.id && l.by === 'person'));
  assert.ok(o.patterns.patterns.find((p) => p.id === a.id)!.decisions!.includes(testUuid('d-merge')));
  // Without decisions the snapshot has no grouping_decisions field: digests of earlier runs stay.
  const none = await runPipeline({ ctx, snapshotInput: input, to: 'snapshot' });
  assert.not.ok('grouping_decisions' in (none.outputs.snapshot as object));
});

test.run();
