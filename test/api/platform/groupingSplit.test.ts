/**
 * Issue 31: a split found by the engine itself, without any injected lineage. A workspace whose first
 * reports of two failures are too few to form patterns of their own (some land in a larger pattern of
 * another failure) gets many more reports of both; the next run gives them patterns of their own, the
 * larger part keeps the old id, and the old pattern names its successors (`split_into` on GET
 * /v1/patterns/{id}) in a pattern.updated event, on the realtime feed's log and as a webhook.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateIssues, syntheticRecord as toRecord } from '../../../fixtures/synthetic.ts';
import { demoToken, startTestApp, type TestApp } from '../../helpers/app.ts';
import { fresh } from '../../helpers/errors.ts';
import { runEngineToEnd } from '../../helpers/engineRuns.ts';
import type { Client } from '../../helpers/http.ts';
import { listAll } from '../../helpers/isolation.ts';

let t: TestApp;
let api: Client;
test.before(async () => {
  t = await startTestApp({ worker: true });
  api = t.platform.as(await demoToken(t));
});
test.after(async () => t.close());

// Six failures: four common ones from the start; `config` and `auth` arrive with six reports each,
// then with 54 more each.
const all = generateIssues(1500, 7, 6);
const late = new Set(['config', 'auth']);
const few = 6;
const early = all.filter((g) => !late.has(g.theme)).slice(0, 300);
const firstBatch = [...early, ...[...late].flatMap((theme) => all.filter((g) => g.theme === theme).slice(0, few))];
const secondBatch = [...late].flatMap((theme) => all.filter((g) => g.theme === theme).slice(few, 60));
const themeOf = new Map(all.map((g) => [g.external_id, g.theme]));

const run = () => runEngineToEnd(api, 90_000);

/** Pattern id → the themes of its members (theme → count). */
async function composition(): Promise<Map<string, Map<string, number>>> {
  const out = new Map<string, Map<string, number>>();
  for (const issue of await listAll(api, '/v1/issues')) {
    if (!issue.pattern_id) continue;
    const theme = themeOf.get(issue.external_id as string)!;
    const counts = out.get(issue.pattern_id as string) ?? new Map<string, number>();
    counts.set(theme, (counts.get(theme) ?? 0) + 1);
    out.set(issue.pattern_id as string, counts);
  }
  return out;
}
const dominant = (counts: Map<string, number>) => [...counts].sort((a, b) => b[1] - a[1])[0][0];

test('a pattern that held the first reports of two other failures splits when their reports arrive: split_into and pattern.updated', async () => {
  assert.is((await api.post('/v1/ingest/batch', { records: firstBatch.map(toRecord) }, fresh())).status, 202);
  await run();
  const before = await composition();
  // Some of the late failures' few first reports are in patterns of other failures.
  const absorbed = [...before].filter(([, counts]) => !late.has(dominant(counts)) && [...late].some((theme) => counts.has(theme)));
  assert.ok(absorbed.length > 0, JSON.stringify([...before].map(([id, c]) => [id, [...c]])));

  assert.is((await api.post('/v1/ingest/batch', { records: secondBatch.map(toRecord) }, fresh())).status, 202);
  const second = await run();
  const after = await composition();
  // Each late failure now has a pattern of its own.
  const own = new Map([...after].filter(([, counts]) => late.has(dominant(counts))).map(([id, counts]) => [dominant(counts), id]));
  assert.equal([...own.keys()].sort(), [...late].sort(), JSON.stringify([...after].map(([id, c]) => [id, [...c]])));

  // The old patterns that held their first reports name the successors; they keep their id and their own failure.
  const split = [];
  for (const [id, counts] of absorbed) {
    const pattern = (await api.get(`/v1/patterns/${id}`)).body;
    if (!pattern.split_into.length) continue;
    split.push(pattern);
    assert.is(dominant(after.get(id)!), dominant(counts), 'the larger part keeps the id');
    for (const successor of pattern.split_into) {
      assert.ok([...own.values()].includes(successor), `${successor} is a late failure's pattern`);
      assert.not.ok(before.has(successor), 'a successor is a new pattern');
    }
    assert.is(pattern.merged_into, null);
  }
  assert.ok(split.length > 0, 'a split recorded');
  const successors = new Set(split.flatMap((p) => p.split_into));
  assert.ok(successors.size >= 1);

  // pattern.updated in the workspace's event log (what the realtime stream carries) and as a webhook.
  const feed = await listAll(api, '/v1/workspaces/current/events?aggregate_type=pattern');
  for (const p of split) {
    const event = feed.find((e: any) => e.aggregate_id === p.id && e.type === 'pattern.updated' && e.payload.changes?.split_into) as any;
    assert.ok(event, `pattern.updated for ${p.id}`);
    assert.equal(event.payload.changes.split_into, p.split_into);
    assert.is(event.payload.run_id, second.id);
  }
  const outbound = await t.app.pool.query(`select payload from outbound_events where workspace_id = $1 and event_type = 'pattern.updated'`, [
    t.demo.workspaceId,
  ]);
  for (const p of split) {
    const hook = outbound.rows.find((r) => r.payload.pattern_id === p.id && r.payload.change === 'split');
    assert.ok(hook, `webhook for ${p.id}`);
    assert.equal([hook.payload.by, hook.payload.split_into[0], hook.payload.run_id], ['engine', p.id, second.id]);
    assert.ok(hook.payload.issues >= 2);
  }

  // A run with nothing new records no further lineage and changes no id.
  const placed = new Map((await listAll(api, '/v1/issues')).map((i: any) => [i.id, i.pattern_id]));
  await run();
  assert.equal(new Map((await listAll(api, '/v1/issues')).map((i: any) => [i.id, i.pattern_id])), placed);
  for (const p of split) assert.equal((await api.get(`/v1/patterns/${p.id}`)).body.split_into, p.split_into);
});

test.run();
