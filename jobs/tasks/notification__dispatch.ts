/**
 * Cron, every minute: sends the e-mail and chat deliveries whose time has come (quiet hours over,
 * or the member's daily / weekly digest time reached: one digest e-mail per member).
 */
import { z } from 'zod';
import { dispatchDueDeliveries } from '../../usecases/notifications/deliver.ts';
import { defineTask } from '../runtime.ts';

export const notificationDispatchTask = defineTask({
  name: 'notification__dispatch',
  payload: z.object({}).loose(),
  maxAttempts: 3,
  async run(_payload, job) {
    return { dispatched: await dispatchDueDeliveries(job.app) };
  },
});
