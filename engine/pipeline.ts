/**
 * The only place that orders the engine's stages. Each stage is a pure function of the outputs it
 * needs and the context; the pipeline encodes every output canonically, digests it and hands it to
 * `onStage` (the caller persists it: the engine itself does no I/O). A run can cover a slice of the
 * stages when the outputs before the slice are supplied by `load`.
 */
import { encodeOutput, sha256, type StageRecord } from './manifest.ts';
import type { StageContext } from './stages/context.ts';
import { snapshot, type SnapshotInput, type SnapshotOutput } from './stages/01_snapshot.ts';
import { normalize, type NormalizeOutput } from './stages/02_normalize.ts';
import { extract, type ExtractOutput } from './stages/03_extract.ts';
import { vectorize, type VectorizeOutput } from './stages/04_vectorize.ts';
import { cluster, type ClusterOutput } from './stages/05_cluster.ts';
import { stability, type StabilityOutput } from './stages/06_stability.ts';
import { patterns, type PatternsOutput } from './stages/07_patterns.ts';
import { hazard, type HazardOutput } from './stages/08_hazard.ts';
import { predict, type PredictOutput } from './stages/09_predict.ts';
import { recommend, type RecommendOutput } from './stages/10_recommend.ts';

export interface StageOutputs {
  snapshot: SnapshotOutput;
  normalize: NormalizeOutput;
  extract: ExtractOutput;
  vectorize: VectorizeOutput;
  cluster: ClusterOutput;
  stability: StabilityOutput;
  patterns: PatternsOutput;
  hazard: HazardOutput;
  predict: PredictOutput;
  recommend: RecommendOutput;
}
export type StageName = keyof StageOutputs;

interface StageDefinition<S extends StageName> {
  name: S;
  needs: StageName[];
  run(inputs: StageOutputs, ctx: StageContext, snapshotInput: SnapshotInput | undefined): StageOutputs[S];
}

const define = <S extends StageName>(d: StageDefinition<S>) => d;

export const stages = [
  define({
    name: 'snapshot',
    needs: [],
    run: (_inputs, ctx, snapshotInput) => {
      if (!snapshotInput) throw new Error('the snapshot stage needs the frozen input');
      return snapshot(snapshotInput, ctx);
    },
  }),
  define({ name: 'normalize', needs: ['snapshot'], run: (i, ctx) => normalize(i, ctx) }),
  define({ name: 'extract', needs: ['snapshot', 'normalize'], run: (i, ctx) => extract(i, ctx) }),
  define({ name: 'vectorize', needs: ['normalize'], run: (i, ctx) => vectorize(i, ctx) }),
  define({ name: 'cluster', needs: ['snapshot', 'normalize', 'vectorize'], run: (i, ctx) => cluster(i, ctx) }),
  define({ name: 'stability', needs: ['vectorize', 'cluster'], run: (i, ctx) => stability(i, ctx) }),
  define({ name: 'patterns', needs: ['snapshot', 'normalize', 'extract', 'vectorize', 'cluster', 'stability'], run: (i, ctx) => patterns(i, ctx) }),
  define({ name: 'hazard', needs: ['snapshot', 'patterns'], run: (i, ctx) => hazard(i, ctx) }),
  define({ name: 'predict', needs: ['snapshot', 'patterns', 'hazard'], run: (i, ctx) => predict(i, ctx) }),
  define({ name: 'recommend', needs: ['snapshot', 'patterns', 'hazard', 'predict'], run: (i, ctx) => recommend(i, ctx) }),
] as const;

export const stageNames = stages.map((s) => s.name) as StageName[];

export function stageIndex(name: string): number {
  const index = stageNames.indexOf(name as StageName);
  if (index < 0) throw new Error(`unknown stage '${name}'; stages are ${stageNames.join(', ')}`);
  return index;
}

/** The stages whose outputs stage `name` needs, directly or through others, before it. */
export function stageDependencies(name: StageName): StageName[] {
  const seen = new Set<StageName>();
  const visit = (n: StageName) => {
    for (const dep of stages[stageIndex(n)].needs) {
      if (!seen.has(dep)) {
        seen.add(dep);
        visit(dep);
      }
    }
  };
  visit(name);
  return stageNames.filter((s) => seen.has(s));
}

export interface StageResult extends StageRecord {
  index: number;
  encoded: Buffer;
}

export interface PipelineOptions {
  ctx: StageContext;
  snapshotInput?: SnapshotInput;
  from?: StageName;
  to?: StageName;
  /** Supplies the stored output of a stage before `from`. */
  load?: (stage: StageName) => Promise<unknown>;
  /** Called after each stage with its encoded output and digest (persistence, progress). */
  onStage?: (result: StageResult) => Promise<void> | void;
  /** Injected timer (the engine reads no clock): defaults to a constant, giving durations of 0. */
  now?: () => number;
  /**
   * The outputs to return (default: all). Any other output is released as soon as no later stage of
   * the range needs it: at 100,000 issues the token lists and vectors are hundreds of megabytes.
   */
  keep?: readonly StageName[];
}

export async function runPipeline(options: PipelineOptions): Promise<{ outputs: Partial<StageOutputs>; records: StageRecord[] }> {
  const from = stageIndex(options.from ?? 'snapshot');
  const to = stageIndex(options.to ?? stageNames.at(-1)!);
  if (to < from) throw new Error(`stage range ${options.from}..${options.to} is empty`);
  const outputs: Partial<StageOutputs> = {};
  const required = new Set<StageName>();
  for (let i = from; i <= to; i++) for (const dep of stages[i].needs) if (stageIndex(dep) < from) required.add(dep);
  for (const name of required) {
    if (!options.load) throw new Error(`stage ${stageNames[from]} needs the output of ${name}; supply load()`);
    (outputs as Record<string, unknown>)[name] = await options.load(name);
  }
  const now = options.now ?? (() => 0);
  // The last stage of the range that reads each output (released after it unless kept).
  const lastUse = new Map<StageName, number>();
  for (let i = from; i <= to; i++) for (const dep of stages[i].needs) lastUse.set(dep, i);
  const release = (i: number) => {
    if (!options.keep) return;
    for (const name of Object.keys(outputs) as StageName[]) {
      if (!options.keep.includes(name) && (lastUse.get(name) ?? -1) <= i) delete outputs[name];
    }
  };
  const records: StageRecord[] = [];
  for (let i = from; i <= to; i++) {
    const stage = stages[i];
    const started = now();
    const output = stage.run(outputs as StageOutputs, options.ctx, options.snapshotInput);
    (outputs as Record<string, unknown>)[stage.name] = output;
    release(i);
    const encoded = encodeOutput(output);
    const record: StageRecord = { stage: stage.name, digest: sha256(encoded), bytes: encoded.length, duration_ms: Math.round(now() - started) };
    records.push(record);
    await options.onStage?.({ ...record, index: i, encoded });
  }
  return { outputs, records };
}
