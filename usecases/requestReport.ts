/**
 * POST /v1/reports: a report of a succeeded engine run (by default the latest run through every
 * stage), checked before it is queued: the template's placeholders (engine/report/templates.ts), the
 * run (succeeded, through recommend) and the pattern (one of the run's). The report job row and its
 * job are one transaction.
 */
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../lib/context.ts';
import { withTransaction } from '../lib/db.ts';
import { AppError } from '../lib/errors.ts';
import type { ReportKind } from '../engine/report/facts.ts';
import { validateTemplate } from '../engine/report/templates.ts';
import { enqueueJob } from '../jobs/runtime.ts';
import { reportGenerate } from '../jobs/queue/report__generate.ts';
import { findEngineRun } from '../sql/engineRuns.ts';
import { engineRunStatus, insertReportJob, latestReportableRun, runHasPattern, setReportJobRun } from '../sql/reports.ts';

export interface ReportRequest {
  kind: ReportKind;
  runId?: string;
  patternId?: string;
  template?: string;
}

export async function requestReport(app: AppContext, workspaceId: string, request: ReportRequest): Promise<{ id: string; jobId: string }> {
  if (request.template !== undefined) {
    const problems = validateTemplate(request.template, request.kind);
    if (problems.length) throw new AppError('unprocessable', 'The template is invalid', { template: problems[0].message, placeholders: problems });
  }
  const run = request.runId ? await findEngineRun(app.pool, workspaceId, request.runId) : await latestReportableRun(app.pool, workspaceId);
  if (!run) {
    if (request.runId) throw new AppError('not_found', 'Engine run not found');
    throw new AppError('conflict', 'No engine run of this workspace has succeeded through every stage yet; trigger one with POST /v1/engine/runs');
  }
  const status = await engineRunStatus(app.pool, run);
  if (status !== 'succeeded')
    throw new AppError('conflict', `Engine run ${run.id} has not succeeded (it is ${status}); reports read the outputs of a succeeded run`);
  if (run.stage_to !== 'recommend')
    throw new AppError('conflict', `Engine run ${run.id} stopped at stage ${run.stage_to}; reports need a run through recommend`);
  if (request.patternId && !(await runHasPattern(app.pool, run, request.patternId)))
    throw new AppError('not_found', `Pattern not found in engine run ${run.id}`);
  const id = randomUUID();
  return withTransaction(app.pool, async (client) => {
    await insertReportJob(client, {
      id,
      workspaceId,
      kind: request.kind,
      runId: run.id,
      patternId: request.patternId ?? null,
      template: request.template ?? null,
    });
    const { job } = await enqueueJob(client, reportGenerate, { report_id: id, workspace_id: workspaceId }, { workspaceId });
    await setReportJobRun(client, id, job.id);
    return { id, jobId: job.id };
  });
}
