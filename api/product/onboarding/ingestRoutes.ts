/**
 * Historical data (staff): POST /admin/tenants/{id}/ingest/upload takes one CSV or XLSX file and
 * stores it parsed (`uploaded`) or `failed` with a readable reason; POST …/ingest/commit turns an
 * upload into the next dataset version. Committing a committed upload answers its earlier summary
 * without reprocessing; a failed upload cannot be committed (409).
 */
import { z } from 'zod';
import { conflict, notFound } from '../../../lib/errors.ts';
import { commitUpload, datasetOfUpload, type DatasetRow } from '../../../sql/tenant/datasets.ts';
import { withTenant } from '../../../sql/tenant/schema.ts';
import { insertUpload, lockUpload } from '../../../sql/tenant/uploads.ts';
import { historicalImportSource } from '../../../sql/tenant/sources.ts';
import { dataPolicy } from '../../../sql/tenant/trainingSettings.ts';
import { reply } from '../../http/routes.ts';
import { detailSchema } from '../errors.ts';
import { productRoute } from '../route.ts';
import { tenantParams } from '../tenants/lookup.ts';
import { MAX_UPLOAD_BYTES } from '../uploads/multipart.ts';
import { receiveUpload, uploadBody, uploadSchema } from '../uploads/receive.ts';
import { iso } from '../../../lib/isoTimestamp.ts';
import { requireProvisionedTenant } from '../../../usecases/tenants/requireTenant.ts';

const datasetSummarySchema = z
  .object({
    dataset_id: z.uuid(),
    version: z.number().int().describe('1 for the first commit, then one more per commit'),
    upload_id: z.uuid(),
    record_count: z.number().int().describe('Records in this version (the previous version’s with the upload merged in)'),
    records_added: z.number().int(),
    records_updated: z.number().int().describe('Records of the upload that replaced one with the same (source, external_id)'),
    created_at: z.iso.datetime(),
  })
  .meta({ title: 'DatasetSummary' });

const datasetSummary = (d: DatasetRow): z.output<typeof datasetSummarySchema> => ({
  dataset_id: d.id,
  version: d.version,
  upload_id: d.upload_id,
  record_count: d.record_count,
  records_added: d.records_added,
  records_updated: d.records_updated,
  created_at: iso(d.created_at)!,
});

const uploadResponses = {
  404: { description: 'Tenant not found.', schema: detailSchema },
  409: { description: 'The tenant is not provisioned yet', schema: detailSchema },
  413: { description: `The file is larger than ${MAX_UPLOAD_BYTES / 1024 / 1024} MB`, schema: detailSchema },
  422: { description: 'No single `file` part in a multipart/form-data body' },
};

export const ingestRoutes = [
  productRoute({
    method: 'post',
    path: '/admin/tenants/{tenant_id}/ingest/upload',
    operationId: 'ingest_upload',
    summary: 'Upload a file of historical records (CSV or XLSX)',
    description:
      'multipart/form-data with one `file` part (at most 20 MB): CSV (RFC 4180, UTF-8) or XLSX (first worksheet) with a ' +
      'header row naming `external_id, title, narrative, occurred_at, severity, source` (the /v1 ingest record; ' +
      'external_id, title and source required), counted under the "Historical import" source (created if missing). A file that cannot be used is stored with status `failed` and ' +
      '`error_detail` naming the line or row and the column.',
    tags: ['onboarding'],
    auth: 'staff',
    params: tenantParams,
    bodyContentType: 'multipart/form-data',
    responses: { 201: { description: 'The stored upload (`uploaded` or `failed`)', schema: uploadSchema }, ...uploadResponses },
    handler: async ({ app, req, params, staff }) => {
      const tenant = await requireProvisionedTenant(app.pool, params.tenant_id);
      const received = await receiveUpload(req);
      const staffActor = { type: 'employee' as const, id: staff.employeeId };
      // Counted under the default source, as the description of sources/seed says.
      const upload = await withTenant(app.pool, tenant.schema_name, async (db) =>
        insertUpload(db, { ...received, sourceId: (await historicalImportSource(db, staffActor)).id, uploadedBy: staffActor }),
      );
      return reply.created(uploadBody(upload));
    },
  }),
  productRoute({
    method: 'post',
    path: '/admin/tenants/{tenant_id}/ingest/commit',
    operationId: 'ingest_commit',
    summary: 'Commit an upload as the next dataset version',
    description: 'Idempotent: committing a committed upload answers 200 with the summary of the version it created.',
    tags: ['onboarding'],
    auth: 'staff',
    params: tenantParams,
    body: z.object({ upload_id: z.uuid() }),
    responses: {
      201: { description: 'The dataset version created', schema: datasetSummarySchema },
      200: { description: 'The upload was already committed: its dataset version', schema: datasetSummarySchema },
      404: { description: 'Tenant not found. / Upload not found.', schema: detailSchema },
      409: { description: 'The upload failed and cannot be committed, or the tenant is not provisioned', schema: detailSchema },
    },
    handler: async ({ app, params, body, staff }) => {
      const tenant = await requireProvisionedTenant(app.pool, params.tenant_id);
      const outcome = await withTenant(app.pool, tenant.schema_name, async (db) => {
        const upload = await lockUpload(db, body.upload_id);
        if (!upload) throw notFound('Upload not found.');
        if (upload.status === 'committed') return { dataset: (await datasetOfUpload(db, upload.id))!, created: false };
        if (upload.status === 'failed') {
          throw conflict(`This upload failed and cannot be committed: ${upload.error_detail} Upload a corrected file.`);
        }
        return { dataset: await commitUpload(db, upload, (await dataPolicy(db)).redact_pii, { type: 'employee', id: staff.employeeId }), created: true };
      });
      const summary = datasetSummary(outcome.dataset);
      return outcome.created ? reply.created(summary) : reply.ok(summary);
    },
  }),
];
