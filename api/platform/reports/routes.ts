/**
 * Reports: POST /v1/reports/jobs enqueues a report__generate job over one succeeded engine run (the
 * latest one unless `run_id` says otherwise); GET /v1/reports/jobs/{id} answers its status and, once
 * done, the facts document (with its digest) and the narrative in Markdown and HTML, or the error
 * (`report_facts_mismatch` with the offending numerals and their positions).
 */
import { z } from 'zod';
import { jsonValue } from '../../http/jsonValue.ts';
import { AppError } from '../../../lib/errors.ts';
import { patternKinds, reportKinds } from '../../../engine/report/facts.ts';
import { MAX_TEMPLATE_LENGTH } from '../../../engine/report/templates.ts';
import { requestReport } from '../../../usecases/requestReport.ts';
import { jobStatuses } from '../../../sql/jobRuns.ts';
import { findReportJob, type ReportJobRow } from '../../../sql/reports.ts';
import { reply } from '../../http/routes.ts';
import { platformRoute } from '../route.ts';

const reportSchema = z.object({
  id: z.string(),
  kind: z.enum(reportKinds),
  status: z.enum(jobStatuses),
  progress: z.number().int(),
  job_id: z.string().nullable(),
  run_id: z.string(),
  pattern_id: z.string().nullable(),
  facts: z
    .record(z.string(), jsonValue('A fact: a number, text or table the narrative cites'))
    .optional()
    .describe('Deterministic facts document: the same run and kind give byte-identical facts (see facts_digest)'),
  facts_digest: z.string().optional().describe('SHA-256 of the canonical facts bytes'),
  narrative: z.object({ markdown: z.string(), html: z.string(), generator: z.string() }).optional(),
  error: z.object({ code: z.string(), message: z.string(), details: jsonValue('Details of the failure, by code').optional() }).optional(),
  created_at: z.string(),
  finished_at: z.string().nullable(),
});

function toReport(r: ReportJobRow): z.infer<typeof reportSchema> {
  const done = r.status === 'succeeded' && r.narrative_markdown !== null;
  return {
    id: r.id,
    kind: r.kind,
    status: r.status,
    progress: r.progress,
    job_id: r.job_run_id,
    run_id: r.run_id,
    pattern_id: r.pattern_id,
    ...(r.facts !== null && (done || r.error) ? { facts: JSON.parse(r.facts), facts_digest: r.facts_digest! } : {}),
    ...(done ? { narrative: { markdown: r.narrative_markdown!, html: r.narrative_html!, generator: r.generator! } } : {}),
    ...(r.error ? { error: r.error } : r.status === 'failed' ? { error: { code: 'internal_error', message: 'The report job failed' } } : {}),
    created_at: r.created_at.toISOString(),
    finished_at: r.finished_at?.toISOString() ?? null,
  };
}

const uuid = (what: string) => z.uuid({ error: `must be ${what} id` });

export const reportRoutes = [
  platformRoute({
    method: 'post',
    path: '/v1/reports/jobs',
    operationId: 'createReportJob',
    summary: 'Request a report over the facts of one engine run',
    description:
      `Kinds: ${reportKinds.join(', ')}; ${patternKinds.join(' and ')} need \`pattern_id\`. Without \`run_id\` the latest run that succeeded through every stage is used. ` +
      '`template` is Markdown with `{{path.to.fact}}` placeholders (optionally `{{path|format}}`); every numeral of the narrative must resolve to a fact or the job fails with report_facts_mismatch.',
    tags: ['reports'],
    scope: 'reports:write',
    body: z
      .object({
        kind: z.enum(reportKinds, { error: `must be one of ${reportKinds.join(', ')}` }),
        run_id: uuid('an engine run').optional(),
        pattern_id: uuid('a pattern').optional(),
        template: z.string().max(MAX_TEMPLATE_LENGTH, `must be at most ${MAX_TEMPLATE_LENGTH} characters`).optional(),
      })
      .refine((b) => !patternKinds.includes(b.kind) || b.pattern_id, { message: 'is required for this kind', path: ['pattern_id'] }),
    responses: {
      202: { description: 'Queued', schema: z.object({ id: z.string(), status: z.literal('queued'), job_id: z.string() }) },
      404: { description: 'Unknown run or pattern' },
      409: { description: 'The run has not succeeded' },
      422: { description: 'Invalid template' },
    },
    handler: async ({ body, principal, app }) => {
      const { id, jobId } = await requestReport(app, principal.workspaceId, {
        kind: body.kind,
        runId: body.run_id,
        patternId: body.pattern_id,
        template: body.template,
      });
      return reply.accepted({ id, status: 'queued' as const, job_id: jobId });
    },
  }),
  platformRoute({
    method: 'get',
    path: '/v1/reports/jobs/{id}',
    operationId: 'getReportJob',
    summary: 'A report job: status, and when done the facts and narrative (or the error)',
    tags: ['reports'],
    scope: 'reports:read',
    params: z.object({ id: z.string() }),
    responses: { 200: { description: 'The report job', schema: reportSchema }, 404: { description: 'Not found' } },
    handler: async ({ params, principal, app }) => {
      const report = await findReportJob(app.pool, principal.workspaceId, params.id);
      if (!report) throw new AppError('not_found', 'Report job not found');
      return reply.ok(toReport(report));
    },
  }),
];
