/**
 * The pure pipeline on N Hadoop-like issues (the speed section's data) built in memory, without a
 * database, for profiling (`--cpu-prof`) and for comparing trees: prints the wall and CPU seconds, the
 * stage times and every stage's output digest (the same digests on two trees: the same outputs).
 *   node --import tsx [--cpu-prof --cpu-prof-dir=DIR] bench/speedProfile.ts [N, default 100000]
 */
import { configDefinitions, configKinds, type ConfigKind } from '../engine/config/index.ts';
import { runPipeline, type StageOutputs } from '../engine/pipeline.ts';
import type { SnapshotInput } from '../engine/stages/01_snapshot.ts';
import type { ResolvedConfigs, StageContext } from '../engine/stages/context.ts';
import { loadHadoopBugs, toSnapshotIssue } from './data/hadoop.ts';

const n = Number(process.argv[2] ?? 100000);
const idOf = (i: number) => `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
function defaultConfigs(): ResolvedConfigs {
  const out: Partial<Record<ConfigKind, { id: string; document: unknown }>> = {};
  for (const kind of configKinds) out[kind] = { id: `default-${kind}`, document: configDefinitions[kind].defaults };
  return out as ResolvedConfigs;
}
const ctx: StageContext = {
  runId: '00000000-0000-4000-8000-00000000be1c',
  seed: configDefinitions.cluster.defaults.seed,
  asOf: '2025-06-01T00:00:00.000Z',
  configs: defaultConfigs(),
};
const bugs = loadHadoopBugs().filter((b) => b.description.trim());
const input: SnapshotInput = {
  workspace_id: idOf(999999),
  event_sequence: 1,
  previous_run_id: null,
  issues: Array.from({ length: n }, (_, i) => toSnapshotIssue(bugs[i % bugs.length], idOf(i + 1))),
  decisions: [],
  previous_patterns: [],
};
const stages: string[] = [];
const digests: string[] = [];
const c0 = process.cpuUsage();
const t0 = performance.now();
const { outputs } = await runPipeline({
  ctx,
  snapshotInput: input,
  now: () => performance.now(),
  onStage: (r) => {
    stages.push(`${r.stage} ${(r.duration_ms / 1000).toFixed(2)}`);
    digests.push(`${r.stage} ${r.digest}`);
  },
});
const cpu = process.cpuUsage(c0);
console.log(`pipeline ${((performance.now() - t0) / 1000).toFixed(2)} s, cpu ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s`);
console.log(stages.join(', '));
console.log('patterns', (outputs as StageOutputs).hazard.patterns.length);
console.log(digests.join('\n'));
