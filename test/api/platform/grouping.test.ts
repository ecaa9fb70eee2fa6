/**
 * Issue 31 over real HTTP, a real worker and Postgres: pattern ids kept when the workspace grows by 15%
 * and by a run with nothing new; people's grouping decisions (merge, move, move out, keep apart) applied
 * at once, audited, in the event log and webhooks, respected by the next run, replayed identically and
 * undone; lineage (`merged_into`) on GET /v1/patterns/{id}; the grouping explanation; and another
 * workspace's token that can neither change nor read this workspace's grouping.
 */
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateIssues, syntheticRecord as toRecord } from '../../../fixtures/synthetic.ts';
import { WebSocket } from 'ws';
import { startRealtime } from '../../../api/platform/realtime/server.ts';
import { demoToken, eventually, startTestApp, type TestApp } from '../../helpers/app.ts';
import { assertError, assertValidation, fresh } from '../../helpers/errors.ts';
import { runEngineToEnd } from '../../helpers/engineRuns.ts';
import type { Client } from '../../helpers/http.ts';
import { provisionWorkspace, provisioningKey, serviceAccountToken } from '../../helpers/identities.ts';
import { listAll } from '../../helpers/isolation.ts';
import { withTransaction } from '../../../lib/db.ts';
import { rebuildProjections } from '../../../sql/projections.ts';
import { decodeOutput } from '../../../engine/manifest.ts';
import type { StageOutputs } from '../../../engine/pipeline.ts';
import { contextOf, writeRunResults } from '../../../usecases/runEngine.ts';
import { findEngineRun, loadStageOutput } from '../../../sql/engineRuns.ts';

const provisioning = provisioningKey();
let t: TestApp;
let api: Client;
test.before(async () => {
  t = await startTestApp({ worker: true, env: provisioning.env });
  api = t.platform.as(await demoToken(t));
});
test.after(async () => t.close());

const generated = generateIssues(345, 5, 4);

const run = () => runEngineToEnd(api, 60_000);

/** Issue id → pattern id (null: none), for every issue of the workspace. */
async function placement(): Promise<Map<string, string | null>> {
  return new Map((await listAll(api, '/v1/issues')).map((i: any) => [i.id, i.pattern_id]));
}
const patternOf = async (issueId: string) => (await api.get(`/v1/issues/${issueId}`)).body.pattern_id as string | null;
const membersOf = async (patternId: string) => (await listAll(api, `/v1/issues?pattern_id=${patternId}`)).map((i: any) => i.id as string).sort();
const biggest = async (): Promise<any[]> => (await listAll(api, '/v1/patterns?sort=-issue_count')).filter((p: any) => p.issue_count > 0);

let firstPlacement: Map<string, string | null>;

test('a pattern keeps its id when the workspace grows by 15%, and a run with nothing new changes no id', async () => {
  assert.is((await api.post('/v1/ingest/batch', { records: generated.slice(0, 300).map(toRecord) }, fresh())).status, 202);
  await run();
  firstPlacement = await placement();
  const placed = [...firstPlacement].filter(([, p]) => p !== null);
  assert.ok(placed.length > 200, `placed ${placed.length}`);
  assert.is((await api.post('/v1/ingest/batch', { records: generated.slice(300).map(toRecord) }, fresh())).status, 202);
  await run();
  const grown = await placement();
  const kept = placed.filter(([id, p]) => grown.get(id) === p).length;
  assert.ok(kept / placed.length >= 0.95, `kept ${kept}/${placed.length}`);
  await run();
  assert.equal([...(await placement())].sort(), [...grown].sort());
});

let A: any;
let B: any;
let merge: any;
let aMembers: string[];

test('merge: the issues go to the target at once, the source answers merged_into, audited, in the log and the webhooks', async () => {
  [B, A] = await biggest();
  aMembers = await membersOf(A.id);
  // A realtime subscriber of the workspace (the stream every API process serves, api/platform/realtime).
  const realtime = await startRealtime(t.app, t.platformServer!.server);
  const received: any[] = [];
  const socket = new WebSocket(`${t.platformServer!.url.replace(/^http/, 'ws')}/v1/realtime`, {
    headers: { authorization: `Bearer ${await demoToken(t)}` },
  });
  socket.on('message', (data) => received.push(JSON.parse(data.toString())));
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const bMembers = await membersOf(B.id);
  const key = fresh();
  const res = await api.post(`/v1/patterns/${A.id}/merge`, { into: B.id, note: 'same outage' }, key);
  assert.is(res.status, 201, res.text);
  merge = res.body;
  assert.is(merge.kind, 'merge');
  assert.is(merge.status, 'active');
  assert.equal([merge.source_pattern_id, merge.target_pattern_id], [A.id, B.id]);
  assert.equal(merge.issue_ids, aMembers);
  // The same Idempotency-Key replays the decision, and records no second one.
  const again = await api.post(`/v1/patterns/${A.id}/merge`, { into: B.id, note: 'same outage' }, key);
  assert.is(again.status, 201);
  assert.is(again.headers.get('idempotency-replayed'), 'true');
  assert.is(again.body.id, merge.id);

  const source = (await api.get(`/v1/patterns/${A.id}`)).body;
  assert.equal([source.merged_into, source.issue_count], [B.id, 0]);
  assert.equal(await membersOf(B.id), [...bMembers, ...aMembers].sort());
  assert.is((await api.get(`/v1/patterns/${B.id}`)).body.issue_count, bMembers.length + aMembers.length);
  assert.equal((await api.get(`/v1/grouping-decisions/${merge.id}`)).body, merge);

  const live = await eventually(
    async () => received.find((m) => m.type === 'pattern.updated' && m.data.id === A.id && m.data.changes?.merged_into === B.id),
    15_000,
    'pattern.updated on the realtime stream',
  );
  assert.is(live.data.decision_id, merge.id);
  socket.close();
  await realtime.close();
  const feed = await listAll(api, '/v1/workspaces/current/events?aggregate_type=pattern');
  assert.ok(feed.some((e: any) => e.aggregate_id === A.id && e.type === 'pattern.updated' && e.payload.changes?.merged_into === B.id));
  const decisions = await listAll(api, '/v1/workspaces/current/events?aggregate_type=grouping_decision');
  assert.ok(decisions.some((e: any) => e.aggregate_id === merge.id && e.type === 'grouping_decision.made'));
  const audit = (await api.get('/v1/audit-events?action=grouping.merged')).body.data;
  assert.ok(audit.some((a: any) => a.target_id === A.id && a.metadata.decision_id === merge.id));
  const outbound = await t.app.pool.query(`select payload from outbound_events where workspace_id = $1 and event_type = 'pattern.updated'`, [
    t.demo.workspaceId,
  ]);
  assert.ok(outbound.rows.some((r) => r.payload.pattern_id === A.id && r.payload.change === 'merged' && r.payload.merged_into === B.id));

  // Merging into a merged pattern, into itself, or twice, is refused.
  assertError(await api.post(`/v1/patterns/${B.id}/merge`, { into: A.id }, fresh()), 409, 'conflict');
  assertValidation(await api.post(`/v1/patterns/${B.id}/merge`, { into: B.id }, fresh()), { into: 'must be another pattern' });
  assertValidation(await api.post(`/v1/patterns/${B.id}/merge`, { into: 'nope' }, fresh()), { into: 'must be a pattern id' });
  assertError(await api.post(`/v1/patterns/${randomUUID()}/merge`, { into: B.id }, fresh()), 404, 'not_found');
});

let mergedRun: any;

test('the next run keeps the merge (must-link), replays bit-identically, and the explanation names the person', async () => {
  mergedRun = await run();
  const now = await placement();
  const together = aMembers.filter((id) => now.get(id) === B.id).length;
  assert.is(together, aMembers.length);
  assert.is((await api.get(`/v1/patterns/${A.id}`)).body.merged_into, B.id);
  const replay = await api.post(`/v1/engine/runs/${mergedRun.id}/replay`);
  assert.is(replay.status, 200, replay.text);
  assert.is(replay.body.identical, true, JSON.stringify(replay.body.diff_summary));

  const why = await api.get(`/v1/issues/${aMembers[0]}/grouping`);
  assert.is(why.status, 200, why.text);
  assert.is(why.body.pattern.id, B.id);
  assert.ok(['templated', 'prose'].includes(why.body.path));
  assert.is(why.body.placed_by.type, 'person');
  assert.is(why.body.placed_by.decision_id, merge.id);
  assert.ok(why.body.decisions.some((d: any) => d.id === merge.id));
  assert.ok(why.body.nearest.length > 0 && why.body.nearest.length <= 5);
  for (const n of why.body.nearest) assert.ok(n.similarity >= 0 && n.similarity <= 1.0001);
  assert.ok(why.body.features.length > 0);
  assert.ok(why.body.similarity_to_pattern > 0);
});

test('undo a merge: the source gets its members back at once and from the next run on', async () => {
  const res = await api.post(`/v1/grouping-decisions/${merge.id}/undo`, undefined, fresh());
  assert.is(res.status, 200, res.text);
  assert.is(res.body.status, 'undone');
  assert.ok(res.body.undone_at);
  const source = (await api.get(`/v1/patterns/${A.id}`)).body;
  assert.equal([source.merged_into, source.issue_count], [null, aMembers.length]);
  assert.equal(await membersOf(A.id), aMembers);
  assertError(await api.post(`/v1/grouping-decisions/${merge.id}/undo`, undefined, fresh()), 409, 'conflict');
  await run();
  const now = await placement();
  const back = aMembers.filter((id) => now.get(id) === A.id).length;
  assert.ok(back / aMembers.length >= 0.9, `back ${back}/${aMembers.length}`);
  assert.is((await api.get(`/v1/patterns/${A.id}`)).body.merged_into, null);
});

test('move to another pattern, move out of any, keep apart: applied at once, respected by the next run, undone', async () => {
  const [big, other] = await biggest();
  const members = await membersOf(big.id);
  const [x, y, u, v] = members as [string, string, string, string];
  const moved = await api.post(`/v1/issues/${x}/move`, { pattern_id: other.id }, fresh());
  assert.is(moved.status, 201, moved.text);
  assert.equal(moved.body.effect.moved, [{ issue_id: x, from: big.id, to: other.id }]);
  const out = await api.post(`/v1/issues/${y}/move`, { pattern_id: null }, fresh());
  assert.is(out.status, 201, out.text);
  const apart = await api.post(`/v1/issues/${u}/keep-apart`, { issue_id: v }, fresh());
  assert.is(apart.status, 201, apart.text);
  assert.equal(apart.body.issue_ids, [u, v]);
  assert.equal([await patternOf(x), await patternOf(y), await patternOf(u), await patternOf(v)], [other.id, null, big.id, null]);

  const r = await run();
  assert.equal([await patternOf(x), await patternOf(y)], [other.id, null]);
  const pu = await patternOf(u);
  const pv = await patternOf(v);
  assert.ok(pu === null || pu !== pv, 'kept apart');
  assert.is(pv, null, 'the second named stays out, as the decision put it');
  const why = (await api.get(`/v1/issues/${x}/grouping`)).body;
  assert.equal([why.pattern.id, why.placed_by.type, why.placed_by.decision_id], [other.id, 'person', moved.body.id]);
  const replay = await api.post(`/v1/engine/runs/${r.id}/replay`);
  assert.is(replay.body.identical, true, JSON.stringify(replay.body.diff_summary));

  // Undone: x goes back at once, and the next run groups x, y, u and v as the clustering says.
  assert.is((await api.post(`/v1/grouping-decisions/${moved.body.id}/undo`, undefined, fresh())).status, 200);
  assert.is(await patternOf(x), big.id);
  assert.is((await api.post(`/v1/grouping-decisions/${out.body.id}/undo`, undefined, fresh())).status, 200);
  assert.is((await api.post(`/v1/grouping-decisions/${apart.body.id}/undo`, undefined, fresh())).status, 200);
  await run();
  assert.equal([await patternOf(x), await patternOf(y), await patternOf(u), await patternOf(v)], [big.id, big.id, big.id, big.id]);
  const audit = (await api.get('/v1/audit-events?action=grouping.undone')).body.data;
  assert.ok(audit.length >= 4);
});

test("another workspace's token can neither merge, move, keep apart, undo nor read this workspace's grouping", async () => {
  const [p, q] = await biggest();
  const [x, y] = (await membersOf(p.id)) as [string, string];
  const decision = (await api.post(`/v1/issues/${x}/keep-apart`, { issue_id: y }, fresh())).body;
  const other = t.platform.as((await provisionWorkspace(t.platform, provisioning.key, 'grouping-attacker')).apiKey);
  assertError(await other.post(`/v1/patterns/${p.id}/merge`, { into: q.id }, fresh()), 404, 'not_found');
  assertError(await other.post(`/v1/issues/${x}/move`, { pattern_id: q.id }, fresh()), 404, 'not_found');
  assertError(await other.post(`/v1/issues/${x}/move`, { pattern_id: null }, fresh()), 404, 'not_found');
  assertError(await other.post(`/v1/issues/${x}/keep-apart`, { issue_id: y }, fresh()), 404, 'not_found');
  assertError(await other.post(`/v1/grouping-decisions/${decision.id}/undo`, undefined, fresh()), 404, 'not_found');
  assertError(await other.get(`/v1/grouping-decisions/${decision.id}`), 404, 'not_found');
  assertError(await other.get(`/v1/issues/${x}/grouping`), 404, 'not_found');
  // Nothing changed here.
  assert.is(await patternOf(x), p.id);
  assert.is((await api.get(`/v1/grouping-decisions/${decision.id}`)).body.status, 'active');
  assert.is((await api.get(`/v1/patterns/${p.id}`)).body.merged_into, null);
  // A reader of patterns cannot write them.
  const reader = t.platform.as(await serviceAccountToken(api, ['patterns:read', 'issues:read']));
  assertError(await reader.post(`/v1/patterns/${p.id}/merge`, { into: q.id }, fresh()), 403, 'forbidden', { required_scope: 'patterns:write' });
  assertError(await reader.post(`/v1/issues/${x}/move`, { pattern_id: null }, fresh()), 403, 'forbidden', { required_scope: 'patterns:write' });
  assert.is((await reader.get(`/v1/issues/${x}/grouping`)).status, 200);
});

test('GET /v1/grouping-decisions: newest first, paged by cursor, filtered, scoped to the workspace', async () => {
  const all: any[] = await listAll(api, '/v1/grouping-decisions');
  assert.ok(all.length >= 5, `${all.length} decisions`);
  for (let i = 1; i < all.length; i++) assert.ok(all[i - 1].decided_at >= all[i].decided_at, 'newest first');
  assert.equal(
    all.find((d: any) => d.id === merge.id),
    (await api.get(`/v1/grouping-decisions/${merge.id}`)).body,
  );
  // Pages of two follow the cursor to the same rows; the total is the filtered count.
  const first = await api.get('/v1/grouping-decisions?limit=2');
  assert.is(first.status, 200, first.text);
  assert.equal([first.body.data.length, first.body.page.has_more, first.body.page.total], [2, true, all.length]);
  const paged: any[] = [...first.body.data];
  for (let cursor = first.body.page.next_cursor; cursor; ) {
    const res = await api.get(`/v1/grouping-decisions?limit=2&cursor=${encodeURIComponent(cursor)}`);
    assert.is(res.status, 200, res.text);
    paged.push(...res.body.data);
    cursor = res.body.page.next_cursor;
  }
  assert.equal(
    paged.map((d) => d.id),
    all.map((d: any) => d.id),
  );
  const oldest = await api.get('/v1/grouping-decisions?sort=decided_at&limit=100');
  assert.equal(
    oldest.body.data.map((d: any) => d.id),
    [...all.map((d: any) => d.id)].reverse(),
  );

  const ids = async (query: string) => (await listAll(api, `/v1/grouping-decisions?${query}`)).map((d: any) => d.id as string);
  const expect = (keep: (d: any) => boolean) => all.filter(keep).map((d: any) => d.id as string);
  assert.equal(
    await ids('kind=merge'),
    expect((d) => d.kind === 'merge'),
  );
  assert.ok((await ids('kind=merge')).includes(merge.id));
  assert.equal(
    await ids('kind=keep_apart'),
    expect((d) => d.kind === 'keep_apart'),
  );
  assert.equal(
    await ids(`pattern_id=${A.id}`),
    expect((d) => d.source_pattern_id === A.id || d.target_pattern_id === A.id),
  );
  assert.ok((await ids(`pattern_id=${B.id}`)).includes(merge.id));
  assert.equal(
    await ids(`issue_id=${aMembers[0]}`),
    expect((d) => d.issue_ids.includes(aMembers[0])),
  );
  assert.ok((await ids(`issue_id=${aMembers[0]}`)).includes(merge.id));
  assert.equal(
    await ids('undone=true'),
    expect((d) => d.status === 'undone'),
  );
  assert.equal(
    await ids('undone=false'),
    expect((d) => d.status === 'active'),
  );
  assert.ok((await ids('undone=true')).length >= 4 && (await ids('undone=false')).length >= 1);
  assert.equal(await ids(`kind=merge&undone=false&pattern_id=${A.id}`), []);
  const filtered = await api.get('/v1/grouping-decisions?kind=merge&limit=1');
  assert.is(filtered.body.page.total, expect((d) => d.kind === 'merge').length);

  // Bad cursors and filters: the /v1 error shape.
  assertValidation(await api.get('/v1/grouping-decisions?cursor=forged'), { cursor: 'malformed cursor token' });
  const second = first.body.page.next_cursor as string;
  assertError(await api.get(`/v1/grouping-decisions?kind=merge&cursor=${encodeURIComponent(second)}`), 400, 'validation_error', {
    cursor: 'does not match this query',
  });
  assertValidation(await api.get('/v1/grouping-decisions?kind=split'), { kind: 'must be one of merge, move, keep_apart' });
  assertValidation(await api.get('/v1/grouping-decisions?pattern_id=nope'), { pattern_id: 'must be a pattern id' });
  assertValidation(await api.get('/v1/grouping-decisions?issue_id=nope'), { issue_id: 'must be an issue id' });
  assertValidation(await api.get('/v1/grouping-decisions?undone=maybe'), { undone: 'must be true or false' });
  assertValidation(await api.get('/v1/grouping-decisions?sort=kind'), { sort: 'must be one of decided_at, -decided_at' });
  assertValidation(await api.get('/v1/grouping-decisions?limit=0'), { limit: 'must be at least 1' });

  // Another workspace's token lists nothing of this one, whatever the filter; a token without patterns:read is refused.
  const other = t.platform.as((await provisionWorkspace(t.platform, provisioning.key, 'grouping-lister')).apiKey);
  const theirs = await other.get('/v1/grouping-decisions');
  assert.is(theirs.status, 200, theirs.text);
  assert.equal([theirs.body.data, theirs.body.page.total, theirs.body.page.has_more], [[], 0, false]);
  assert.equal((await other.get(`/v1/grouping-decisions?pattern_id=${A.id}`)).body.data, []);
  assert.equal((await other.get(`/v1/grouping-decisions?issue_id=${aMembers[0]}`)).body.data, []);
  // Our cursor is bound to our query; in the other workspace it pages over nothing of ours.
  const foreign = await other.get(`/v1/grouping-decisions?limit=2&cursor=${encodeURIComponent(second)}`);
  assert.is(foreign.status, 200, foreign.text);
  assert.equal(foreign.body.data, []);
  const noScope = t.platform.as(await serviceAccountToken(api, ['issues:read']));
  assertError(await noScope.get('/v1/grouping-decisions'), 403, 'forbidden', { required_scope: 'patterns:read' });
});

test("a run's split names the successors on the old pattern (split_into) and goes out as pattern.updated", async () => {
  const latest = (await api.get('/v1/engine/runs?limit=1')).body.data[0];
  const stored = async <T>(stage: string) => decodeOutput<T>((await loadStageOutput(t.app.pool, latest.id, stage))!.encoded);
  const snapshot = await stored<StageOutputs['snapshot']>('snapshot');
  const extract = await stored<StageOutputs['extract']>('extract');
  const patterns = await stored<StageOutputs['patterns']>('patterns');
  const [from, successor] = patterns.patterns;
  // The run's outputs as they were, with a split of `from` into `successor` recorded by stage 7.
  patterns.lineage = [{ kind: 'split', from: from.id, to: [from.id, successor.id], by: 'engine', decision_id: null, issues: 3 }];
  const ctx = await contextOf(t.app, (await findEngineRun(t.app.pool, t.demo.workspaceId, latest.id))!);
  await withTransaction(t.app.pool, (client) => writeRunResults(client, t.demo.workspaceId, ctx, { patterns: { snapshot, extract, patterns } }));
  assert.ok((await api.get(`/v1/patterns/${from.id}`)).body.split_into.includes(successor.id));
  const outbound = await t.app.pool.query(`select payload from outbound_events where workspace_id = $1 and event_type = 'pattern.updated'`, [
    t.demo.workspaceId,
  ]);
  assert.ok(outbound.rows.some((r) => r.payload.pattern_id === from.id && r.payload.change === 'split' && r.payload.by === 'engine'));
  const feed = await listAll(api, `/v1/workspaces/current/events?aggregate_type=pattern`);
  assert.ok(feed.some((e: any) => e.aggregate_id === from.id && e.type === 'pattern.updated' && e.payload.changes?.split_into));
});

test('rebuilding the projections from the log gives the same decisions and lineage', async () => {
  const decisions = async () => (await t.app.pool.query('select * from grouping_decisions where workspace_id = $1 order by id', [t.demo.workspaceId])).rows;
  const lineage = async () =>
    (await t.app.pool.query('select id, merged_into, split_into, issue_count from patterns where workspace_id = $1 order by id', [t.demo.workspaceId])).rows;
  const before = [await decisions(), await lineage()];
  assert.ok(before[0].length >= 5);
  await withTransaction(t.app.pool, (client) => rebuildProjections(client, t.demo.workspaceId));
  assert.equal([await decisions(), await lineage()], before);
});

test.run();
