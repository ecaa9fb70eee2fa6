/**
 * Background jobs for staff (the console's jobs page, in the spirit of Oban Web): every job run of
 * every tenant and workspace with filters, one job with its payload, attempts, errors, timing and
 * graphile-worker's queue row, and retry and cancel. Reads are open to every staff role; retry and
 * cancel need `onboarding_admin` and CSRF (the guard's default for writes).
 */
import { z } from 'zod';
import { jobStatuses, listJobRuns, type JobRun } from '../../../sql/jobRuns.ts';
import { cancelQueuedJob, jobWithQueue, retryFailedJob } from '../../../usecases/jobAdministration.ts';
import { jsonValue } from '../../http/jsonValue.ts';
import { reply } from '../../http/routes.ts';
import { detailSchema } from '../errors.ts';
import { productRoute } from '../route.ts';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

const jobSummarySchema = z
  .object({
    id: z.uuid(),
    kind: z.string().describe('The task, `<aggregate>__<verb>` (tenant__provision, tenant__train, mail__send, engine__run …)'),
    status: z.enum(jobStatuses),
    progress: z.number().int(),
    attempts: z.number().int(),
    max_attempts: z.number().int(),
    tenant_id: z.uuid().nullable(),
    workspace_id: z.uuid().nullable(),
    error_detail: z.string().nullable(),
    created_at: z.iso.datetime(),
    started_at: z.iso.datetime().nullable(),
    finished_at: z.iso.datetime().nullable(),
    updated_at: z.iso.datetime(),
  })
  .meta({ title: 'JobSummary' });

const jobDetailSchema = jobSummarySchema
  .extend({
    payload: jsonValue("The job's payload as enqueued: its shape depends on the job's kind"),
    result: jsonValue("The task's result, once it succeeded: its shape depends on the job's kind"),
    steps_completed: z.array(z.string()),
    job_key: z.string().nullable(),
    queue: z
      .object({
        queue_name: z.string().nullable(),
        run_at: z.iso.datetime().describe('When the job runs next (a retry waits out its backoff)'),
        attempts: z.number().int(),
        max_attempts: z.number().int(),
        last_error: z.string().nullable().describe('The error of the latest failed attempt'),
        locked_at: z.iso.datetime().nullable(),
        locked_by: z.string().nullable().describe('The worker running it'),
      })
      .nullable()
      .describe("graphile-worker's row while the job waits or runs; null once it finished"),
  })
  .meta({ title: 'JobDetail' });

const summary = (r: JobRun): z.output<typeof jobSummarySchema> => ({
  id: r.id,
  kind: r.kind,
  status: r.status,
  progress: r.progress,
  attempts: r.attempts,
  max_attempts: r.max_attempts,
  tenant_id: r.tenant_id,
  workspace_id: r.workspace_id,
  error_detail: r.error_detail,
  created_at: r.created_at.toISOString(),
  started_at: iso(r.started_at),
  finished_at: iso(r.finished_at),
  updated_at: r.updated_at.toISOString(),
});

const jobParams = z.object({ job_id: z.uuid() });
const notFound = { 404: { description: 'Job not found', schema: detailSchema } };

export const jobRoutes = [
  productRoute({
    method: 'get',
    path: '/admin/jobs',
    operationId: 'list_jobs',
    summary: 'Background jobs, newest first',
    description: 'Every job run of every tenant and workspace; filter by `kind`, `status` and `tenant_id`. At most `limit` (default 100, 1-500).',
    tags: ['observability'],
    auth: 'staff',
    query: z.object({
      kind: z.string().trim().min(1).max(100).optional(),
      status: z.enum(jobStatuses).optional(),
      tenant_id: z.uuid().optional(),
      limit: z.coerce.number().int().min(1).max(500).default(100),
    }),
    responses: { 200: { description: 'Job runs', schema: z.array(jobSummarySchema) } },
    handler: async ({ app, query }) => {
      const runs = await listJobRuns(app.pool, { kind: query.kind, status: query.status, tenantId: query.tenant_id, limit: query.limit });
      return reply.ok(runs.map(summary));
    },
  }),
  productRoute({
    method: 'get',
    path: '/admin/jobs/{job_id}',
    operationId: 'get_job',
    summary: 'One background job: payload, attempts, errors, timing and its queue row',
    tags: ['observability'],
    auth: 'staff',
    params: jobParams,
    responses: { 200: { description: 'The job', schema: jobDetailSchema }, ...notFound },
    handler: async ({ app, params }) => {
      const job = await jobWithQueue(app, params.job_id);
      return reply.ok({
        ...summary(job),
        payload: job.payload,
        result: job.result,
        steps_completed: job.steps_completed,
        job_key: job.job_key,
        queue: job.queue && {
          queue_name: job.queue.queue_name,
          run_at: job.queue.run_at.toISOString(),
          attempts: job.queue.attempts,
          max_attempts: job.queue.max_attempts,
          last_error: job.queue.last_error,
          locked_at: iso(job.queue.locked_at),
          locked_by: job.queue.locked_by,
        },
      });
    },
  }),
  productRoute({
    method: 'post',
    path: '/admin/jobs/{job_id}/retry',
    operationId: 'retry_job',
    summary: 'Queue a failed or cancelled job again',
    tags: ['observability'],
    auth: 'staff',
    params: jobParams,
    responses: {
      200: { description: 'The job, queued again', schema: jobSummarySchema },
      ...notFound,
      409: { description: 'Job is <status>; only failed or cancelled jobs can be retried', schema: detailSchema },
    },
    handler: async ({ app, params }) => reply.ok(summary(await retryFailedJob(app, params.job_id))),
  }),
  productRoute({
    method: 'post',
    path: '/admin/jobs/{job_id}/cancel',
    operationId: 'cancel_job',
    summary: 'Cancel a queued job (a running one cannot be cancelled)',
    tags: ['observability'],
    auth: 'staff',
    params: jobParams,
    responses: {
      200: { description: 'The job, cancelled', schema: jobSummarySchema },
      ...notFound,
      409: { description: 'Job is <status>; only queued jobs can be cancelled', schema: detailSchema },
    },
    handler: async ({ app, params }) => reply.ok(summary(await cancelQueuedJob(app, params.job_id))),
  }),
];
