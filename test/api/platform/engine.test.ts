/**
 * Engine runs end to end over real HTTP, a real worker and Postgres: ingest generated issues with
 * known themes, trigger runs, read manifests and stability reports, patterns with provenance, root
 * causes and abstentions, replay (also after a restart and after tampering), pattern ids across
 * growing data, reviewers' decisions feeding the next run, one run at a time per workspace,
 * validation, scopes and workspace isolation.
 */
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger } from '../../../lib/logger.ts';
import { createPool, type Pool } from '../../../lib/db.ts';
import { listen, type RunningServer } from '../../../api/http/server.ts';
import { buildHttpApps, createAppContext } from '../../../scripts/processes.ts';
import { startWorker, type WorkerHandle } from '../../../jobs/worker.ts';
import { tasks } from '../../../jobs/tasks/index.ts';
import { ENGINE_VERSION, outputDigest } from '../../../engine/manifest.ts';
import { stageNames } from '../../../engine/pipeline.ts';
import { configKinds } from '../../../engine/config/index.ts';
import { defaultCluster } from '../../../engine/config/cluster.ts';
import { issueDigest } from '../../../engine/stages/context.ts';
import { generateIssues, syntheticRecord as toRecord } from '../../../fixtures/synthetic.ts';
import { demoToken, startTestApp, type TestApp } from '../../helpers/app.ts';
import { assertError, assertValidation, fresh } from '../../helpers/errors.ts';
import { client, type Client } from '../../helpers/http.ts';
import { provisionWorkspace, provisioningKey, serviceAccountToken } from '../../helpers/identities.ts';
import { listAll } from '../../helpers/isolation.ts';
import { createPattern } from '../../helpers/eventFixtures.ts';

const provisioning = provisioningKey();
let t: TestApp;
let token: string;
let api: Client;
test.before(async () => {
  t = await startTestApp({ worker: true, env: provisioning.env });
  token = await demoToken(t);
  api = t.platform.as(token);
});
test.after(async () => {
  await restarted?.close();
  await t.close();
});

const THEMES = 4;
const DATA_SEED = 5;
const generated = generateIssues(330, DATA_SEED, THEMES);

/** Issues with a known outcome, ingested next to the generated ones. */
const special = {
  clear: {
    external_id: 'clear',
    source: 'special',
    severity: 'high',
    title: 'Out of memory in billing',
    narrative: 'The billing worker hit out of memory: heap space exhausted after the nightly job.',
  },
  // No keyword of the shipped taxonomy (domains or root causes) appears in this text. Severe enough
  // (high) that, left in no pattern, it asks its own questions (engine/review/questions.ts).
  vague: {
    external_id: 'vague',
    source: 'special',
    severity: 'high',
    title: 'Quarterly figures look odd',
    narrative: 'The quarterly figures shown to finance look odd compared with last quarter.',
  },
  silent: { external_id: 'silent', source: 'special', severity: 'low', title: 'Something happened overnight' },
};
const ids: Record<keyof typeof special, string> = { clear: '', vague: '', silent: '' };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function startRun(body: Record<string, unknown> = {}, caller = api): Promise<{ run_id: string; job_id: string }> {
  const res = await caller.post('/v1/engine/runs', body, fresh());
  assert.is(res.status, 202, res.text);
  assert.equal(Object.keys(res.body).sort(), ['job_id', 'run_id', 'status']);
  assert.is(res.body.status, 'queued');
  return res.body;
}

/** Polls GET /v1/engine/runs/{id} (every 200 ms, well inside the rate limit) until the run finished. */
async function waitForRun(runId: string, caller = api): Promise<any> {
  const deadline = Date.now() + 45_000;
  for (;;) {
    const res = await caller.get(`/v1/engine/runs/${runId}`);
    assert.is(res.status, 200, res.text);
    if (['succeeded', 'failed', 'cancelled'].includes(res.body.status)) {
      assert.is(res.body.status, 'succeeded', JSON.stringify(res.body));
      return res.body;
    }
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${res.body.status}`);
    await sleep(200);
  }
}

const runAndWait = async (body: Record<string, unknown> = {}) => waitForRun((await startRun(body)).run_id);

async function replay(runId: string, caller = api) {
  const res = await caller.post(`/v1/engine/runs/${runId}/replay`);
  assert.is(res.status, 200, res.text);
  return res.body;
}

const allPatterns = () => listAll(api, '/v1/patterns');
const extractProvenance = (issueId: string) => ({
  run_id: first.id,
  stage: 'extract',
  config_versions: first.manifest.config_versions,
  issue_count: 1,
  issue_digest: issueDigest([issueId]),
  issues_url: `/v1/issues/${issueId}`,
});
const maxSequence = async () =>
  Number((await t.app.pool.query('select max(sequence) as s from events where workspace_id = $1', [t.demo.workspaceId])).rows[0].s);

let first: any;
let activeConfigIds: Record<string, string>;

test('ingested issues, a run: 202 queued, then succeeded with a full manifest and stability report', async () => {
  const records = [...generated.slice(0, 300).map(toRecord), special.clear, special.vague, special.silent];
  const ingested = await api.post('/v1/ingest/batch', { records }, fresh());
  assert.is(ingested.status, 202, ingested.text);
  assert.equal(ingested.body.engine_status_summary, { eligible: 302, blocked_no_narrative: 1, ineligible: 0 });
  const [clear, vague, silent] = ingested.body.issue_ids.slice(300);
  Object.assign(ids, { clear, vague, silent });

  const sequence = await maxSequence();
  const before = Date.now();
  const { run_id, job_id } = await startRun();
  const after = Date.now();
  const run = await waitForRun(run_id);
  first = run;
  assert.is(run.id, run_id);
  assert.is(run.job_id, job_id);
  assert.is(run.trigger, 'api');
  assert.equal([run.stage_from, run.stage_to], ['snapshot', 'recommend']);
  assert.is(run.progress, 100);
  assert.equal(run.steps_completed, stageNames);
  assert.is(run.error_detail, null);

  const m = run.manifest;
  assert.is(m.engine_version, ENGINE_VERSION);
  assert.is(m.seed, defaultCluster.seed);
  // Without as_of in the body the run is as of the request.
  assert.ok(Date.parse(m.as_of) >= before && Date.parse(m.as_of) <= after, m.as_of);
  assert.is(m.event_sequence, sequence); // every event before the trigger, nothing after
  assert.is(m.previous_run_id, null);
  assert.is(m.base_run_id, null);
  assert.match(m.input_digest, /^[0-9a-f]{64}$/);
  activeConfigIds = Object.fromEntries((await api.get('/v1/configs')).body.data.map((c: any) => [c.kind, c.active.id]));
  assert.equal(Object.keys(m.config_versions).sort(), [...configKinds].sort());
  assert.equal(m.config_versions, activeConfigIds);
  assert.equal(
    m.stages.map((s: any) => s.stage),
    stageNames,
  );
  for (const s of m.stages) {
    assert.equal(Object.keys(s).sort(), ['bytes', 'digest', 'duration_ms', 'stage']);
    assert.match(s.digest, /^[0-9a-f]{64}$/);
    assert.ok(Number.isInteger(s.bytes) && s.bytes > 0, JSON.stringify(s));
    assert.ok(Number.isInteger(s.duration_ms) && s.duration_ms >= 0, JSON.stringify(s));
  }
  assert.is(m.output_digest, outputDigest(m.stages));

  // The stability report of stage 6: every theme found is a stable cluster.
  const report = run.stability_report;
  assert.is(report.bootstraps, defaultCluster.bootstrap_samples);
  assert.equal(report.summary, { stable: THEMES, doubtful: 0, unstable: 0, unassessed: 0 });
  assert.is(report.clusters.length, THEMES);
  for (const c of report.clusters) assert.equal(Object.keys(c).sort(), ['jaccard', 'label', 'size', 'status']);

  // The summary counts what the API counts, and says what the engine left out and why.
  assert.is(run.summary.issues, (await listAll(api, '/v1/issues')).length);
  assert.is(run.summary.issues_analysed, 302); // the issue without narrative is not an input
  assert.equal(run.summary.issues_left_out, [{ engine_status: 'blocked_no_narrative', reason: 'no narrative', count: 1 }]);
  assert.is(run.summary.k, THEMES);
  assert.equal([run.summary.patterns, run.summary.patterns_found, run.summary.patterns_not_found], [THEMES, THEMES, []]);
  assert.is(run.summary.applied.patterns_created, THEMES);

  // Stored stage outputs carry the manifest's digests; the job recorded every stage.
  const stored = await t.app.pool.query('select stage, digest, bytes from engine_stage_outputs where run_id = $1', [run_id]);
  assert.equal(stored.rows.map((r) => [r.stage, r.digest, Number(r.bytes)]).sort(), m.stages.map((s: any) => [s.stage, s.digest, s.bytes]).sort());
  const job = await api.get(`/v1/jobs/${job_id}`);
  assert.is(job.body.kind, 'engine__run');
  assert.is(job.body.status, 'succeeded');
  assert.equal(job.body.steps_completed, stageNames);
});

test('GET /v1/engine/runs lists the run, newest first', async () => {
  const list = await api.get('/v1/engine/runs');
  assert.is(list.status, 200, list.text);
  assert.is(list.body.data.length, 1);
  assert.equal(list.body.data[0], first);
  assertError(await api.get(`/v1/engine/runs/${randomUUID()}`), 404, 'not_found');
  assertError(await api.get('/v1/engine/runs/not-a-uuid'), 404, 'not_found');
});

test('patterns are real, with provenance; their issues carry pattern_id; an issue without narrative has none', async () => {
  const patterns = await allPatterns();
  assert.is(patterns.length, THEMES);
  const themeOf = new Map(generated.map((g) => [g.external_id, g.theme]));
  let clustered = 0;
  for (const p of patterns as any[]) {
    assert.is(p.status, 'active');
    // Readable (issue 17): the most central member's title first, representative examples, prose path.
    assert.ok(p.examples.length >= 1 && p.examples.length <= 3, JSON.stringify(p.examples));
    assert.ok(p.name.startsWith(p.examples[0].title.slice(0, 20)), `${p.name} | ${p.examples[0].title}`);
    assert.equal([p.path, p.template], ['prose', null]);
    assert.ok(Number.isInteger(p.risk_score) && p.risk_score >= 0 && p.risk_score <= 100);
    // Bounded provenance: a count, a digest of the member ids and the link that lists them.
    assert.equal(Object.keys(p.provenance).sort(), ['config_versions', 'issue_count', 'issue_digest', 'issues_url', 'run_id', 'stage']);
    assert.is(p.provenance.run_id, first.id);
    assert.is(p.provenance.stage, 'patterns');
    assert.equal(p.provenance.config_versions, first.manifest.config_versions);
    assert.is(p.provenance.issue_count, p.issue_count);
    assert.is(p.provenance.issues_url, `/v1/issues?pattern_id=${p.id}`);
    // The pattern's issues are exactly the issues that carry its id (the link lists them), and mostly of one theme.
    const members = await listAll(api, p.provenance.issues_url);
    assert.is(issueDigest(members.map((i) => i.id as string)), p.provenance.issue_digest);
    for (const e of p.examples)
      assert.ok(
        members.some((m) => m.id === e.issue_id),
        e.issue_id,
      );
    const themes = new Map<string, number>();
    for (const m of members)
      themes.set(themeOf.get(m.external_id as string) ?? 'special', (themes.get(themeOf.get(m.external_id as string) ?? 'special') ?? 0) + 1);
    assert.ok(Math.max(...themes.values()) >= 0.9 * members.length, `${p.name}: ${JSON.stringify([...themes])}`);
    const one = await api.get(`/v1/patterns/${p.id}`);
    assert.equal(one.body, p);
    clustered += p.issue_count;
  }
  const linked = await listAll(api, '/v1/issues?has_pattern=true');
  assert.is(linked.length, clustered);
  assert.is(clustered, 302 - first.summary.unclustered);
  assert.ok(linked.every((i) => typeof i.pattern_id === 'string'));
  const silent = await api.get(`/v1/issues/${ids.silent}`);
  assert.is(silent.body.engine_status, 'blocked_no_narrative');
  assert.is(silent.body.pattern_id, null);
  assert.ok((await listAll(api, '/v1/issues?has_pattern=false')).some((i) => i.id === ids.silent));
});

test('GET /v1/issues/{id}/root-cause: decided with evidence for a clear issue', async () => {
  const res = await api.get(`/v1/issues/${ids.clear}/root-cause`);
  assert.is(res.status, 200, res.text);
  const b = res.body;
  assert.is(b.status, 'decided');
  assert.equal(b.root_cause, { id: 'resource_exhaustion', name: 'Resource exhaustion' });
  // Title "out of memory" 2 + narrative "heap space" 1 + "exhausted" 1 = 4, no runner-up: 1 − e^−4.
  assert.is(b.confidence, 0.981684);
  assert.is(b.source, 'engine');
  assert.equal(b.evidence, ['exhausted', 'heap space', 'out of memory']);
  assert.equal(b.candidates, [{ id: 'resource_exhaustion', score: 4 }]);
  assert.is(b.review_item_id, null);
  assert.is(b.domain.value, 'compute');
  assert.is(b.criticality.level, 'moderate'); // high 0.5, no rubric signal
  assert.equal(b.provenance, extractProvenance(ids.clear));
});

test('GET /v1/issues/{id}/root-cause: abstained with a review item for an issue without evidence and for one without narrative', async () => {
  const vague = await api.get(`/v1/issues/${ids.vague}/root-cause`);
  assert.is(vague.status, 200, vague.text);
  assert.is(vague.body.status, 'abstained');
  assert.is(vague.body.root_cause, null);
  assert.is(vague.body.confidence, 0);
  assert.equal(vague.body.candidates, []);
  const item = await api.get(`/v1/review-queue/${vague.body.review_item_id}`);
  assert.is(item.status, 200, item.text);
  assert.is(item.body.kind, 'root_cause');
  assert.is(item.body.status, 'open');
  assert.is(item.body.issue_id, ids.vague);
  assert.is(item.body.reason, 'Root cause unclear (confidence 0)');
  assert.equal(item.body.provenance, extractProvenance(ids.vague));
  assert.equal([item.body.question_key, item.body.issue_count, item.body.risk_blocked], [`issue:${ids.vague}:root_cause`, 1, 0.7]);

  const silent = await api.get(`/v1/issues/${ids.silent}/root-cause`);
  assert.is(silent.status, 200, silent.text);
  assert.is(silent.body.status, 'abstained');
  assert.is(silent.body.reason, 'The issue has no narrative.');
  const missing = await api.get(`/v1/review-queue/${silent.body.review_item_id}`);
  assert.is(missing.body.kind, 'missing_narrative');
  assert.is(missing.body.issue_id, ids.silent);

  assertError(await api.get(`/v1/issues/${randomUUID()}/root-cause`), 404, 'not_found');
});

test('every question of the run opened one review item, riskiest first, with bounded provenance', async () => {
  const items = (await listAll(api, '/v1/review-queue')).filter((i) => i.kind !== 'missing_narrative');
  assert.is(items.length, first.summary.applied.review_items_opened);
  assert.ok(items.length >= 2);
  // Issue 17: questions, not one item per abstention; far fewer items than issues.
  assert.ok(items.length < first.summary.abstentions, `${items.length} items for ${first.summary.abstentions} abstentions`);
  const risks = items.map((i) => i.risk_blocked as number);
  assert.equal(
    risks,
    [...risks].sort((a, b) => b - a),
    'riskiest first',
  );
  for (const i of items as any[]) {
    assert.ok(['extraction', 'root_cause', 'criticality'].includes(i.kind), i.kind);
    if (i.issue_id) assert.equal(i.provenance, extractProvenance(i.issue_id));
    else {
      assert.match(i.question_key, new RegExp(`^pattern:${i.pattern_id}:${i.kind}$`));
      assert.is(i.provenance.issues_url, `/v1/issues?pattern_id=${i.pattern_id}`);
      assert.is(i.provenance.issue_count, i.issue_count);
    }
  }
  assert.ok(items.some((i) => i.kind === 'extraction' && i.issue_id === ids.vague));
  assert.ok(items.some((i) => i.kind === 'root_cause' && i.issue_id === ids.vague));
});

test('replay re-executes the run from its frozen input: 200 identical', async () => {
  const patternsBefore = await allPatterns();
  const body = await replay(first.id);
  assert.is(body.identical, true, JSON.stringify(body));
  assert.equal(body.diff_summary.input_digest, { expected: first.manifest.input_digest, actual: first.manifest.input_digest, identical: true });
  assert.equal(
    body.diff_summary.stages,
    first.manifest.stages.map((s: any) => ({ stage: s.stage, expected: s.digest, actual: s.digest, identical: true })),
  );
  assert.is(body.diff_summary.first_divergent_stage, null);
  assert.equal(body.diff_summary.engine_version, { expected: ENGINE_VERSION, actual: ENGINE_VERSION, identical: true });
  const job = await api.get(`/v1/jobs/${body.replay_job_id}`);
  assert.is(job.body.kind, 'engine__replay');
  // A replay writes nothing: the run and the patterns are as they were.
  assert.equal((await api.get(`/v1/engine/runs/${first.id}`)).body, first);
  assert.equal(await allPatterns(), patternsBefore);
});

test('replay of a tampered manifest: 200 identical false with the first divergent stage (a result, not an error)', async () => {
  // The replay compares each re-computed stage digest with the run's manifest (engine_runs.stages).
  const tamper = (digest: string) =>
    t.app.pool.query(
      `update engine_runs set stages = (select jsonb_agg(case when e->>'stage' = 'cluster' then jsonb_set(e, '{digest}', to_jsonb($2::text)) else e end order by o)
         from jsonb_array_elements(stages) with ordinality as x(e, o)) where id = $1`,
      [first.id, digest],
    );
  const real = first.manifest.stages.find((s: any) => s.stage === 'cluster').digest;
  await tamper('0'.repeat(64));
  try {
    const body = await replay(first.id);
    assert.is(body.identical, false);
    assert.is(body.diff_summary.first_divergent_stage, 'cluster');
    assert.equal(body.diff_summary.input_digest.identical, true);
    assert.equal(
      body.diff_summary.stages.map((s: any) => [s.stage, s.identical]),
      stageNames.map((s) => [s, s !== 'cluster']),
    );
    const cluster = body.diff_summary.stages.find((s: any) => s.stage === 'cluster');
    assert.equal([cluster.expected, cluster.actual], ['0'.repeat(64), real]);
  } finally {
    await tamper(real);
  }
  assert.is((await replay(first.id)).identical, true);
});

test('replay of a run stored by another engine version says which one; identical still means the same bytes', async () => {
  const setVersion = (version: string) => t.app.pool.query('update engine_runs set engine_version = $2 where id = $1', [first.id, version]);
  await setVersion('2.1.0');
  try {
    const body = await replay(first.id);
    assert.equal(body.diff_summary.engine_version, { expected: '2.1.0', actual: ENGINE_VERSION, identical: false });
    assert.is(body.identical, true, 'the stored digests still reproduce: identical compares bytes, not versions');
  } finally {
    await setVersion(ENGINE_VERSION);
  }
});

test('an issue ingested after the run has no root cause yet (404), and pattern ids survive when the data grows by 10%', async () => {
  const more = await api.post('/v1/ingest/batch', { records: generated.slice(300).map(toRecord) }, fresh());
  assert.is(more.status, 202, more.text);
  assertError(await api.get(`/v1/issues/${more.body.issue_ids[0]}/root-cause`), 404, 'not_found');

  const before = (await allPatterns()).map((p) => p.id as string);
  const second = await runAndWait();
  assert.is(second.manifest.previous_run_id, first.id);
  assert.is(second.summary.issues_analysed, 332);
  const after = await allPatterns();
  for (const id of before) {
    const p = after.find((x) => x.id === id) as any;
    assert.ok(p, `pattern ${id} is still there`);
    assert.is(p.provenance.run_id, second.id);
    assert.ok(p.issue_count > 0);
  }
  assert.is(second.summary.applied.patterns_created, 0);
  // The new issues were clustered into the existing patterns.
  const grown = await api.get(`/v1/issues/${more.body.issue_ids[0]}`);
  assert.ok(before.includes(grown.body.pattern_id) || grown.body.pattern_id === null);
  // Every issue with a pattern is counted by its pattern. (Not analysed − unclustered any more: since issue 31
  // a member of an earlier pattern that stage 5 left as an outlier can stay with its pattern, engine/cluster/identity.ts.)
  const counted = after.reduce((n, p: any) => n + p.issue_count, 0);
  assert.is((await listAll(api, '/v1/issues?has_pattern=true')).length, counted);
  assert.ok(counted >= second.summary.issues_analysed - second.summary.unclustered);
  assert.is((await api.get(`/v1/issues/${ids.silent}`)).body.pattern_id, null);
});

test("resolving a root_cause review item feeds the next run: the reviewer's root cause, source human", async () => {
  const abstained = await api.get(`/v1/issues/${ids.vague}/root-cause`);
  const resolved = await api.post(`/v1/review-queue/${abstained.body.review_item_id}/resolve`, { decision: { root_cause: 'timeout' } });
  assert.is(resolved.status, 200, resolved.text);
  const run = await runAndWait();
  const res = await api.get(`/v1/issues/${ids.vague}/root-cause`);
  assert.is(res.body.status, 'decided', res.text);
  assert.equal(res.body.root_cause, { id: 'timeout', name: 'Timeouts and hangs' });
  assert.is(res.body.source, 'human');
  assert.is(res.body.confidence, 1);
  assert.is(res.body.review_item_id, null);
  assert.is(res.body.provenance.run_id, run.id);
  // The question is not asked again.
  const open = await listAll(api, `/v1/review-queue?issue_id=${ids.vague}&kind=root_cause&status=open`);
  assert.equal(open, []);
});

test('runs of one workspace never overlap: the second starts after the first finished', async () => {
  const [a, b] = await Promise.all([startRun(), startRun()]);
  await waitForRun(a.run_id);
  await waitForRun(b.run_id);
  const { rows } = await t.app.pool.query<{ id: string; started_at: Date; finished_at: Date }>(
    'select id, started_at, finished_at from job_runs where id = any($1::uuid[]) order by started_at',
    [[a.job_id, b.job_id]],
  );
  assert.is(rows.length, 2);
  assert.ok(
    rows[1].started_at.getTime() >= rows[0].finished_at.getTime(),
    `second started ${rows[1].started_at.toISOString()}, first finished ${rows[0].finished_at.toISOString()}`,
  );
});

test('a slice of the stages reads the earlier outputs from the latest run that stored them, and replays identically', async () => {
  const latest = (await api.get('/v1/engine/runs?limit=1')).body.data[0];
  const run = await runAndWait({ stages: { from: 'cluster' } });
  assert.equal([run.stage_from, run.stage_to], ['cluster', 'recommend']);
  assert.equal(run.steps_completed, ['cluster', 'stability', 'patterns', 'hazard', 'predict', 'recommend']);
  assert.equal(
    run.manifest.stages.map((s: any) => s.stage),
    ['cluster', 'stability', 'patterns', 'hazard', 'predict', 'recommend'],
  );
  assert.is(run.manifest.base_run_id, latest.id);
  assert.is(run.manifest.event_sequence, null);
  // Same inputs, seed and configs as the base run: the same outputs.
  assert.equal(
    run.manifest.stages.map((s: any) => s.digest).slice(0, 2),
    latest.manifest.stages.filter((s: any) => ['cluster', 'stability'].includes(s.stage)).map((s: any) => s.digest),
  );
  assert.is((await replay(run.id)).identical, true);

  const head = await runAndWait({ stages: { to: 'extract' } });
  assert.equal(head.steps_completed, ['snapshot', 'normalize', 'extract']);
  assert.is(head.summary.patterns, null);
  assert.is((await replay(head.id)).identical, true);
});

test('POST /v1/engine/runs validates its body', async () => {
  const post = (body: unknown) => api.post('/v1/engine/runs', body, fresh());
  assertValidation(await post({ stages: { from: 'bogus' } }), { 'stages.from': `must be one of ${stageNames.join(', ')}` });
  assertValidation(await post({ stages: { from: 'cluster', to: 'normalize' } }), { 'stages.to': 'from must not come after to' });
  assertValidation(await post({ configs: { cluster: 'abc' } }), { 'configs.cluster': 'must be a config version id' });
  assertValidation(await post({ configs: { cluster: 'a'.repeat(64) } }), { 'configs.cluster': 'is not a version of this kind in the registry' });
  assertValidation(await post({ as_of: new Date(Date.now() + 86_400_000).toISOString() }), { as_of: 'must not be in the future' });
  assertValidation(await post({ as_of: 'yesterday' }), { as_of: 'must be an ISO 8601 timestamp' });
  const unknownKind = await post({ configs: { bogus: 'a'.repeat(64) } });
  assert.is(unknownKind.status, 400, unknownKind.text);
  assert.is(unknownKind.body.error.code, 'validation_error');
  assertError(await api.post('/v1/engine/runs', {}), 400, 'idempotency_key_required');
  // Nothing was recorded by the refused requests.
  const count = await t.app.pool.query('select count(*)::int as n from engine_runs where workspace_id = $1', [t.demo.workspaceId]);
  assert.is(count.rows[0].n, (await listAll(api, '/v1/engine/runs')).length);
});

test('an as_of in the past freezes the log as of then', async () => {
  const run = await runAndWait({ as_of: first.manifest.as_of });
  assert.is(run.manifest.as_of, first.manifest.as_of);
  assert.is(run.manifest.event_sequence, first.manifest.event_sequence);
  assert.is(run.summary.issues_analysed, 302); // not the 30 ingested later
  assert.is(run.summary.issues, 303);
  assert.is(run.manifest.previous_run_id, first.id); // the latest run with patterns at or before that point
});

test('engine:run is required to trigger and replay, engine:read to read', async () => {
  const reader = t.platform.as(await serviceAccountToken(api, ['engine:read']));
  assertError(await reader.post('/v1/engine/runs', {}, fresh()), 403, 'forbidden', { required_scope: 'engine:run' });
  assertError(await reader.post(`/v1/engine/runs/${first.id}/replay`), 403, 'forbidden', { required_scope: 'engine:run' });
  assert.is((await reader.get(`/v1/engine/runs/${first.id}`)).status, 200);
  const runner = t.platform.as(await serviceAccountToken(api, ['engine:run']));
  assertError(await runner.get(`/v1/engine/runs/${first.id}`), 403, 'forbidden', { required_scope: 'engine:read' });
  assertError(await runner.get('/v1/engine/runs'), 403, 'forbidden', { required_scope: 'engine:read' });
  assertError(await t.platform.get('/v1/engine/runs'), 401, 'unauthorized');
});

test("another workspace gets 404 for the run, its replay and its issues' root causes", async () => {
  const other = t.platform.as((await provisionWorkspace(t.platform, provisioning.key, 'engine-peer')).apiKey);
  assertError(await other.get(`/v1/engine/runs/${first.id}`), 404, 'not_found');
  assertError(await other.post(`/v1/engine/runs/${first.id}/replay`), 404, 'not_found');
  assertError(await other.get(`/v1/issues/${ids.clear}/root-cause`), 404, 'not_found');
  assert.equal((await other.get('/v1/engine/runs')).body.data, []);
  // Its own run sees none of our issues.
  const own = await startRun({}, other);
  const run = await waitForRun(own.run_id, other);
  assert.is(run.summary.issues, 0);
  assert.equal((await other.get('/v1/patterns')).body.data, []);
});

test('the summary counts what GET /v1/issues and GET /v1/patterns count, and lists what it left out and why', async () => {
  const provisioned = await provisionWorkspace(t.platform, provisioning.key, 'engine-counts');
  const own = t.platform.as(provisioned.apiKey);
  const described = generated.slice(0, 40).map(toRecord);
  const bare = generated.slice(40, 43).map((g) => ({ ...toRecord(g), narrative: undefined }));
  const placeholder = { ...toRecord(generated[43]), narrative: 'n/a' };
  assert.is((await own.post('/v1/ingest/batch', { records: [...described, ...bare, placeholder] }, fresh())).status, 202);
  // A pattern of an earlier run that this run will not find (kept with its history, watched).
  await createPattern(t.app.pool, provisioned.workspaceId, { name: 'found before', status: 'active', issue_count: 0 });
  const run = await waitForRun((await startRun({}, own)).run_id, own);
  const s = run.summary;
  assert.is(s.issues, (await listAll(own, '/v1/issues')).length);
  assert.equal([s.issues, s.issues_analysed], [44, 40]);
  assert.equal(s.issues_left_out, [
    { engine_status: 'blocked_no_narrative', reason: 'no narrative', count: 3 },
    { engine_status: 'ineligible', reason: 'narrative is a placeholder', count: 1 },
  ]);
  const patterns = await listAll(own, '/v1/patterns');
  assert.is(s.patterns, patterns.length);
  assert.is(s.patterns_found, patterns.length - 1);
  assert.equal(
    s.patterns_not_found.map((n: any) => [n.status, n.count]),
    [['watching', 1]],
  );
  assert.match(s.patterns_not_found[0].reason, /not by this one/);
});

test('a run that failed after writing its results succeeds on retry (the task is idempotent)', async () => {
  // One injected failure when the run is marked finished, i.e. after its results were committed.
  // A sequence is not rolled back with the failing statement, so the failure happens exactly once.
  await t.app.pool.query(`
    create sequence test_fail_engine_finish;
    create function test_fail_engine_finish() returns trigger language plpgsql as $$
    begin
      if new.finished_at is not null and old.finished_at is null and nextval('test_fail_engine_finish') = 1 then
        raise exception 'injected failure after the results were written';
      end if;
      return new;
    end $$;
    create trigger test_fail_engine_finish before update on engine_runs for each row execute function test_fail_engine_finish();`);
  try {
    const patternsBefore = (await allPatterns()).map((p) => p.id).sort();
    const { run_id, job_id } = await startRun();
    const run = await waitForRun(run_id);
    const job = await api.get(`/v1/jobs/${job_id}`);
    assert.is(job.body.attempts, 2, job.text);
    assert.equal(run.steps_completed, stageNames);
    // The retry found its own results already written and changed nothing more.
    assert.equal((await allPatterns()).map((p) => p.id).sort(), patternsBefore);
    assert.ok((await allPatterns()).every((p) => (p as any).provenance.run_id === run_id || (p as any).issue_count === 0));
    assert.is((await replay(run_id)).identical, true);
  } finally {
    await t.app.pool.query(
      'drop trigger if exists test_fail_engine_finish on engine_runs; drop function if exists test_fail_engine_finish(); drop sequence if exists test_fail_engine_finish',
    );
  }
});

/** An app (HTTP surfaces and a worker) over an existing database: what a restarted process is. */
async function startAppOn(url: string): Promise<{ platform: Client; close(): Promise<void> }> {
  const pool: Pool = createPool(url, { max: 10 });
  const workerPool: Pool = createPool(url, { max: 4 });
  const app = await createAppContext(t.config, pool, createLogger(t.config.LOG_LEVEL, { test: true, restarted: true }));
  const apps = buildHttpApps(app, { validateResponses: true });
  const platform: RunningServer = await listen(apps.platform, 0, '127.0.0.1');
  const worker: WorkerHandle = await startWorker(app, { tasks, concurrency: 2, pool: workerPool, pollInterval: 100 });
  return {
    platform: client(platform.url),
    async close() {
      await worker.stop();
      await platform.close(1000);
      await workerPool.end();
      await pool.end();
    },
  };
}
let restarted: { platform: Client; close(): Promise<void> } | undefined;

test('replay: 200 identical false with the reason for a run that has not finished; concurrent replays of one run share one job', async () => {
  const { run_id } = await startRun();
  // The new run holds the workspace's engine queue: it has not finished, and replays queue behind it.
  const early = await replay(run_id);
  assert.is(early.identical, false);
  assert.is(early.replay_job_id, null);
  assert.match(early.diff_summary.reason, /has not finished/);
  assert.equal(early.diff_summary.stages, []);
  const [a, b] = await Promise.all([replay(first.id), replay(first.id)]);
  assert.is(a.replay_job_id, b.replay_job_id, 'one job for both requests');
  assert.equal([a.identical, b.identical], [true, true]);
  assert.is(a.diff_summary.reason, null);
  await waitForRun(run_id);
});

test('after a restart (new processes on the same database) the replay is still identical', async () => {
  await t.worker!.stop();
  await t.platformServer!.close(1000);
  await t.productServer!.close(1000);
  restarted = await startAppOn(t.db.url);
  api = restarted.platform.as(token); // the signing keys live in the database: the token still works
  const run = await api.get(`/v1/engine/runs/${first.id}`);
  assert.equal(run.body, first);
  const body = await replay(first.id);
  assert.is(body.identical, true, JSON.stringify(body.diff_summary));
  assert.is(body.diff_summary.first_divergent_stage, null);
});

test.run();
