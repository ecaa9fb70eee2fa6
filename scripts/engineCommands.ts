/**
 * `svc engine run` and `svc engine stage`: the engine as a foreground CLI job for data engineers,
 * with a live progress display and a summary table.
 */
import type { AppContext } from '../lib/context.ts';
import { withTransaction } from '../lib/db.ts';
import { decodeOutput, encodeOutput, sha256 } from '../engine/manifest.ts';
import { stageDependencies, stageIndex, stageNames, stages, type StageName, type StageOutputs } from '../engine/pipeline.ts';
import { contextOf, createEngineRun, executeEngineRun, type ProgressReport } from '../usecases/runEngine.ts';
import { findEngineRun, loadStageOutput, setEngineRunJob } from '../sql/engineRuns.ts';
import { completeJobRun, failJobRun, insertJobRun, recordJobProgress } from '../sql/jobRuns.ts';
import { InputError, UsageError } from './cli.ts';

export function parseStageRange(value: string | undefined): { from?: StageName; to?: StageName } {
  if (!value) return {};
  const match = /^([a-z0-9_]+)?\.\.([a-z0-9_]+)?$/.exec(value) ?? /^([a-z0-9_]+)$/.exec(value);
  if (!match) throw new UsageError(`--stages must look like FROM..TO (e.g. 1..7 or snapshot..cluster), got '${value}'`);
  const resolve = (s: string | undefined, fallback: StageName): StageName => {
    if (!s) return fallback;
    if (/^\d+$/.test(s)) {
      const n = Number(s);
      if (n < 1 || n > stageNames.length) throw new UsageError(`stage numbers run from 1 to ${stageNames.length}`);
      return stageNames[n - 1];
    }
    if (!stageNames.includes(s as StageName)) throw new UsageError(`unknown stage '${s}'; stages are ${stageNames.join(', ')}`);
    return s as StageName;
  };
  const from = resolve(match[1], stageNames[0]);
  const to = match[0].includes('..') ? resolve(match[2], stageNames.at(-1)!) : from;
  if (stageIndex(from) > stageIndex(to)) throw new UsageError(`--stages ${value}: ${from} comes after ${to}`);
  return { from, to };
}

const pad = (s: string, n: number) => s.padEnd(n);
const elapsed = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

/**
 * Runs the engine in the foreground. Progress goes to `out`; the result is a table and summary on
 * `out`, or with `json` one JSON document on `result` (so `--json` output can be piped).
 */
export async function engineRunCommand(
  app: AppContext,
  workspaceId: string,
  range: { from?: StageName; to?: StageName },
  out: NodeJS.WriteStream,
  options: { json?: boolean; result?: NodeJS.WritableStream } = {},
): Promise<number> {
  const { run, job } = await withTransaction(app.pool, async (client) => {
    const created = await createEngineRun(client, app, { workspaceId, trigger: 'cli', from: range.from, to: range.to });
    const jobRow = (await insertJobRun(client, {
      kind: 'engine__run',
      payload: { run_id: created.id, workspace_id: workspaceId },
      maxAttempts: 1,
      workspaceId,
      status: 'running',
    }))!;
    await setEngineRunJob(client, created.id, jobRow.id);
    return { run: created, job: jobRow };
  });
  out.write(`engine run ${run.id} (workspace ${workspaceId}, stages ${run.stage_from}..${run.stage_to})\n`);
  const started = Date.now();
  const live = out.isTTY;
  const first = stageIndex(run.stage_from);
  const total = stageIndex(run.stage_to) - first + 1;
  const show = (text: string) => (live ? out.write(`\r\u001b[2K${text}`) : out.write(`${text}\n`));
  show(`[1/${total}] ${run.stage_from} … 0%  ${elapsed(0)}`);
  try {
    const result = await executeEngineRun(app, run.id, workspaceId, async (p: ProgressReport) => {
      await recordJobProgress(app.pool, job.id, p.percent, p.stage);
      const next = stageNames[p.index + 1];
      const done = p.index - first + 1;
      show(done < total ? `[${done + 1}/${total}] ${next} …  ${p.percent}%  ${elapsed(Date.now() - started)}` : `done  100%  ${elapsed(Date.now() - started)}`);
    });
    if (live) out.write('\n');
    await completeJobRun(app.pool, job.id, result.summary);
    if (options.json) {
      const stagesRun = result.records.map((r) => ({ stage: r.stage, duration_ms: r.duration_ms, bytes: r.bytes, digest: r.digest }));
      (options.result ?? out).write(
        `${JSON.stringify({ run_id: run.id, job_id: job.id, output_digest: result.run.output_digest, summary: result.summary, stages: stagesRun })}\n`,
      );
      return 0;
    }
    out.write(`\n${pad('stage', 12)}${pad('time', 10)}${pad('output', 12)}digest\n`);
    for (const r of result.records)
      out.write(`${pad(r.stage, 12)}${pad(`${r.duration_ms} ms`, 10)}${pad(`${(r.bytes / 1e6).toFixed(2)} MB`, 12)}${r.digest.slice(0, 16)}\n`);
    out.write(`\n${JSON.stringify(result.summary, null, 2)}\n\nrun id: ${run.id}\noutput digest: ${result.run.output_digest}\n`);
    return 0;
  } catch (err) {
    if (live) out.write('\n');
    await failJobRun(app.pool, job.id, (err as Error).message);
    throw err;
  }
}

/** Re-runs one stage of a stored run from the stored outputs of the stages before it and compares digests. */
export async function engineStageCommand(
  app: AppContext,
  workspaceId: string,
  runId: string,
  stage: StageName,
  out: NodeJS.WriteStream,
  options: { json?: boolean } = {},
): Promise<number> {
  const run = await findEngineRun(app.pool, workspaceId, runId);
  if (!run) throw new InputError(`run ${runId} does not exist in workspace ${workspaceId}`);
  if (stage === 'snapshot') throw new UsageError('the snapshot stage has no stored inputs to re-run from; use `svc engine run --stages 1..1`');
  const inputs: Partial<StageOutputs> = {};
  for (const dep of stageDependencies(stage)) {
    const stored = (await loadStageOutput(app.pool, run.id, dep)) ?? (run.base_run_id ? await loadStageOutput(app.pool, run.base_run_id, dep) : null);
    if (!stored) throw new InputError(`run ${runId} has no stored output of ${dep}, which ${stage} needs`);
    (inputs as Record<string, unknown>)[dep] = decodeOutput(stored.encoded);
  }
  const ctx = await contextOf(app, run);
  const started = performance.now();
  const output = stages[stageIndex(stage)].run(inputs as StageOutputs, ctx, undefined);
  const duration = performance.now() - started;
  const digest = sha256(encodeOutput(output));
  const stored = await loadStageOutput(app.pool, run.id, stage);
  if (options.json) {
    out.write(
      `${JSON.stringify({ run_id: runId, stage, duration_ms: Math.round(duration), digest, stored_digest: stored?.digest ?? null, identical: stored ? stored.digest === digest : null })}\n`,
    );
    return stored && stored.digest !== digest ? 1 : 0;
  }
  out.write(`stage ${stage} of run ${runId}: ${duration.toFixed(0)} ms\n`);
  out.write(`digest   ${digest}\nstored   ${stored?.digest ?? '(none)'}\n`);
  out.write(
    stored ? (stored.digest === digest ? 'identical to the stored output\n' : 'DIFFERENT from the stored output\n') : 'the run did not store this stage\n',
  );
  return stored && stored.digest !== digest ? 1 : 0;
}
