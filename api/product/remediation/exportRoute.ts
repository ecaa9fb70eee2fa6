/**
 * GET /remediation/export.xlsx (`exports.create`): the workspace's CAPs, reviews and whole audit log
 * as one spreadsheet, streamed. The workbook is written by a child process of its own
 * (usecases/remediation/exportWorkbookChild.ts through lib/exportProcess.ts: memory-tight V8 options, and the XML and
 * deflate off this event loop) in a read-only REPEATABLE READ transaction on its own connection (one
 * snapshot for the three sheets); its output pipe is forwarded into the response with backpressure.
 * The headers go out with the child's first bytes, so a failure before them (connection, transaction,
 * cursors) answers in the product error shape; one after them cuts the download short (the response
 * ends only when the child reported success: never a file that looks complete). A
 * reader that goes away kills the child, which releases its transaction and connection at once.
 */
import { z } from 'zod';
import { exportDatabase, runExportProcess } from '../../../lib/exportProcess.ts';
import { productRoute } from '../route.ts';
import type { WorkbookExportInput } from '../../../usecases/remediation/exportWorkbookChild.ts';
import { XLSX_MEDIA_TYPE } from '../../../usecases/remediation/exportWorkbook.ts';
import { moduleUrl } from '../../../lib/modulePath.ts';

const CHILD = moduleUrl('../../../usecases/remediation/exportWorkbookChild', import.meta.url);

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
    const gone = new AbortController();
    const onClose = () => {
      if (!res.writableFinished) gone.abort(new Error('the client closed the connection during the export'));
    };
    res.on('close', onClose);
    try {
      const rows = await runExportProcess<Record<string, number>>({
        entry: CHILD,
        input: { schema: tenant.schema } satisfies WorkbookExportInput,
        database: exportDatabase(app),
        logger: app.logger.child({ route: 'export_remediation', tenant: tenant.slug }),
        signal: gone.signal,
        onOutput: (output) => {
          res.status(200);
          res.setHeader('content-type', XLSX_MEDIA_TYPE);
          res.setHeader('content-disposition', `attachment; filename="${exportFileName(tenant.slug, app.clock.now())}"`);
          res.setHeader('cache-control', 'no-store');
          // The response ends only once the child has reported success (below), not at the pipe's end.
          output.pipe(res, { end: false });
        },
      });
      res.end();
      app.logger.info('remediation export sent', { tenant: tenant.slug, rows });
    } catch (err) {
      if (!gone.signal.aborted) throw err;
      app.logger.info('remediation export aborted by the client', { tenant: tenant.slug, path: req.path });
    } finally {
      res.off('close', onClose);
    }
  },
});
