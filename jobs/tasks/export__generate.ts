/**
 * Generates an export file: one transaction holds the cursor over the list's rows and the file's
 * chunks (sql/exports.ts), so a failed attempt leaves nothing behind and a retry starts over.
 * Progress is the share of rows written.
 */
import { z } from 'zod';
import { withTransaction } from '../../lib/db.ts';
import { exportDefinitions, exportFormats, exportResources, findExport, writeExport } from '../../sql/exports.ts';
import { filteredTotal } from '../../sql/pagination.ts';
import { defineTask, PermanentJobError } from '../runtime.ts';

export const exportGenerate = defineTask({
  name: 'export__generate',
  payload: z.object({ export_id: z.uuid(), workspace_id: z.uuid(), resource: z.enum(exportResources), format: z.enum(exportFormats) }),
  maxAttempts: 3,
  async run({ export_id, workspace_id }, job) {
    const found = await findExport(job.app.pool, workspace_id, export_id);
    if (!found) throw new PermanentJobError(`export ${export_id} not found`);
    const def = exportDefinitions[found.resource];
    const { where, params } = def.filterSql(workspace_id, found.filters);
    const estimate = Math.max(1, await filteredTotal(job.app.pool, def.from, where, params));
    const written = await withTransaction(job.app.pool, (client) =>
      writeExport(
        client,
        {
          id: export_id,
          workspaceId: workspace_id,
          resource: found.resource,
          format: found.format,
          filters: found.filters,
          ttlHours: job.app.config.EXPORT_TTL_HOURS,
        },
        (rows) => job.progress(Math.min(99, (rows / estimate) * 100)),
        job.signal,
      ),
    );
    return { export_id, ...written };
  },
});
