/**
 * GET /remediation/export.xlsx (`exports.create`): the workspace's CAPs, reviews and whole audit log
 * as one spreadsheet, streamed. It holds one pooled connection for the download, in a read-only
 * REPEATABLE READ transaction (one snapshot for the three sheets) whose cursors feed the writer. A
 * reader that goes away aborts it: the transaction is rolled back (closing the cursors) and the
 * connection goes back to the pool at once.
 */
import { z } from 'zod';
import { useTenantSchema } from '../../../sql/tenantSchema.ts';
import { productRoute } from '../route.ts';
import { writeRemediationWorkbook, XLSX_MEDIA_TYPE } from './exportWorkbook.ts';

/** `remediation-<slug>-<YYYY-MM-DD>.xlsx` (the slug is [a-z0-9-], so no quoting issue). */
export const exportFileName = (slug: string, now: Date) => `remediation-${slug}-${now.toISOString().slice(0, 10)}.xlsx`;

export const exportRoute = productRoute({
  method: 'get',
  path: '/remediation/export.xlsx',
  operationId: 'export_remediation',
  summary: 'Download CAPs, reviews and the whole audit log as a spreadsheet (streamed)',
  description:
    'Sheets `CAPs`, `Reviews` and `Audit log` (oldest first), read from one database snapshot. Timestamps are ISO 8601 ' +
    'UTC text; audit metadata is JSON text.',
  tags: ['remediation'],
  auth: 'tenant',
  permission: 'exports.create',
  responses: { 200: { description: 'The workbook (attachment)', contentType: XLSX_MEDIA_TYPE, schema: z.string().meta({ format: 'binary' }) } },
  handler: async ({ app, req, res, tenant }) => {
    const client = await app.pool.connect();
    const gone = new AbortController();
    const onClose = () => {
      if (!res.writableFinished) gone.abort(new Error('the client closed the connection during the export'));
    };
    res.on('close', onClose);
    let broken: unknown;
    try {
      await client.query('begin isolation level repeatable read read only');
      await useTenantSchema(client, tenant.schema);
      res.status(200);
      res.setHeader('content-type', XLSX_MEDIA_TYPE);
      res.setHeader('content-disposition', `attachment; filename="${exportFileName(tenant.slug, app.clock.now())}"`);
      res.setHeader('cache-control', 'no-store');
      const rows = await writeRemediationWorkbook(client, res, gone.signal);
      await client.query('commit');
      app.logger.info('remediation export sent', { tenant: tenant.slug, rows });
    } catch (err) {
      await client.query('rollback').catch((e: Error) => (broken = e));
      if (!gone.signal.aborted) throw err;
      app.logger.info('remediation export aborted by the client', { tenant: tenant.slug, path: req.path });
    } finally {
      res.off('close', onClose);
      // A connection whose rollback failed is not reused.
      client.release(broken as Error | undefined);
    }
  },
});
