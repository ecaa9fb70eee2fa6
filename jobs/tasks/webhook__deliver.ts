/** Sends a webhook's due deliveries (usecases/deliverWebhook.ts); untracked: the deliveries are the durable record. */
import { z } from 'zod';
import { WEBHOOK_DELIVER_TASK } from '../../sql/outboundEvents.ts';
import { deliverWebhook } from '../../usecases/deliverWebhook.ts';
import { defineTask } from '../runtime.ts';

export const webhookDeliverTask = defineTask({
  name: WEBHOOK_DELIVER_TASK,
  untracked: true,
  payload: z.object({ webhook_id: z.uuid() }),
  run: ({ webhook_id }, job) => deliverWebhook(job.app, webhook_id, job.signal),
});
