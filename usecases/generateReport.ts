/**
 * Generates a report: reads the stored outputs of its engine run (sql/reports.ts), builds the facts
 * document (engine/report/facts.ts), writes the narrative through a generator (the built-in
 * templates or the caller's template) and fact-checks every numeral of it, then renders the HTML
 * page. A narrated numeral that resolves to no fact, or a template that names no fact, fails the
 * report for good (recorded on the report with its details, never retried); a database error is
 * retried.
 */
import type { z } from 'zod';
import { buildFacts, encodeFacts } from '../engine/report/facts.ts';
import { renderHtml } from '../engine/report/html.ts';
import { builtInGenerator, checkedNarrative, FactsMismatch, templateGenerator } from '../engine/report/narrative.ts';
import { TemplateError } from '../engine/report/templates.ts';
import { findEngineRun } from '../sql/engineRuns.ts';
import { completeReport, failReport, findReportJob, loadReportSources } from '../sql/reports.ts';
import { type JobContext, PermanentJobError } from '../jobs/runtime.ts';
import type { reportGenerate } from '../jobs/queue/report__generate.ts';

export async function generateReport({ report_id, workspace_id }: z.output<(typeof reportGenerate)['payload']>, job: JobContext) {
  const report = await findReportJob(job.app.pool, workspace_id, report_id);
  if (!report) throw new PermanentJobError(`report ${report_id} not found`);
  const run = await findEngineRun(job.app.pool, workspace_id, report.run_id);
  if (!run) throw new PermanentJobError(`engine run ${report.run_id} not found`);
  let step = 0;
  const sources = await loadReportSources(job.app.pool, run, report.kind, report.pattern_id ?? undefined, (name) => job.progress((++step * 30) / 2, name));
  const facts = buildFacts(report.kind, sources, report.pattern_id ?? undefined);
  const encoded = encodeFacts(facts);
  await job.progress(70, 'facts');
  const stored = { facts: encoded.json, factsDigest: encoded.digest };
  try {
    const narrative = await checkedNarrative(report.template ? templateGenerator(report.template) : builtInGenerator, facts);
    await job.progress(85, 'narrative');
    const html = renderHtml(facts, narrative.markdown, encoded.digest);
    await completeReport(job.app.pool, report_id, { ...stored, markdown: narrative.markdown, html, generator: narrative.generator });
    return { report_id, facts_digest: encoded.digest, numerals_checked: narrative.numerals_checked };
  } catch (err) {
    if (err instanceof FactsMismatch) {
      await failReport(
        job.app.pool,
        report_id,
        { code: 'report_facts_mismatch', message: err.message, details: { numerals: err.numerals, conflicts: err.conflicts } },
        stored,
      );
      throw new PermanentJobError(err.message);
    }
    if (err instanceof TemplateError) {
      await failReport(
        job.app.pool,
        report_id,
        { code: 'unprocessable', message: `The template cannot be rendered over the facts: ${err.message}`, details: { template: err.problems } },
        stored,
      );
      throw new PermanentJobError(err.message);
    }
    throw err;
  }
}
