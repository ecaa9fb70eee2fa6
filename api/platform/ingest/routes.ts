/**
 * POST /v1/ingest/events and /v1/ingest/batch (Idempotency-Key mandatory): 202 acknowledgements.
 * A bad record in a batch is listed in `rejected` and never fails the others; more than 500 records
 * is 400 `too_many_records`. The write itself is usecases/ingestRecords.ts (shared with `svc ingest`).
 */
import { z } from 'zod';
import { documentAs } from '../../http/jsonValue.ts';
import { AppError } from '../../../lib/errors.ts';
import { ingestRecords } from '../../../usecases/ingestRecords.ts';
import { reply } from '../../http/routes.ts';
import { actorOf } from '../principal.ts';
import { platformRoute } from '../route.ts';
import { ingestRecordSchema, MAX_BATCH, toIssueInput, validateIngestRecord, type IssueInput } from '../../../domain/ingestRecord.ts';

const summarySchema = z.object({ eligible: z.number().int(), blocked_no_narrative: z.number().int(), ineligible: z.number().int() });
const rejectionSchema = z.object({ index: z.number().int(), errors: z.array(z.object({ field: z.string(), message: z.string() })) });
const ackBase = { accepted: z.number().int(), rejected: z.array(rejectionSchema), job_id: z.string(), engine_status_summary: summarySchema };
const eventAckSchema = z.object({ ...ackBase, issue_id: z.string() });
const batchAckSchema = z.object({ ...ackBase, issue_ids: z.array(z.string()) });

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
      const { issueIds, jobId, summary } = await ingestRecords(
        app,
        { workspaceId: principal.workspaceId, actor: actorOf(principal) },
        [toIssueInput(body)],
        'event',
        0,
      );
      return reply.accepted({ accepted: 1, rejected: [], issue_id: issueIds[0], job_id: jobId, engine_status_summary: summary });
    },
  }),
  platformRoute({
    method: 'post',
    path: '/v1/ingest/batch',
    operationId: 'ingestBatch',
    summary: 'Ingest up to 500 signals; bad records are rejected individually',
    tags: ['ingest'],
    scope: 'ingest:write',
    body: z.object({
      records: z.array(documentAs(z.unknown(), ingestRecordSchema), { error: 'must be an array of records' }).min(1, 'must contain at least one record'),
    }),
    responses: {
      202: { description: 'Accepted (possibly with rejected records)', schema: batchAckSchema },
      400: { description: '`too_many_records` above 500 records, or `validation_error`' },
    },
    handler: async ({ body, principal, app }) => {
      if (body.records.length > MAX_BATCH) {
        throw new AppError('too_many_records', `A batch holds at most ${MAX_BATCH} records; this one has ${body.records.length}`, {
          limit: MAX_BATCH,
          received: body.records.length,
        });
      }
      const inputs: IssueInput[] = [];
      const rejected: z.infer<typeof rejectionSchema>[] = [];
      body.records.forEach((record, index) => {
        const checked = validateIngestRecord(record);
        if (checked.ok) inputs.push(checked.input);
        else rejected.push({ index, errors: checked.errors });
      });
      const { issueIds, jobId, summary } = await ingestRecords(
        app,
        { workspaceId: principal.workspaceId, actor: actorOf(principal) },
        inputs,
        'batch',
        rejected.length,
      );
      return reply.accepted({
        accepted: inputs.length,
        rejected,
        issue_ids: issueIds,
        job_id: jobId,
        engine_status_summary: summary,
      });
    },
  }),
];
