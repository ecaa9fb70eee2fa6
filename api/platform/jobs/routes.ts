/** GET /v1/jobs, GET /v1/jobs/{id}, POST /v1/jobs/{id}/cancel: background jobs of the caller's workspace. */
import { z } from 'zod';
import { AppError } from '../../../lib/errors.ts';
import { cancelJob } from '../../../jobs/runtime.ts';
import { findJobRun, jobStatuses, type JobRun } from '../../../sql/jobRuns.ts';
import { reply } from '../../http/routes.ts';
import { listQuery, listResponse, paginate } from '../pagination.ts';
import { platformRoute } from '../route.ts';
import { jobRunList } from '../../../sql/jobRuns.ts';

export const jobSchema = z.object({
  id: z.string(),
  kind: z.string(),
  status: z.enum(jobStatuses),
  progress: z.number().int().min(0).max(100),
  steps_completed: z.array(z.string()),
  error_detail: z.string().nullable(),
  result: z.unknown().nullable(),
  attempts: z.number().int(),
  max_attempts: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
});

export function toJob(run: JobRun): z.infer<typeof jobSchema> {
  return {
    id: run.id,
    kind: run.kind,
    status: run.status,
    progress: run.progress,
    steps_completed: run.steps_completed,
    error_detail: run.error_detail,
    result: run.result ?? null,
    attempts: run.attempts,
    max_attempts: run.max_attempts,
    created_at: run.created_at.toISOString(),
    updated_at: run.updated_at.toISOString(),
    started_at: run.started_at?.toISOString() ?? null,
    finished_at: run.finished_at?.toISOString() ?? null,
  };
}

const idParams = z.object({ id: z.string() });

const jobsQuery = listQuery(
  {
    status: z.enum(jobStatuses, { error: `must be one of ${jobStatuses.join(', ')}` }).optional(),
    kind: z.string().max(100).optional(),
  },
  ['created_at'],
  '-created_at',
);

export const jobRoutes = [
  platformRoute({
    method: 'get',
    readsFrom: 'replica',
    path: '/v1/jobs',
    operationId: 'listJobs',
    summary: 'List background jobs of the workspace, newest first',
    tags: ['jobs'],
    scope: 'jobs:read',
    query: jobsQuery,
    responses: { 200: { description: 'A page of jobs', schema: listResponse(jobSchema) } },
    handler: async ({ query, principal, app }) => {
      const page = await paginate(app.pool, jobRunList(principal.workspaceId, query), { query, cursorKey: app.secrets.cursorKey }, (row) =>
        toJob(row as unknown as JobRun),
      );
      return reply.ok(page);
    },
  }),
  platformRoute({
    method: 'get',
    readsFrom: 'replica',
    path: '/v1/jobs/{id}',
    operationId: 'getJob',
    summary: "A job's status, progress, completed steps and error",
    tags: ['jobs'],
    scope: 'jobs:read',
    params: idParams,
    responses: { 200: { description: 'The job', schema: jobSchema }, 404: { description: 'No such job in this workspace' } },
    handler: async ({ params, principal, app }) => {
      const run = await findJobRun(app.pool, params.id, { workspaceId: principal.workspaceId });
      if (!run) throw new AppError('not_found', 'Job not found');
      return reply.ok(toJob(run));
    },
  }),
  platformRoute({
    method: 'post',
    path: '/v1/jobs/{id}/cancel',
    operationId: 'cancelJob',
    summary: 'Cancel a queued job (409 once a worker has started it)',
    tags: ['jobs'],
    scope: 'jobs:write',
    params: idParams,
    responses: {
      200: { description: 'The cancelled job', schema: jobSchema },
      404: { description: 'No such job in this workspace' },
      409: { description: 'The job is running or finished' },
    },
    handler: async ({ params, principal, app }) => reply.ok(toJob(await cancelJob(app, params.id, { workspaceId: principal.workspaceId }))),
  }),
];
