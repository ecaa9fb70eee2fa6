/**
 * POST /v1/exports: records an export of a list (with its filters) and queues the job that writes the
 * file, in one transaction. Authorizing the resource's read scope is the caller's.
 */
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../lib/context.ts';
import { withTransaction } from '../lib/db.ts';
import { enqueueJob } from '../jobs/runtime.ts';
import { exportGenerate } from '../jobs/queue/export__generate.ts';
import { insertExport, setExportJobRun, type ExportFormat, type ExportResource } from '../sql/exports.ts';

export async function startExport(
  app: AppContext,
  workspaceId: string,
  request: { resource: ExportResource; format: ExportFormat; filters: Record<string, unknown> },
): Promise<{ id: string; jobId: string }> {
  const id = randomUUID();
  return withTransaction(app.pool, async (client) => {
    await insertExport(client, { id, workspaceId, ...request });
    const { job } = await enqueueJob(
      client,
      exportGenerate,
      { export_id: id, workspace_id: workspaceId, resource: request.resource, format: request.format },
      { workspaceId },
    );
    await setExportJobRun(client, id, job.id);
    return { id, jobId: job.id };
  });
}
