/** Hourly (cron) clean-up of expired rows (sql/maintenance.ts). */
import { z } from 'zod';
import { defineTask } from '../runtime.ts';
import { purgeExpired } from '../../sql/maintenance.ts';

export const maintenancePurgeExpiredTask = defineTask({
  name: 'maintenance__purge_expired',
  payload: z.object({}).loose(),
  maxAttempts: 3,
  run: async (_payload, job) => purgeExpired(job.app.pool),
});
