/**
 * `svc engine run` and `svc engine stage` as real child processes against a test database holding
 * generated issues (ingested through the real HTTP surface): output, exit codes, what they record.
 */
import { randomUUID } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stageNames } from '../../engine/pipeline.ts';
import { generateIssues, syntheticRecord } from '../../fixtures/synthetic.ts';
import { demoToken, startTestApp, type TestApp } from '../helpers/app.ts';
import { fresh } from '../helpers/errors.ts';
import type { Client } from '../helpers/http.ts';
import { runSvc, svcEnv, type SvcResult } from '../../fixtures/svcProcess.ts';

let t: TestApp;
let api: Client;
let W: string;
test.before(async () => {
  t = await startTestApp();
  api = t.platform.as(await demoToken(t));
  W = t.demo.workspaceId;
  const records = generateIssues(200, 9, 3).map(syntheticRecord);
  const res = await api.post('/v1/ingest/batch', { records }, fresh());
  assert.is(res.status, 202, res.text);
});
test.after(async () => t.close());

const svc = (...args: string[]) => runSvc(['engine', ...args], svcEnv({ DATABASE_URL: t.db.url, LOG_LEVEL: 'warn', NODE_ENV: 'test' }));
const USAGE =
  'Usage: svc engine run --workspace <workspace> [--stages FROM..TO] [--json]  |  svc engine stage <name> --workspace <workspace> --run <run-id> [--json]';

/** Exit 2 with `svc engine: <message>` and the usage on stderr, nothing on stdout. */
function assertUsageError(res: SvcResult, message: string) {
  assert.is(res.code, 2, `${message}: exit ${res.code}\n${res.stderr}`);
  assert.ok(res.stderr.startsWith(`svc engine: ${message}\n`), res.stderr);
  assert.ok(res.stderr.includes(USAGE), res.stderr);
  assert.is(res.stdout, '');
}

/** A well-formed command naming what does not exist or cannot be done: exit 2 and the message, without the usage. */
function assertInputError(res: SvcResult, message: string) {
  assert.is(res.code, 2, `${message}: exit ${res.code}\n${res.stderr}`);
  assert.is(res.stderr, `svc engine: ${message}\n`);
  assert.is(res.stdout, '');
}

interface Printed {
  runId: string;
  header: string;
  progress: string[];
  table: Array<{ stage: string; digestPrefix: string; line: string }>;
  summary: any;
  outputDigest: string;
}

/** Parses what `svc engine run` prints (stdout is not a TTY here: one progress line per stage). */
function parseRunOutput(stdout: string): Printed {
  const lines = stdout.split('\n');
  const header = /^engine run ([0-9a-f-]{36}) \(workspace ([0-9a-f-]{36}), stages (\w+)\.\.(\w+)\)$/.exec(lines[0]);
  assert.ok(header, `header: ${lines[0]}`);
  const blank = lines.indexOf('');
  const progress = lines.slice(1, blank);
  const tableStart = blank + 1;
  assert.match(lines[tableStart], /^stage\s+time\s+output\s+digest$/);
  const table: Printed['table'] = [];
  let i = tableStart + 1;
  for (; lines[i] !== ''; i++) {
    const row = /^(\w+)\s+(\d+) ms\s+(\d+\.\d\d) MB\s+([0-9a-f]{16})$/.exec(lines[i]);
    assert.ok(row, `table row: ${lines[i]}`);
    table.push({ stage: row[1], digestPrefix: row[4], line: lines[i] });
  }
  const runIdLine = lines.findIndex((l) => l.startsWith('run id: '));
  const summary = JSON.parse(lines.slice(i + 1, runIdLine - 1).join('\n'));
  assert.is(lines[runIdLine], `run id: ${header[1]}`);
  const digest = /^output digest: ([0-9a-f]{64})$/.exec(lines[runIdLine + 1]);
  assert.ok(digest, lines[runIdLine + 1]);
  return { runId: header[1], header: lines[0], progress, table, summary, outputDigest: digest[1] };
}

let fullRun: string;

test('svc engine run runs every stage in the foreground, prints the run id and a summary table, and records the run', async () => {
  const res = await svc('run', '--workspace', W);
  assert.is(res.code, 0, res.stderr);
  const out = parseRunOutput(res.stdout);
  fullRun = out.runId;
  const n = stageNames.length;
  assert.is(out.header, `engine run ${out.runId} (workspace ${W}, stages snapshot..recommend)`);
  // Progress: the stage about to run with its number, the percentage done, the elapsed time; then done.
  assert.is(out.progress.length, n + 1);
  out.progress
    .slice(0, n)
    .forEach((line, i) => assert.match(line, new RegExp(`^\\[${i + 1}/${n}\\] ${stageNames[i]} …\\s+${Math.round((i / n) * 100)}%\\s+\\d+\\.\\ds$`)));
  assert.match(out.progress[n], /^done {2}100% {2}\d+\.\ds$/);

  const run = (await t.app.pool.query('select * from engine_runs where id = $1', [out.runId])).rows[0];
  assert.ok(run, 'the run is recorded');
  assert.is(run.workspace_id, W);
  assert.is(run.trigger, 'cli');
  assert.ok(run.finished_at);
  assert.is(run.output_digest, out.outputDigest);
  assert.equal(
    out.table.map((r) => r.stage),
    stageNames,
  );
  assert.equal(
    out.table.map((r) => r.digestPrefix),
    run.stages.map((s: { digest: string }) => s.digest.slice(0, 16)),
  );
  assert.is(out.summary.issues, 200);
  // The same counts as the API's run summary: all issues, those analysed, what was left out; all patterns, those found.
  assert.equal([out.summary.issues_analysed, out.summary.issues_left_out], [200, []]);
  assert.is(out.summary.k, 3);
  assert.equal([out.summary.patterns, out.summary.patterns_found, out.summary.patterns_not_found], [3, 3, []]);
  assert.is(out.summary.applied.patterns_created, 3);

  // The CLI run is a job run too, and the API shows it like any other.
  const job = (await t.app.pool.query('select kind, status, progress, steps_completed, workspace_id from job_runs where id = $1', [run.job_run_id])).rows[0];
  assert.equal(job, { kind: 'engine__run', status: 'succeeded', progress: 100, steps_completed: stageNames, workspace_id: W });
  const viaApi = await api.get(`/v1/engine/runs/${out.runId}`);
  assert.is(viaApi.status, 200, viaApi.text);
  assert.is(viaApi.body.status, 'succeeded');
  assert.is(viaApi.body.trigger, 'cli');
  assert.is(viaApi.body.manifest.output_digest, out.outputDigest);
  assert.is((await api.get('/v1/patterns')).body.data.length, 3);
});

test('svc engine run --stages 1..3 runs a slice, and a later slice reads the earlier stages of the latest run that stored them', async () => {
  const head = await svc('run', '--workspace', W, '--stages', '1..3');
  assert.is(head.code, 0, head.stderr);
  const out = parseRunOutput(head.stdout);
  assert.is(out.header, `engine run ${out.runId} (workspace ${W}, stages snapshot..extract)`);
  assert.equal(
    out.table.map((r) => r.stage),
    ['snapshot', 'normalize', 'extract'],
  );
  assert.is(out.progress.at(-1)!.startsWith('done  100%'), true);
  assert.is(out.summary.patterns, null);
  const run = (await t.app.pool.query('select stage_from, stage_to, stages, base_run_id from engine_runs where id = $1', [out.runId])).rows[0];
  assert.equal([run.stage_from, run.stage_to, run.stages.length, run.base_run_id], ['snapshot', 'extract', 3, null]);

  // cluster..: its inputs (vectorize and before) come from the full run, not from the 1..3 run.
  const tail = await svc('run', '--workspace', W, '--stages', 'cluster..');
  assert.is(tail.code, 0, tail.stderr);
  const tailOut = parseRunOutput(tail.stdout);
  assert.equal(
    tailOut.table.map((r) => r.stage),
    stageNames.slice(stageNames.indexOf('cluster')),
  );
  const tailRun = (await t.app.pool.query('select base_run_id from engine_runs where id = $1', [tailOut.runId])).rows[0];
  assert.is(tailRun.base_run_id, fullRun);
  // Same stored inputs, same seed and configs: the same cluster output as the full run.
  const full = (await t.app.pool.query('select stages from engine_runs where id = $1', [fullRun])).rows[0].stages;
  assert.is(tailOut.table[0].digestPrefix, full.find((s: { stage: string }) => s.stage === 'cluster').digest.slice(0, 16));
});

test('svc engine stage re-runs one stage from the stored outputs and compares it with the stored one', async () => {
  const res = await svc('stage', 'cluster', '--workspace', W, '--run', fullRun);
  assert.is(res.code, 0, res.stderr);
  const stored = (await t.app.pool.query(`select digest from engine_stage_outputs where run_id = $1 and stage = 'cluster'`, [fullRun])).rows[0].digest;
  const lines = res.stdout.trim().split('\n');
  assert.match(lines[0], new RegExp(`^stage cluster of run ${fullRun}: \\d+ ms$`));
  assert.equal(lines.slice(1), [`digest   ${stored}`, `stored   ${stored}`, 'identical to the stored output']);
});

test('svc engine stage reports a stored output that differs, and exits 1', async () => {
  const setDigest = (digest: string) =>
    t.app.pool.query(`update engine_stage_outputs set digest = $2 where run_id = $1 and stage = 'extract'`, [fullRun, digest]);
  const real = (await t.app.pool.query(`select digest from engine_stage_outputs where run_id = $1 and stage = 'extract'`, [fullRun])).rows[0].digest as string;
  await setDigest('f'.repeat(64));
  try {
    const res = await svc('stage', 'extract', '--workspace', W, '--run', fullRun);
    assert.is(res.code, 1, res.stderr);
    const lines = res.stdout.trim().split('\n');
    assert.equal(lines.slice(1), [`digest   ${real}`, `stored   ${'f'.repeat(64)}`, 'DIFFERENT from the stored output']);
  } finally {
    await setDigest(real);
  }
});

test('svc engine: bad arguments exit 2 with a clear message and the usage', async () => {
  // Two at a time: each is a whole process start, and the machine has two cores.
  const [missing, badUuid] = await Promise.all([svc('run'), svc('run', '--workspace', 'Not A UUID')]);
  assertUsageError(missing, '--workspace is required');
  assertUsageError(badUuid, '--workspace must be a workspace id (UUID) or an organization slug');
  const [unknownStage, unknownAction] = await Promise.all([svc('run', '--workspace', W, '--stages', 'bogus..cluster'), svc('frobnicate', '--workspace', W)]);
  assertUsageError(unknownStage, `unknown stage 'bogus'; stages are ${stageNames.join(', ')}`);
  assertUsageError(unknownAction, "unknown action 'frobnicate' (run or stage)");
  const [noStage, badRun] = await Promise.all([svc('stage', '--workspace', W, '--run', fullRun), svc('stage', 'cluster', '--workspace', W, '--run', 'r1')]);
  assertUsageError(noStage, 'a stage name is required: svc engine stage <name> --workspace <workspace> --run <run-id>');
  assertUsageError(badRun, '--run must be an id (UUID)');
});

test('svc engine: an unknown workspace or run, or a stage the run cannot re-run, exits 2 and records nothing', async () => {
  const before = (await t.app.pool.query('select count(*)::int as n from engine_runs')).rows[0].n;
  const ghost = randomUUID();
  const [noWorkspace, noRun] = await Promise.all([svc('run', '--workspace', ghost), svc('stage', 'cluster', '--workspace', W, '--run', ghost)]);
  assertInputError(noWorkspace, `workspace ${ghost} does not exist`);
  assertInputError(noRun, `run ${ghost} does not exist in workspace ${W}`);
  // The 1..3 run stored no vectorize output, which cluster needs; the snapshot stage has no stored inputs.
  const head = (await t.app.pool.query(`select id from engine_runs where stage_to = 'extract' and workspace_id = $1`, [W])).rows[0].id;
  const [notStored, snapshotStage] = await Promise.all([
    svc('stage', 'cluster', '--workspace', W, '--run', head),
    svc('stage', 'snapshot', '--workspace', W, '--run', fullRun),
  ]);
  assertInputError(notStored, `run ${head} has no stored output of vectorize, which cluster needs`);
  assertUsageError(snapshotStage, 'the snapshot stage has no stored inputs to re-run from; use `svc engine run --stages 1..1`');
  assert.is((await t.app.pool.query('select count(*)::int as n from engine_runs')).rows[0].n, before);
});

test.run();
