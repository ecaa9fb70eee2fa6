/**
 * Exports: POST /v1/exports enqueues an export__generate job for a list (issues, patterns,
 * predictions) with that list's filters; GET /v1/exports/{id} answers its status and, once done, a
 * signed download URL that expires with the file; GET /v1/exports/{id}/download serves the file to
 * whoever holds a valid URL (no bearer), streamed chunk by chunk from the database.
 */
import { ringVerifies } from '../../../lib/keyRing.ts';
import { z } from 'zod';
import { jsonValue } from '../../http/jsonValue.ts';
import { hmacSha256 } from '../../../lib/crypto.ts';
import type { AppContext } from '../../../lib/context.ts';
import { AppError } from '../../../lib/errors.ts';
import { startExport } from '../../../usecases/startExport.ts';
import { contentTypes, exportChunks, exportFormats, exportResources, findExport, type ExportRow } from '../../../sql/exports.ts';
import { jobStatuses } from '../../../sql/jobRuns.ts';
import { reply, type Request } from '../../http/routes.ts';
import { exportFilters } from '../listFilters.ts';
import { platformRoute } from '../route.ts';
import { platformBaseUrl } from '../publicUrl.ts';
import type { Scope } from '../../../domain/scopes.ts';

const exportSchema = z.object({
  id: z.string(),
  status: z.enum(jobStatuses),
  resource: z.enum(exportResources),
  format: z.enum(exportFormats),
  filters: z.record(z.string(), jsonValue("A list filter's value, as the list endpoint reads it")),
  job_id: z.string().nullable(),
  row_count: z.number().int().nullable(),
  bytes: z.number().int().nullable(),
  download_url: z.string().optional().describe('Signed; needs no bearer token; valid until expires_at'),
  expires_at: z.string().optional(),
  created_at: z.string(),
});

/** Signed with EXPORT_URL_KEY (a key of its own since issue 26: the cursor key no longer forges download links). */
const signatureWith = (key: Buffer, id: string, expires: number) => hmacSha256(key, `${id}.${expires}`).toString('base64url');
const signature = (app: AppContext, id: string, expires: number) => signatureWith(app.secrets.exportUrlKey.current, id, expires);

function downloadUrl(app: AppContext, req: Request, e: ExportRow): string {
  const expires = Math.floor(e.expires_at!.getTime() / 1000);
  return `${platformBaseUrl(app, req)}/v1/exports/${e.id}/download?expires=${expires}&signature=${signature(app, e.id, expires)}`;
}

function toExport(app: AppContext, req: Request, e: ExportRow): z.infer<typeof exportSchema> {
  const ready = e.status === 'succeeded' && e.finished_at !== null && e.expires_at !== null && e.expires_at > app.clock.now();
  return {
    id: e.id,
    status: e.status,
    resource: e.resource,
    format: e.format,
    filters: e.filters,
    job_id: e.job_run_id,
    row_count: e.row_count,
    bytes: e.bytes,
    ...(ready ? { download_url: downloadUrl(app, req, e), expires_at: e.expires_at!.toISOString() } : {}),
    created_at: e.created_at.toISOString(),
  };
}

const readScope: Record<(typeof exportResources)[number], Scope> = { issues: 'issues:read', patterns: 'patterns:read', predictions: 'predictions:read' };

const exportOf = <R extends (typeof exportResources)[number]>(resource: R) =>
  z.object({
    resource: z.literal(resource),
    format: z.enum(exportFormats, { error: `must be one of ${exportFormats.join(', ')}` }),
    filters: exportFilters[resource].optional().describe(`The filters of GET /v1/${resource}`),
  });
const exportBody = z.discriminatedUnion('resource', [exportOf('issues'), exportOf('patterns'), exportOf('predictions')], {
  error: `must be one of ${exportResources.join(', ')}`,
});

export const exportRoutes = [
  platformRoute({
    method: 'post',
    path: '/v1/exports',
    operationId: 'createExport',
    summary: 'Export a list (issues, patterns, predictions) with its filters as CSV or XLSX',
    description: "Rows in the list's default order. Needs exports:read and the read scope of the resource.",
    tags: ['exports'],
    scope: 'exports:read',
    body: exportBody,
    responses: { 202: { description: 'Queued', schema: z.object({ id: z.string(), status: z.literal('queued'), job_id: z.string() }) } },
    handler: async ({ body, principal, app }) => {
      const needed = readScope[body.resource];
      if (!principal.scopes.has(needed)) throw new AppError('forbidden', `Exporting ${body.resource} requires the scope ${needed}`, { required_scope: needed });
      const { id, jobId } = await startExport(app, principal.workspaceId, {
        resource: body.resource,
        format: body.format,
        filters: (body.filters ?? {}) as Record<string, unknown>,
      });
      return reply.accepted({ id, status: 'queued' as const, job_id: jobId });
    },
  }),
  platformRoute({
    method: 'get',
    path: '/v1/exports/{id}',
    operationId: 'getExport',
    summary: 'An export: status, and once done a signed, expiring download URL',
    tags: ['exports'],
    scope: 'exports:read',
    params: z.object({ id: z.string() }),
    responses: { 200: { description: 'The export', schema: exportSchema }, 404: { description: 'Not found' } },
    handler: async ({ params, principal, app, req }) => {
      const found = await findExport(app.pool, principal.workspaceId, params.id);
      if (!found) throw new AppError('not_found', 'Export not found');
      return reply.ok(toExport(app, req, found));
    },
  }),
  platformRoute({
    method: 'get',
    path: '/v1/exports/{id}/download',
    operationId: 'downloadExport',
    summary: 'The export file, through the signed URL of GET /v1/exports/{id} (no bearer token)',
    tags: ['exports'],
    auth: 'public',
    params: z.object({ id: z.string() }),
    query: z.object({ expires: z.string().regex(/^\d{1,12}$/, 'must be a unix time'), signature: z.string().min(1).max(200) }),
    responses: {
      200: {
        description: 'The file: text/csv; charset=utf-8 (CSV) or application/vnd.openxmlformats-officedocument.spreadsheetml.sheet (XLSX)',
        contentType: 'application/octet-stream',
      },
      403: { description: 'Invalid or expired signature' },
      404: { description: 'The export no longer exists' },
    },
    handler: async ({ params, query, app, res }) => {
      const expires = Number(query.expires);
      const valid = ringVerifies(app.secrets.exportUrlKey, query.signature, (key) => signatureWith(key, params.id, expires));
      if (!valid || expires * 1000 <= app.clock.now().getTime())
        throw new AppError('forbidden', 'The download link is invalid or has expired; get a new one from GET /v1/exports/{id}');
      const found = await findExport(app.pool, null, params.id);
      if (!found || !found.finished_at || !found.expires_at || found.expires_at <= app.clock.now())
        throw new AppError('not_found', 'Export not found (it may have expired and been purged)');
      res.status(200);
      res.setHeader('Content-Type', contentTypes[found.format]);
      res.setHeader('Content-Length', String(found.bytes));
      res.setHeader('Content-Disposition', `attachment; filename="${found.resource}-${found.id}.${found.format}"`);
      res.setHeader('Cache-Control', 'private, no-store');
      for await (const chunk of exportChunks(app.pool, found.id)) {
        if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve));
      }
      res.end();
    },
  }),
];
