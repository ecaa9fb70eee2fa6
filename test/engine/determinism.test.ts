/**
 * Determinism of the engine: the same seeded input gives bit-identical stage outputs, in this process
 * and in another one; the seed is the only source of randomness; stored (encoded) outputs decode to
 * exactly what the later stages need.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeOutput, encodeOutput, outputDigest, sha256, type StageRecord } from '../../engine/manifest.ts';
import { runPipeline, stageDependencies, stageNames, type StageName, type StageOutputs } from '../../engine/pipeline.ts';
import { syntheticInput, testContext, testUuid } from '../helpers/engineInput.ts';
import { heldoutSystem } from '../../fixtures/heldoutLogs.ts';
import type { SnapshotInput } from '../../engine/stages/01_snapshot.ts';
import { vectorize } from '../../engine/stages/04_vectorize.ts';
import { projectRoot } from '../../fixtures/svcProcess.ts';

const COUNT = 300;
const DATA_SEED = 3;
const THEMES = 4;
const input = () => syntheticInput(COUNT, DATA_SEED, THEMES).input;
const digests = (records: StageRecord[]) => records.map(({ stage, digest, bytes }) => ({ stage, digest, bytes }));

const first = await runPipeline({ ctx: testContext({ seed: 42 }), snapshotInput: input() });

test('the same issues under other ids give the same patterns (the snapshot orders issues by content)', async () => {
  const original = input();
  const renamed = new Map(original.issues.map((i) => [i.id, testUuid(`renamed:${i.id}`)]));
  const relabelled = { ...original, issues: original.issues.map((i) => ({ ...i, id: renamed.get(i.id)! })) };
  const other = await runPipeline({ ctx: testContext({ seed: 42 }), snapshotInput: relabelled });
  const memberSets = (patterns: StageOutputs['patterns'], rename: (id: string) => string) =>
    patterns.patterns.map((p) => p.member_ids.map(rename).sort().join(',')).sort();
  assert.ok(first.outputs.patterns!.patterns.length > 1);
  // Clustering saw the issues in the same order: the same k, selection and labels by position.
  const clustering = (c: StageOutputs['cluster']) => ({ k: c.k, selection: c.selection, labels: Array.from(c.labels) });
  assert.equal(clustering(other.outputs.cluster!), clustering(first.outputs.cluster!));
  assert.equal(
    memberSets(other.outputs.patterns!, (id) => id),
    memberSets(first.outputs.patterns!, (id) => renamed.get(id)!),
  );
});

/**
 * The same issues with every occurred_at one hour later: the snapshot's order key holds it, so the
 * snapshot comes in another order; the clustering reads none of it.
 */
const hourLater = (original: SnapshotInput): SnapshotInput => ({
  ...original,
  issues: original.issues.map((i) => ({ ...i, occurred_at: i.occurred_at && new Date(Date.parse(i.occurred_at) + 3_600_000).toISOString() })),
});

test('the same issues in another snapshot order get the same prose clustering (stage 5 reads them by text, not by position)', async () => {
  const later = hourLater(input());
  const other = await runPipeline({ ctx: testContext({ seed: 42 }), snapshotInput: later, to: 'patterns' });
  const a = first.outputs as StageOutputs;
  const b = other.outputs as StageOutputs;
  assert.not.equal(
    b.snapshot.issues.map((i) => i.id),
    a.snapshot.issues.map((i) => i.id),
  );
  // Per issue id: label, similarity to the centroid, stability of its cluster, pattern members.
  const byId = (o: StageOutputs) => {
    const status = new Map(o.stability.clusters.map((c) => [c.label, [c.jaccard, c.status]]));
    const rows = o.snapshot.issues.map(
      (issue, i) => [issue.id, o.cluster.labels[i], o.cluster.similarity[i], status.get(o.cluster.labels[i]) ?? null] as const,
    );
    return {
      k: o.cluster.k,
      selection: o.cluster.selection,
      outlier: o.cluster.outlier_similarity,
      centroids: Array.from(o.cluster.centroids),
      sample: Array.from(o.cluster.sample, (i) => o.snapshot.issues[i].id).sort(),
      rows: rows.sort((x, y) => (x[0] < y[0] ? -1 : 1)),
      patterns: o.patterns.patterns.map((p) => p.member_ids.join(',')).sort(),
    };
  };
  assert.ok(a.cluster.k > 1);
  assert.equal(byId(b), byId(a));
});

/**
 * Log lines of a few hand-made systems (fixtures/heldoutLogs.ts), one source each, a second apart, shifted
 * by `shiftMs`. androidfw's 8,200 lines are more than twice stage 5's decision sample (4,000): its path is
 * decided on every second line.
 */
function logLineInput(shiftMs: number): SnapshotInput {
  const systems: Array<[string, number]> = [
    ['androidfw', 8200],
    ['sshd', 400],
    ['javasvc', 400],
    ['nodestate', 400],
  ];
  const issues = systems.flatMap(([system, count]) =>
    heldoutSystem(system, count).map((l, i) => {
      const at = new Date(Date.UTC(2026, 0, 1) + i * 1000 + shiftMs).toISOString();
      return {
        id: testUuid(`log:${system}:${i}`),
        title: l.line.slice(0, 80),
        narrative: l.line,
        severity: 'low' as const,
        source: system,
        occurred_at: at,
        created_at: at,
      };
    }),
  );
  return { workspace_id: testUuid('workspace'), event_sequence: issues.length, previous_run_id: null, issues, decisions: [], previous_patterns: [] };
}

test('the same log lines in another snapshot order get the same templated clustering (stage 5 reads them by their tokens, not by position)', async () => {
  const a = (await runPipeline({ ctx: testContext({ seed: 42 }), snapshotInput: logLineInput(0), to: 'patterns' })).outputs as StageOutputs;
  const b = (await runPipeline({ ctx: testContext({ seed: 42 }), snapshotInput: logLineInput(3_600_000), to: 'patterns' })).outputs as StageOutputs;
  assert.not.equal(
    b.snapshot.issues.map((i) => i.id),
    a.snapshot.issues.map((i) => i.id),
  );
  // Per issue id: label and templated flag; per pattern: its id, name, template, examples (ties: the
  // line order), top terms and members; the path decisions with their figures (the sampled source's
  // template coverage is that of the lines sampled).
  const byId = (o: StageOutputs) => ({
    paths: o.cluster.paths,
    templates: o.cluster.templates,
    rows: o.snapshot.issues.map((issue, i) => [issue.id, o.cluster.labels[i], o.cluster.templated[i]] as const).sort((x, y) => (x[0] < y[0] ? -1 : 1)),
    patterns: o.patterns.patterns
      .map((p) => ({ id: p.id, name: p.name, template: p.template, examples: p.examples, top_terms: p.top_terms, members: [...p.member_ids].sort() }))
      .sort((x, y) => (x.id < y.id ? -1 : 1)),
  });
  assert.ok(a.cluster.paths.every((p) => p.path === 'templated'));
  assert.equal(byId(b), byId(a));
});

/** The pipeline to stage 7 with stage 4's basis from `svdSampleRows` sampled rows (the path of workspaces above SVD_SAMPLE_ROWS). */
async function sampledBasisRun(snapshotInput: SnapshotInput, svdSampleRows: number): Promise<StageOutputs> {
  const ctx = testContext({ seed: 42 });
  const first = (await runPipeline({ ctx, snapshotInput, to: 'extract' })).outputs as StageOutputs;
  const forced = vectorize({ normalize: first.normalize }, ctx, { svdSampleRows });
  const rest = await runPipeline({ ctx, from: 'cluster', to: 'patterns', load: async (stage) => (stage === 'vectorize' ? forced : first[stage]) });
  return { ...first, vectorize: forced, ...rest.outputs } as StageOutputs;
}

test('the same issues in another snapshot order get the same embedding and clustering when stage 4 samples its basis (the sample is drawn by content)', async () => {
  const original = input();
  const later = hourLater(original);
  const a = await sampledBasisRun(original, 100);
  const b = await sampledBasisRun(later, 100);
  assert.not.equal(
    b.snapshot.issues.map((i) => i.id),
    a.snapshot.issues.map((i) => i.id),
  );
  // Per issue id: its embedding row (bit for bit), label and similarity; the σ and the pattern members.
  const byId = (o: StageOutputs) => {
    const d = o.vectorize.dimensions;
    const rows = o.snapshot.issues.map(
      (issue, i) => [issue.id, Array.from(o.vectorize.embedding.subarray(i * d, (i + 1) * d)), o.cluster.labels[i], o.cluster.similarity[i]] as const,
    );
    return {
      singular_values: o.vectorize.singular_values,
      k: o.cluster.k,
      rows: rows.sort((x, y) => (x[0] < y[0] ? -1 : 1)),
      patterns: o.patterns.patterns.map((p) => p.member_ids.join(',')).sort(),
    };
  };
  assert.ok(a.cluster.k > 1);
  assert.equal(byId(b), byId(a));
});

test('two runs over the same seeded input give identical per-stage digests', async () => {
  const second = await runPipeline({ ctx: testContext({ seed: 42 }), snapshotInput: input() });
  assert.equal(
    first.records.map((r) => r.stage),
    stageNames,
  );
  assert.equal(digests(second.records), digests(first.records));
  for (const r of first.records) assert.match(r.digest, /^[0-9a-f]{64}$/);
  // The engine reads no clock: without an injected timer every duration is 0.
  assert.ok(first.records.every((r) => r.duration_ms === 0));
  assert.is(outputDigest(second.records), outputDigest(first.records));
  // The digest is of the canonical bytes of the output.
  const outputs = first.outputs as StageOutputs;
  for (const r of first.records) assert.is(sha256(encodeOutput(outputs[r.stage as StageName])), r.digest, r.stage);
});

test('another seed changes the seeded stages and nothing before them', async () => {
  const other = await runPipeline({ ctx: testContext({ seed: 43 }), snapshotInput: input() });
  const a = new Map(first.records.map((r) => [r.stage, r.digest]));
  const b = new Map(other.records.map((r) => [r.stage, r.digest]));
  for (const stage of ['snapshot', 'normalize', 'extract'] as const) assert.is(b.get(stage), a.get(stage), stage);
  for (const stage of ['vectorize', 'cluster', 'stability'] as const) assert.is.not(b.get(stage), a.get(stage), stage);
  assert.is.not(outputDigest(other.records), outputDigest(first.records));
});

test('another run id changes the patterns and the stages after them (ids and provenance derive from it), nothing before', async () => {
  const other = await runPipeline({ ctx: testContext({ seed: 42, runId: testUuid('another run') }), snapshotInput: input() });
  const from = stageNames.indexOf('patterns');
  first.records.forEach((r, i) =>
    i >= from ? assert.is.not(other.records[i].digest, r.digest, r.stage) : assert.is(other.records[i].digest, r.digest, r.stage),
  );
});

test('the hazard, predict and recommend outputs of this input are not trivial', () => {
  const outputs = first.outputs as StageOutputs;
  assert.ok(outputs.hazard.patterns.some((p) => p.status === 'fitted'));
  assert.ok(outputs.predict.predictions.length > 0);
  assert.ok((outputs.predict.backtest.overall?.n_scored ?? 0) > 0);
  assert.ok(outputs.recommend.recommendations.some((r) => r.status === 'proposed'));
});

function runChild(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join('test', 'fixtures', 'pipelineDigests.ts'), ...args], {
    cwd: projectRoot,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('a separate process computes the same digests', async () => {
  const child = await runChild([String(COUNT), String(DATA_SEED), String(THEMES), '42']);
  assert.is(child.code, 0, child.stderr);
  assert.equal(JSON.parse(child.stdout), digests(first.records));
});

test('a slice of the stages over decoded stored outputs reproduces the stored digests', async () => {
  const outputs = first.outputs as StageOutputs;
  // What engine_stage_outputs holds: the canonical bytes of each output.
  const stored = new Map(stageNames.map((s) => [s, encodeOutput(outputs[s])]));
  // Only the outputs that the slice's stages read directly and that come before the slice are loaded.
  const needs: Array<[StageName, StageName[]]> = [
    ['normalize', ['snapshot']],
    ['vectorize', ['extract', 'normalize', 'snapshot']],
    ['cluster', ['extract', 'normalize', 'snapshot', 'vectorize']],
    ['patterns', ['cluster', 'extract', 'normalize', 'snapshot', 'stability', 'vectorize']],
    ['hazard', ['patterns', 'snapshot']],
    ['predict', ['hazard', 'patterns', 'snapshot']],
    ['recommend', ['hazard', 'patterns', 'predict', 'snapshot']],
  ];
  for (const [from, expectedLoads] of needs) {
    const loaded: StageName[] = [];
    const slice = await runPipeline({
      ctx: testContext({ seed: 42 }),
      from,
      load: async (stage) => {
        loaded.push(stage);
        return decodeOutput(stored.get(stage)!);
      },
    });
    assert.equal(digests(slice.records), digests(first.records.slice(stageNames.indexOf(from))), `from ${from}`);
    assert.equal(loaded.sort(), expectedLoads, `loads from ${from}`);
  }
  const one = await runPipeline({ ctx: testContext({ seed: 42 }), snapshotInput: input(), to: 'normalize' });
  assert.equal(digests(one.records), digests(first.records.slice(0, 2)));
});

test('keep: only the kept outputs are returned, the others released, with the same digests', async () => {
  const kept = await runPipeline({ ctx: testContext({ seed: 42 }), snapshotInput: input(), keep: ['snapshot', 'patterns', 'recommend'] });
  assert.equal(Object.keys(kept.outputs).sort(), ['patterns', 'recommend', 'snapshot']);
  assert.equal(digests(kept.records), digests(first.records));
  assert.equal(encodeOutput(kept.outputs.patterns), encodeOutput(first.outputs.patterns));
});

async function rejects(fn: () => Promise<unknown>, pattern: RegExp): Promise<void> {
  try {
    await fn();
  } catch (err) {
    assert.match((err as Error).message, pattern);
    return;
  }
  assert.unreachable(`expected a rejection matching ${pattern}`);
}

test('pipeline ordering: dependencies and invalid ranges', async () => {
  assert.equal(stageDependencies('patterns'), ['snapshot', 'normalize', 'extract', 'vectorize', 'cluster', 'stability']);
  assert.equal(stageDependencies('cluster'), ['snapshot', 'normalize', 'vectorize']);
  assert.equal(stageDependencies('snapshot'), []);
  assert.equal(stageDependencies('recommend'), stageNames.slice(0, stageNames.indexOf('recommend')));
  assert.equal(stageDependencies('hazard'), ['snapshot', 'normalize', 'extract', 'vectorize', 'cluster', 'stability', 'patterns']);
  await rejects(() => runPipeline({ ctx: testContext(), from: 'cluster', to: 'normalize' }), /empty/);
  await rejects(() => runPipeline({ ctx: testContext(), from: 'cluster' }), /supply load/);
  await rejects(() => runPipeline({ ctx: testContext(), from: 'nonsense' as StageName }), /unknown stage 'nonsense'/);
  await rejects(() => runPipeline({ ctx: testContext() }), /frozen input/);
});

test('encodeOutput/decodeOutput round-trip typed arrays exactly', () => {
  const backing = new Float64Array([9, 9, 0.1, -0, 1e-300, Number.MAX_VALUE, Number.NaN, -Infinity, 9]);
  const value = {
    f64: backing.subarray(2, 8), // a view with a byte offset: only its own elements travel
    f32: Float32Array.from([0.1, -2.5, 3.4028234663852886e38, 1e-45]),
    i32: Int32Array.from([-2147483648, -1, 0, 2147483647]),
    u32: Uint32Array.from([0, 1, 4294967295]),
    u8: Uint8Array.from([0, 127, 255]),
    empty: new Float32Array(0),
    nested: [{ labels: Int32Array.from([3, -1]), name: 'x' }],
  };
  const decoded = decodeOutput<typeof value>(encodeOutput(value));
  for (const key of ['f64', 'f32', 'i32', 'u32', 'u8', 'empty'] as const) {
    const a = value[key];
    const b = decoded[key];
    assert.is(b.constructor, a.constructor, key);
    assert.is(b.length, a.length, key);
    assert.equal(Buffer.from(b.buffer, b.byteOffset, b.byteLength), Buffer.from(a.buffer, a.byteOffset, a.byteLength), key);
  }
  assert.ok(Object.is(decoded.f64[1], -0));
  assert.ok(Number.isNaN(decoded.f64[4]));
  assert.is(decoded.f64[5], -Infinity);
  assert.ok(decoded.nested[0].labels instanceof Int32Array);
  assert.equal(Array.from(decoded.nested[0].labels), [3, -1]);
  assert.is(decoded.nested[0].name, 'x');
  // Re-encoding the decoded value gives the same bytes.
  assert.equal(encodeOutput(decoded), encodeOutput(value));
});

test('encodeOutput is canonical: key order does not matter, undefined is dropped, non-finite numbers and Maps are refused', () => {
  assert.equal(encodeOutput({ b: 1, a: { d: [1, 2], c: null } }), encodeOutput({ a: { c: null, d: [1, 2] }, b: 1 }));
  assert.is(encodeOutput({ a: 1, b: undefined }).toString(), '{"a":1}');
  assert.throws(() => encodeOutput({ x: Number.NaN }), /non-finite/);
  assert.throws(() => encodeOutput({ x: Infinity }), /non-finite/);
  assert.throws(() => encodeOutput({ x: new Map() }), /Maps/);
});

test.run();
