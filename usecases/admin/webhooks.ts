/**
 * Outbound webhooks: registering one (its URL through the SSRF guard; the signing secret is
 * returned once and stored sealed; a connector of kind webhook gets at most one, whose secret also
 * verifies its inbound payloads), changing one (enabling it again resumes its queued deliveries),
 * rotating its secret, and sending one delivery again now. Registration and rotation go out as
 * outbound events in the same transaction.
 */
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../lib/context.ts';
import { withTransaction } from '../../lib/db.ts';
import { AppError } from '../../lib/errors.ts';
import { policyOf } from '../../lib/outbound/appPolicy.ts';
import { checkOutboundUrl, OutboundRefusedError, SECRET_PREFIX } from '../../lib/outbound/index.ts';
import { sealSecret } from '../../lib/secretBox.ts';
import { findConnector } from '../../sql/connectors.ts';
import { recordOutboundEvent, type OutboundEventType } from '../../sql/outboundEvents.ts';
import { findDelivery, requeueDelivery, wakeWebhookAt, type DeliveryRow } from '../../sql/webhookDeliveries.ts';
import * as webhooks from '../../sql/webhooks.ts';

export const webhookNotFound = () => new AppError('not_found', 'Webhook not found');
const newSecret = () => SECRET_PREFIX + randomBytes(32).toString('base64');
const invalid = (details: Record<string, string>) => new AppError('validation_error', 'Request validation failed', details);

/** A URL through the SSRF guard: refused ones are 400 with the reason under `details.url`. */
async function guardedUrl(app: AppContext, url: string): Promise<string> {
  try {
    return (await checkOutboundUrl(policyOf(app), url)).toString();
  } catch (err) {
    if (err instanceof OutboundRefusedError) throw invalid({ url: err.message });
    throw err;
  }
}

export async function registerWebhook(
  app: AppContext,
  workspaceId: string,
  input: { url: string; eventTypes: OutboundEventType[]; description: string; connectorId: string | null },
): Promise<{ row: webhooks.WebhookRow; secret: string }> {
  const url = await guardedUrl(app, input.url);
  const secret = newSecret();
  return withTransaction(app.pool, async (client) => {
    if (input.connectorId !== null) {
      const connector = await findConnector(client, workspaceId, input.connectorId, { lock: true });
      if (!connector) throw invalid({ connector_id: 'is not a connector of this workspace' });
      if (connector.kind !== 'webhook') throw invalid({ connector_id: `is a connector of kind ${connector.kind}; inbound webhooks need kind webhook` });
      if (await webhooks.findWebhookOfConnector(client, connector.id)) {
        throw new AppError('conflict', 'This connector already has a webhook; rotate its secret instead', { connector_id: connector.id });
      }
    }
    const row = await webhooks.insertWebhook(client, workspaceId, {
      url,
      eventTypes: input.eventTypes,
      description: input.description,
      connectorId: input.connectorId,
      secretCiphertext: sealSecret(app.secrets.webhookKey, secret),
    });
    await recordOutboundEvent(client, workspaceId, 'webhook.created', { webhook_id: row.id, url: row.url, event_types: row.event_types });
    return { row, secret };
  });
}

export async function updateWebhook(
  app: AppContext,
  workspaceId: string,
  id: string,
  changes: { url?: string; eventTypes?: OutboundEventType[]; enabled?: boolean; description?: string },
): Promise<webhooks.WebhookRow> {
  const url = changes.url === undefined ? undefined : await guardedUrl(app, changes.url);
  return withTransaction(app.pool, async (client) => {
    const row = await webhooks.updateWebhook(client, workspaceId, id, { ...changes, url });
    if (!row) throw webhookNotFound();
    if (changes.enabled) await wakeWebhookAt(client, row.id, new Date());
    return row;
  });
}

/** The old secret stops working at once, outbound and inbound. */
export async function rotateWebhookSecret(app: AppContext, workspaceId: string, id: string): Promise<{ secret: string; rotatedAt: Date }> {
  const secret = newSecret();
  return withTransaction(app.pool, async (client) => {
    const row = await webhooks.rotateWebhookSecret(client, workspaceId, id, sealSecret(app.secrets.webhookKey, secret));
    if (!row) throw webhookNotFound();
    const rotatedAt = row.secret_rotated_at!;
    await recordOutboundEvent(client, workspaceId, 'webhook.secret.rotated', { webhook_id: row.id, rotated_at: rotatedAt.toISOString() });
    return { secret, rotatedAt };
  });
}

/** Same event id, a new attempt now; 409 while it is being attempted or when the webhook is disabled. */
export async function redeliverWebhookDelivery(app: AppContext, workspaceId: string, webhookId: string, deliveryId: string): Promise<DeliveryRow> {
  return withTransaction(app.pool, async (client) => {
    const webhook = await webhooks.findWebhook(client, workspaceId, webhookId);
    if (!webhook || !(await findDelivery(client, workspaceId, webhook.id, deliveryId))) throw new AppError('not_found', 'Delivery not found');
    if (!webhook.enabled) throw new AppError('conflict', 'The webhook is disabled; enable it first');
    const row = await requeueDelivery(client, workspaceId, webhook.id, deliveryId);
    if (!row) throw new AppError('conflict', 'The delivery is being attempted right now');
    await wakeWebhookAt(client, webhook.id, new Date());
    return row;
  });
}
