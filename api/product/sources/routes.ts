/**
 * The workspace's sources (tenant): list, register (`sources.manage`), and upload a file to a
 * `file_upload` source (`sources.manage`). A valid uploaded file is committed at once as the next
 * dataset version (same transaction); one that cannot be used is stored `failed` with the reason.
 */
import { z } from 'zod';
import { jsonValue } from '../../http/jsonValue.ts';
import { AppError, conflict } from '../../../lib/errors.ts';
import { commitUpload } from '../../../sql/tenant/datasets.ts';
import { findSource, insertSource, listSources, sourceKinds } from '../../../sql/tenant/sources.ts';
import { withTenant } from '../../../sql/tenant/schema.ts';
import { findUpload, insertUpload } from '../../../sql/tenant/uploads.ts';
import { dataPolicy } from '../../../sql/tenant/trainingSettings.ts';
import { reply } from '../../http/routes.ts';
import { detailSchema } from '../errors.ts';
import { productRoute } from '../route.ts';
import { MAX_UPLOAD_BYTES } from '../uploads/multipart.ts';
import { receiveUpload, uploadBody, uploadSchema } from '../uploads/receive.ts';
import { sourceBody, sourceSchema } from './schema.ts';

const unknownSource = () => new AppError('not_found', 'Unknown source.');

export const sourceRoutes = [
  productRoute({
    method: 'get',
    path: '/sources',
    operationId: 'list_sources',
    summary: 'The workspace’s sources, oldest first (unpaginated)',
    tags: ['sources'],
    auth: 'tenant',
    permission: 'sources.read',
    responses: { 200: { description: 'Sources', schema: z.array(sourceSchema) } },
    handler: async ({ app, tenant }) => reply.ok((await withTenant(app.pool, tenant.schema, listSources)).map(sourceBody)),
  }),
  productRoute({
    method: 'post',
    path: '/sources',
    operationId: 'create_source',
    summary: 'Register a source',
    tags: ['sources'],
    auth: 'tenant',
    permission: 'sources.manage',
    body: z.strictObject({
      name: z.string().trim().min(1).max(200),
      kind: z.enum(sourceKinds),
      config: z.record(z.string(), jsonValue('A setting of the source, by kind')).optional(),
    }),
    responses: {
      201: { description: 'Registered', schema: sourceSchema },
      409: { description: "A source named '<name>' already exists.", schema: detailSchema },
    },
    handler: async ({ app, tenant, body }) => {
      const source = await withTenant(app.pool, tenant.schema, (db) => insertSource(db, { ...body, createdBy: { type: 'user', id: tenant.userId } }));
      return reply.created(sourceBody(source));
    },
  }),
  productRoute({
    method: 'post',
    path: '/sources/{source_id}/upload',
    operationId: 'upload_to_source',
    summary: 'Upload a file of records to a file_upload source',
    description:
      'multipart/form-data with one `file` part (at most 20 MB), CSV or XLSX with the columns of the staff ingest upload. ' +
      'A valid file becomes the next dataset version at once (status `committed`); one that cannot be used is stored ' +
      '`failed` with `error_detail`.',
    tags: ['sources'],
    auth: 'tenant',
    permission: 'sources.manage',
    params: z.object({ source_id: z.string() }),
    bodyContentType: 'multipart/form-data',
    responses: {
      201: { description: 'The stored upload (`committed` or `failed`)', schema: uploadSchema },
      404: { description: 'Unknown source.', schema: detailSchema },
      409: { description: "Source is kind '<kind>', not file_upload.", schema: detailSchema },
      413: { description: `The file is larger than ${MAX_UPLOAD_BYTES / 1024 / 1024} MB`, schema: detailSchema },
      422: { description: 'No single `file` part in a multipart/form-data body' },
    },
    handler: async ({ app, req, tenant, params }) => {
      const source = await withTenant(app.pool, tenant.schema, (db) => findSource(db, params.source_id));
      if (!source) throw unknownSource();
      if (source.kind !== 'file_upload') throw conflict(`Source is kind '${source.kind}', not file_upload.`);
      const received = await receiveUpload(req);
      const upload = await withTenant(app.pool, tenant.schema, async (db) => {
        const stored = await insertUpload(db, { ...received, sourceId: source.id, uploadedBy: { type: 'user', id: tenant.userId } });
        if (stored.status === 'failed') return stored;
        // Inserted by this transaction: no other can see it, so it needs no lock before the commit.
        await commitUpload(db, stored, (await dataPolicy(db)).redact_pii, { type: 'user', id: tenant.userId });
        return (await findUpload(db, stored.id))!;
      });
      return reply.created(uploadBody(upload));
    },
  }),
];
