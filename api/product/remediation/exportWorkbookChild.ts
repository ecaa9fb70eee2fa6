/**
 * The export child of GET /remediation/export.xlsx (started by exportRoute.ts through
 * lib/exportProcess.ts): in a read-only REPEATABLE READ transaction on the tenant's schema (one
 * snapshot for the three sheets), it streams the workbook into the pipe the route forwards to the
 * reader. Backpressure runs the whole way: a reader that stops fills the response, the pipe, then the
 * zip, and the cursor waits. The route kills this process when the reader goes away, which closes the
 * connection and so ends the transaction and its cursors.
 */
import { serveExportProcess } from '../../../lib/exportProcess.ts';
import { useTenantSchema } from '../../../sql/tenantSchema.ts';
import { writeRemediationWorkbook } from './exportWorkbook.ts';

export interface WorkbookExportInput {
  schema: string;
}

serveExportProcess<WorkbookExportInput, Record<string, number>>(async ({ schema }, { pool, output, signal }) => {
  const client = await pool.connect();
  try {
    await client.query('begin isolation level repeatable read read only');
    await useTenantSchema(client, schema);
    const rows = await writeRemediationWorkbook(client, output, signal);
    await client.query('commit');
    return rows;
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
});
