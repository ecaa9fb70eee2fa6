/**
 * Generates an export file in a child process of its own (usecases/exportFileChild.ts, started through
 * lib/exportProcess.ts with memory-tight V8 options that the engine sharing this runner must not
 * get): there one transaction holds the cursor over the list's rows and the file's chunks
 * (sql/exports.ts), so a failed attempt leaves nothing behind and a retry starts over. Progress is the
 * share of rows written. A worker shutdown kills the child (its transaction rolls back); a child that
 * dies fails the attempt, which the runtime retries.
 */
import { exportDatabase, runExportProcess } from '../../lib/exportProcess.ts';
import { exportDefinitions, findExport } from '../../sql/exports.ts';
import { filteredTotal } from '../../sql/pagination.ts';
import type { FileExportInput, FileExportResult } from '../../usecases/exportFileChild.ts';
import { defineTask, PermanentJobError } from '../runtime.ts';
import { exportGenerate } from '../queue/export__generate.ts';
import { moduleUrl } from '../../lib/modulePath.ts';

const CHILD = moduleUrl('../../usecases/exportFileChild', import.meta.url);

export const exportGenerateTask = defineTask({
  ...exportGenerate,
  async run({ export_id, workspace_id }, job) {
    const found = await findExport(job.app.pool, workspace_id, export_id);
    if (!found) throw new PermanentJobError(`export ${export_id} not found`);
    const def = exportDefinitions[found.resource];
    const { where, params } = def.filterSql(workspace_id, found.filters);
    const estimate = Math.max(1, await filteredTotal(job.app.pool, def.from, where, params));
    const written = await runExportProcess<FileExportResult>({
      entry: CHILD,
      input: {
        id: export_id,
        workspaceId: workspace_id,
        resource: found.resource,
        format: found.format,
        filters: found.filters,
        ttlHours: job.app.config.EXPORT_TTL_HOURS,
      } satisfies FileExportInput,
      database: exportDatabase(job.app),
      logger: job.app.logger.child({ task: 'export__generate', export_id }),
      signal: job.signal,
      onProgress: (rows) => job.progress(Math.min(99, ((rows as number) / estimate) * 100)),
    });
    return { export_id, ...written };
  },
});
