/**
 * Every minute: wakes the delivery task of any enabled webhook whose deliveries have been due for
 * more than a minute, which happens only when no job is coming for them (a worker died holding the
 * webhook's job, whose lock graphile-worker keeps for hours). With this, a delivery outlives any
 * crash: its lease expires and this sweep, at the latest, sends it.
 */
import { z } from 'zod';
import { wakeStaleWebhooks } from '../../sql/webhookDeliveries.ts';
import { defineTask } from '../runtime.ts';

export const STALE_DELIVERY_MS = 60_000;

export const webhookSweepTask = defineTask({
  name: 'webhook__sweep',
  untracked: true,
  payload: z.object({}).loose(),
  async run(_payload, job) {
    const woken = await wakeStaleWebhooks(job.app.pool, STALE_DELIVERY_MS);
    if (woken) job.app.logger.info('woke webhooks with stale deliveries', { webhooks: woken });
  },
});
