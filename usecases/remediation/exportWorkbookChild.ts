/**
 * The export child of GET /remediation/export.xlsx (started by api/product/remediation/exportRoute.ts through
 * lib/exportProcess.ts): in a read-only REPEATABLE READ transaction on the tenant's schema (one
 * snapshot for the three sheets), it streams the workbook into the pipe the route forwards to the
 * reader. Backpressure runs the whole way: a reader that stops fills the response, the pipe, then the
 * zip, and the cursor waits. The route kills this process when the reader goes away, which closes the
 * connection and so ends the transaction and its cursors.
 */
import { withTransaction } from '../../lib/db.ts';
import { serveExportProcess } from '../../lib/exportProcess.ts';
import { useTenantSchema } from '../../sql/tenant/schema.ts';
import { writeRemediationWorkbook } from './exportWorkbook.ts';

export interface WorkbookExportInput {
  schema: string;
}

serveExportProcess<WorkbookExportInput, Record<string, number>>(({ schema }, { pool, output, signal }) =>
  withTransaction(
    pool,
    async (client) => {
      await useTenantSchema(client, schema);
      return writeRemediationWorkbook(client, output, signal);
    },
    'begin isolation level repeatable read read only',
  ),
);
