/**
 * The results of engine stages 8-10 as stored by a run (sql/engineResults.ts): every row with its
 * workspace, run and provenance; a run retried after its results committed writes nothing twice (no
 * event, no second alert, the same ids); a later run keeps an implemented recommendation as it was,
 * keeps the others' ids, and enqueues one verification per implemented fix in its transaction, which a
 * re-ingest coalesces with while it waits. A fix without a pre-fix rate verifies as insufficient_data.
 */
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withTransaction } from '../../lib/db.ts';
import { decodeOutput } from '../../engine/manifest.ts';
import type { StageOutputs } from '../../engine/pipeline.ts';
import { contextOf, createEngineRun, executeEngineRun, writeRunResults } from '../../usecases/runEngine.ts';
import { verificationKey } from '../../jobs/queue/recommendation__verify.ts';
import { recommendationVerifyTask } from '../../jobs/tasks/recommendation__verify.ts';
import { findEngineRun, loadStageOutput } from '../../sql/engineRuns.ts';
import { issueLink, provenance } from '../../engine/stages/context.ts';
import { withEventBatch } from '../../sql/events.ts';
import { markImplemented } from '../../sql/recommendations.ts';
import { demoToken, startTestApp, type TestApp } from '../helpers/app.ts';
import { fresh } from '../helpers/errors.ts';
import { DAY, forecastFixture } from '../helpers/forecastFixture.ts';
import type { Client } from '../helpers/http.ts';

let t: TestApp;
let api: Client;
let ws: string;
test.before(async () => {
  t = await startTestApp();
  api = t.platform.as(await demoToken(t));
  ws = t.demo.workspaceId;
});
test.after(async () => t.close());

const { now, records } = await forecastFixture(Date.now());

async function run() {
  const created = await withTransaction(t.app.pool, (client) => createEngineRun(client, t.app, { workspaceId: ws, trigger: 'cli' }));
  return executeEngineRun(t.app, created.id, ws, () => {});
}

const rows = async (sql: string, ...params: unknown[]) => (await t.app.pool.query(sql, [ws, ...params])).rows;
const eventCount = async () => Number((await rows('select count(*) as n from events where workspace_id = $1'))[0].n);
const tables = ['pattern_hazards', 'pattern_alerts', 'predictions', 'prediction_backtests', 'pattern_financials', 'recommendations'];

let first: Awaited<ReturnType<typeof run>>;
test('every stored result carries its workspace, run and provenance', async () => {
  assert.is((await api.post('/v1/ingest/batch', { records }, fresh())).status, 202);
  first = await run();
  assert.equal(first.summary.forecasts, {
    hazards: 2,
    dormant: 0,
    predictions: 2,
    recommendations: 4,
    implemented_kept: 0,
    alerts_raised: 2,
    alerts_resolved: 0,
  });
  for (const table of tables) {
    const stored = await rows(`select workspace_id, run_id, provenance from ${table} where workspace_id = $1`);
    assert.ok(stored.length > 0, table);
    for (const r of stored) assert.equal([r.workspace_id, r.run_id, r.provenance.run_id], [ws, first.run.id, first.run.id], table);
  }
  assert.is((await rows('select * from pattern_hazards where workspace_id = $1')).length, 4);
});

test('an extraction row stores its issue’s whole provenance (shared members sent once per statement, joined in SQL)', async () => {
  const stored = await rows('select issue_id, run_id, provenance, provenance::text as text from issue_extractions where workspace_id = $1');
  assert.ok(stored.length > 0);
  const ctx = await contextOf(t.app, (await findEngineRun(t.app.pool, ws, first.run.id))!);
  const same = await t.app.pool.query<{ text: string }>('select x::jsonb::text as text from unnest($1::text[]) with ordinality as u(x, n) order by n', [
    stored.map((r) => JSON.stringify(provenance(ctx, 'extract', [r.issue_id], issueLink(r.issue_id)))),
  ]);
  stored.forEach((r, i) => {
    assert.is(r.run_id, first.run.id);
    // The same jsonb as the whole object parses to, byte for byte in its text form.
    assert.is(r.text, same.rows[i].text);
  });
});

test('a run whose results are written again (a retry after they committed) changes nothing and raises nothing twice', async () => {
  const stored = {} as Record<string, unknown>;
  for (const stage of ['snapshot', 'extract', 'patterns', 'hazard', 'predict', 'recommend'])
    stored[stage] = decodeOutput((await loadStageOutput(t.app.pool, first.run.id, stage))!.encoded);
  const o = stored as unknown as StageOutputs;
  const snapshot = async () => Promise.all(tables.map((table) => rows(`select * from ${table} where workspace_id = $1 order by 1`)));
  const before = await snapshot();
  const events = await eventCount();
  const ctx = await contextOf(t.app, (await findEngineRun(t.app.pool, ws, first.run.id))!);
  const again = await withTransaction(t.app.pool, (client) =>
    writeRunResults(client, ws, ctx, {
      patterns: { snapshot: o.snapshot, extract: o.extract, patterns: o.patterns },
      forecasts: { hazard: o.hazard, predict: o.predict, recommend: o.recommend },
    }),
  );
  // The open questions are asked again: refreshed in place (issue 17), none opened or superseded.
  const openQuestions = (await rows(`select count(*)::int as n from review_items where workspace_id = $1 and status = 'open' and question_key is not null`))[0]
    .n;
  assert.equal(again.patterns, {
    patterns_created: 0,
    patterns_updated: 0,
    issues_assigned: 0,
    review_items_opened: 0,
    review_items_refreshed: openQuestions,
    review_items_superseded: 0,
  });
  assert.equal([again.forecasts!.alerts_raised, again.forecasts!.alerts_resolved], [0, 0]);
  assert.is(await eventCount(), events, 'no event');
  const after = await snapshot();
  tables.forEach((table, i) => {
    const key = table === 'prediction_backtests' ? 'run_id' : table === 'pattern_hazards' || table === 'pattern_financials' ? 'pattern_id' : 'id';
    assert.equal(
      after[i].map((r) => r[key]),
      before[i].map((r) => r[key]),
      `${table}: the same rows`,
    );
  });
});

test('a later run keeps an implemented recommendation as it was and the others’ ids, and enqueues its verification', async () => {
  const [proposed] = await rows(`select * from recommendations where workspace_id = $1 and status = 'proposed' order by id limit 1`);
  const others = await rows(`select id, pattern_id from recommendations where workspace_id = $1 and id <> $2 order by id`, proposed.id);
  const implementedAt = new Date(now - 140 * DAY);
  await withEventBatch(t.app.pool, ws, (client, events) => markImplemented(client, events, { type: 'system', id: null }, proposed.id, implementedAt));
  const implementedRow = (await rows(`select * from recommendations where workspace_id = $1 and id = $2`, proposed.id))[0];

  const second = await run();
  assert.equal([second.summary.forecasts!.implemented_kept, second.summary.forecasts!.recommendations], [1, 3]);
  const kept = (await rows(`select * from recommendations where workspace_id = $1 and id = $2`, proposed.id))[0];
  assert.equal(kept, implementedRow);
  const rewritten = await rows(`select id, pattern_id, run_id from recommendations where workspace_id = $1 and id <> $2 order by id`, proposed.id);
  assert.equal(
    rewritten.map((r) => [r.id, r.pattern_id]),
    others.map((r) => [r.id, r.pattern_id]),
  );
  assert.ok(rewritten.every((r) => r.run_id === second.run.id));

  const verifications = async () => rows(`select id, status from job_runs where workspace_id = $1 and job_key = $2`, verificationKey(proposed.id));
  const queued = await verifications();
  assert.equal(
    queued.map((j) => j.status),
    ['queued'],
  );
  // Re-ingesting a member of its pattern while that job waits: the same job.
  const [member] = await rows(
    `select source, external_id, title, narrative from issues where workspace_id = $1 and pattern_id = $2 order by id limit 1`,
    proposed.pattern_id,
  );
  const res = await api.post('/v1/ingest/events', { ...member, title: `${member.title} again` }, fresh());
  assert.is(res.status, 202, res.text);
  assert.equal(await verifications(), queued);
  assert.is(Number((await rows(`select count(*) as n from job_runs where workspace_id = $1 and kind = 'recommendation__verify'`))[0].n), 1);
});

test('a fix recorded before the pattern’s first occurrence has no pre-fix rate: insufficient_data with the reason', async () => {
  const [proposed] = await rows(`select * from recommendations where workspace_id = $1 and status = 'proposed' order by id limit 1`);
  await withEventBatch(t.app.pool, ws, (client, events) =>
    markImplemented(client, events, { type: 'system', id: null }, proposed.id, new Date(now - 500 * DAY)),
  );
  const job = {
    app: t.app,
    runId: randomUUID(),
    attempt: 1,
    maxAttempts: 1,
    workspaceId: ws,
    tenantId: null,
    progress: async () => {},
    signal: new AbortController().signal,
  };
  const result = await recommendationVerifyTask.run({ workspace_id: ws, recommendation_id: proposed.id }, job);
  assert.equal(result, { recommendation_id: proposed.id, verdict: 'insufficient_data', periods_observed: 0, regressed_now: false });
  const res = await api.get(`/v1/recommendations/${proposed.id}/verification`);
  assert.is(res.status, 200, res.text);
  assert.equal([res.body.status, res.body.cusum, res.body.periods_observed], ['insufficient_data', null, 0]);
  assert.match(res.body.reason, /no pre-fix rate/);
});

test.run();
