/**
 * Sends a webhook's due deliveries (woken by the fan-out, by its own retry schedule and by the
 * sweeper). In batches: lease the due rows, POST them concurrently through the SSRF guard with the
 * signature headers, record every attempt in one statement. Then:
 * - 2xx: succeeded; 410: failed and the endpoint is disabled (`webhook.disabled`); a refused target:
 *   failed; anything else: queued again after `Retry-After` when the receiver sent one, else the next
 *   step of the schedule (lib/outbound/retrySchedule.ts), failed when the schedule is exhausted;
 * - an endpoint failing without a single success for WEBHOOK_FAILING_DISABLE_MS is disabled with
 *   a `webhook.disabled` event;
 * - finally the task wakes itself for the next due delivery (a retry, or a lease left by a dead worker).
 * Untracked (no job_runs row): the deliveries are the durable record.
 */
import type { AppContext } from '../lib/context.ts';
import { withTransaction } from '../lib/db.ts';
import { postSigned, retryDelayMs, type OutboundResult } from '../lib/outbound/index.ts';
import { policyOf } from '../lib/outbound/appPolicy.ts';
import { openSecret } from '../lib/secretBox.ts';
import { recordOutboundEvent } from '../sql/outboundEvents.ts';
import {
  deliveryBody,
  leaseDueDeliveries,
  nextDueAt,
  recordAttempts,
  recordEndpointHealth,
  wakeWebhookAt,
  type AttemptOutcome,
  type DueDelivery,
} from '../sql/webhookDeliveries.ts';
import { disableWebhook, findWebhookById, type WebhookRow } from '../sql/webhooks.ts';

/** Deliveries leased per batch, and posted at once. */
export const DELIVERY_BATCH = 100;
export const DELIVERY_CONCURRENCY = 16;
/** A lease outlives the longest batch (timeouts 5 s + 10 s per request); scaled with the schedule. */
const LEASE_MS = 120_000;
/** Svix's rule: an endpoint failing for 5 days without a success is disabled. */
export const WEBHOOK_FAILING_DISABLE_MS = 5 * 24 * 3600_000;
/** The longest `Retry-After` honoured (a day); longer asks are capped. */
const MAX_RETRY_AFTER_MS = 24 * 3600_000;
/** A run hands over to a fresh job after this long, so one busy endpoint does not hold a worker slot. */
const RUN_BUDGET_MS = 10_000;

async function mapConcurrently<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

function outcomeOf(d: DueDelivery, r: OutboundResult, scale: number): AttemptOutcome {
  const base = { id: d.id, attempt: d.attempts, status_code: r.statusCode, duration_ms: r.durationMs, error: r.error, response_preview: r.responsePreview };
  if (r.ok) return { ...base, status: 'succeeded', next_attempt_at: null };
  if (r.refused || r.statusCode === 410) return { ...base, status: 'failed', next_attempt_at: null };
  const delay = retryDelayMs(d.attempts, scale);
  if (delay === null) return { ...base, status: 'failed', next_attempt_at: null };
  const wait = r.retryAfterMs !== null ? Math.min(r.retryAfterMs, MAX_RETRY_AFTER_MS) : delay;
  return { ...base, status: 'queued', next_attempt_at: new Date(Date.now() + wait).toISOString() };
}

async function disableWithEvent(app: AppContext, webhook: WebhookRow, reason: string): Promise<void> {
  await withTransaction(app.pool, async (client) => {
    const disabled = await disableWebhook(client, webhook.id, reason);
    if (disabled)
      await recordOutboundEvent(client, webhook.workspace_id, 'webhook.disabled', {
        webhook_id: webhook.id,
        url: webhook.url,
        reason,
        failing_since: disabled.failing_since?.toISOString() ?? null,
      });
  });
  app.logger.warn('webhook disabled', { webhook_id: webhook.id, reason });
}

/** The webhook__deliver job (untracked: the deliveries are the durable record); stops early when `signal` aborts. */
export async function deliverWebhook(app: AppContext, webhookId: string, signal: AbortSignal): Promise<void> {
  const scale = app.config.WEBHOOK_RETRY_SCALE;
  const leaseMs = Math.max(1_000, Math.round(LEASE_MS * scale));
  const policy = policyOf(app);
  const started = Date.now();
  for (;;) {
    // Read each batch: a rotation, a URL change or a disable applies from the next batch on.
    const webhook = await findWebhookById(app.pool, webhookId);
    if (!webhook?.enabled) return; // re-enabling wakes the task again
    const due = await leaseDueDeliveries(app.pool, webhookId, DELIVERY_BATCH, leaseMs);
    if (!due.length) break;
    const secret = openSecret(app.secrets.webhookKey, webhook.secret_ciphertext);
    const outcomes = await mapConcurrently(due, DELIVERY_CONCURRENCY, async (d) =>
      outcomeOf(d, await postSigned(policy, { url: webhook.url, body: deliveryBody(d), secret, messageId: d.event_id }), scale),
    );
    await recordAttempts(app.pool, webhook.workspace_id, outcomes);
    if (outcomes.some((o) => o.status_code === 410)) {
      await disableWithEvent(app, webhook, 'the endpoint answered 410 Gone');
      return;
    }
    const failingSince = await recordEndpointHealth(
      app.pool,
      webhook,
      outcomes.some((o) => o.status === 'succeeded'),
    );
    if (failingSince && Date.now() - failingSince.getTime() >= WEBHOOK_FAILING_DISABLE_MS * scale) {
      await disableWithEvent(app, webhook, `every delivery has failed since ${failingSince.toISOString()}`);
      return;
    }
    if (signal.aborted || Date.now() - started > RUN_BUDGET_MS) break;
  }
  const next = await nextDueAt(app.pool, webhookId);
  if (next) await wakeWebhookAt(app.pool, webhookId, next);
}
