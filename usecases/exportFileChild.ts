/**
 * The export child of `export__generate` (started by jobs/tasks/export__generate.ts through
 * lib/exportProcess.ts): the whole of sql/exports.ts writeExport in one transaction on its own
 * connection (cursor, file written as it goes, 1 MiB chunks), progress in rows sent to the job. A
 * failed or killed attempt rolls back with its connection, so it leaves no chunk behind.
 */
import { withTransaction } from '../lib/db.ts';
import { serveExportProcess } from '../lib/exportProcess.ts';
import { writeExport, type ExportFormat, type ExportResource } from '../sql/exports.ts';

export interface FileExportInput {
  id: string;
  workspaceId: string;
  resource: ExportResource;
  format: ExportFormat;
  filters: Record<string, unknown>;
  ttlHours: number;
}

export type FileExportResult = { rows: number; bytes: number };

serveExportProcess<FileExportInput, FileExportResult>(async (e, { pool, progress, signal }) =>
  withTransaction(pool, (client) => writeExport(client, e, async (rows) => progress(rows), signal)),
);
