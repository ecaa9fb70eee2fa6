/**
 * POST /v1/ingest/events and /v1/ingest/batch (Idempotency-Key mandatory): 202 acknowledgements.
 * A bad record in a batch is listed in `rejected` and never fails the others; more than 500 records
 * is 400 `too_many_records`. Accepted records, their events, review items, the post-ingest job and
 * the verification of implemented fixes of the records' patterns commit in one transaction, attempted again when a concurrent ingest created one of the same new
 * keys first (the retry re-ingests it).
 */
import { z } from 'zod';
import type { AppContext } from '../../../lib/context.ts';
import { AppError } from '../../../lib/errors.ts';
import { enqueueJob } from '../../../jobs/runtime.ts';
import { ingestProcess } from '../../../jobs/tasks/ingest__process.ts';
import { enqueueVerifications } from '../../../jobs/tasks/recommendation__verify.ts';
import { withEventBatch } from '../../../sql/events.ts';
import { ingestIssues, type IssueInput } from '../../../sql/issues.ts';
import { reply } from '../../http/routes.ts';
import { actorOf, type Principal } from '../principal.ts';
import { platformRoute } from '../route.ts';
import { ingestRecordSchema, toIssueInput } from './record.ts';

export const MAX_BATCH = 500;

const summarySchema = z.object({ eligible: z.number().int(), blocked_no_narrative: z.number().int(), ineligible: z.number().int() });
const rejectionSchema = z.object({ index: z.number().int(), errors: z.array(z.object({ field: z.string(), message: z.string() })) });
const ackBase = { accepted: z.number().int(), rejected: z.array(rejectionSchema), job_id: z.string(), engine_status_summary: summarySchema };
const eventAckSchema = z.object({ ...ackBase, issue_id: z.string() });
const batchAckSchema = z.object({ ...ackBase, issue_ids: z.array(z.string()) });

async function ingest(app: AppContext, principal: Principal, inputs: IssueInput[], mode: 'event' | 'batch', rejected: number) {
  return withEventBatch(
    app.pool,
    principal.workspaceId,
    async (client, events) => {
      const outcome = await ingestIssues(client, events, actorOf(principal), inputs, 'ingest');
      const created = outcome.results.filter((r) => r.created).length;
      const { job } = await enqueueJob(
        client,
        ingestProcess,
        { workspace_id: principal.workspaceId, mode, issue_ids: outcome.results.map((r) => r.issue_id), created, updated: outcome.results.length - created, rejected },
        { workspaceId: principal.workspaceId },
      );
      // Re-ingested issues of a pattern with an implemented fix: the fix is verified again.
      await enqueueVerifications(client, principal.workspaceId, outcome.results.map((r) => r.issue_id));
      const summary = { eligible: 0, blocked_no_narrative: 0, ineligible: 0 };
      for (const r of outcome.results) summary[r.engine_status] += 1;
      return { outcome, jobId: job.id, summary };
    },
    { retry: true },
  );
}

export const ingestRoutes = [
  platformRoute({
    method: 'post',
    path: '/v1/ingest/events',
    operationId: 'ingestEvent',
    summary: 'Ingest one signal',
    description:
      'Required: external_id, title, source. Optional: narrative (alias: body, deprecated), occurred_at, severity ' +
      '(critical, high, medium, low, p1..p4, sev1..sev4; default medium). The same (source, external_id) updates the existing issue.',
    tags: ['ingest'],
    scope: 'ingest:write',
    body: ingestRecordSchema,
    responses: { 202: { description: 'Accepted', schema: eventAckSchema } },
    handler: async ({ body, principal, app }) => {
      const { outcome, jobId, summary } = await ingest(app, principal, [toIssueInput(body)], 'event', 0);
      return reply.accepted({ accepted: 1, rejected: [], issue_id: outcome.results[0].issue_id, job_id: jobId, engine_status_summary: summary });
    },
  }),
  platformRoute({
    method: 'post',
    path: '/v1/ingest/batch',
    operationId: 'ingestBatch',
    summary: 'Ingest up to 500 signals; bad records are rejected individually',
    tags: ['ingest'],
    scope: 'ingest:write',
    body: z.object({ records: z.array(z.unknown(), { error: 'must be an array of records' }).min(1, 'must contain at least one record') }),
    responses: {
      202: { description: 'Accepted (possibly with rejected records)', schema: batchAckSchema },
      400: { description: '`too_many_records` above 500 records, or `validation_error`' },
    },
    handler: async ({ body, principal, app }) => {
      if (body.records.length > MAX_BATCH) {
        throw new AppError('too_many_records', `A batch holds at most ${MAX_BATCH} records; this one has ${body.records.length}`, { limit: MAX_BATCH, received: body.records.length });
      }
      const inputs: IssueInput[] = [];
      const rejected: z.infer<typeof rejectionSchema>[] = [];
      body.records.forEach((record, index) => {
        const parsed = ingestRecordSchema.safeParse(record);
        if (parsed.success) inputs.push(toIssueInput(parsed.data));
        else rejected.push({ index, errors: parsed.error.issues.map((i) => ({ field: i.path.map(String).join('.') || 'record', message: i.message })) });
      });
      const { outcome, jobId, summary } = await ingest(app, principal, inputs, 'batch', rejected.length);
      return reply.accepted({
        accepted: inputs.length,
        rejected,
        issue_ids: outcome.results.map((r) => r.issue_id),
        job_id: jobId,
        engine_status_summary: summary,
      });
    },
  }),
];
