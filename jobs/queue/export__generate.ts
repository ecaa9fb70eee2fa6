/**
 * An export file's generation (jobs/tasks/export__generate.ts).
 */
import { z } from 'zod';
import { exportFormats, exportResources } from '../../sql/exports.ts';
import { defineJob } from '../runtime.ts';

export const exportGenerate = defineJob({
  name: 'export__generate',
  payload: z.object({ export_id: z.uuid(), workspace_id: z.uuid(), resource: z.enum(exportResources), format: z.enum(exportFormats) }),
  maxAttempts: 3,
});
