/**
 * Webhooks (platform-api.md "Webhooks"): `webhooks:read` for GET, `webhooks:admin` for the rest.
 * The signing secret (`whsec_` + 32 random bytes, base64) is shown at creation and rotation only and
 * stored sealed under the webhook secret key. A URL must pass the SSRF guard when it is stored (and
 * again at every connection). Registering and rotating are outbound events themselves.
 */
import { z } from 'zod';
import { outboundEventTypes } from '../../../sql/outboundEvents.ts';
import { deliveryBody, deliveryList, type DeliveryRow } from '../../../sql/webhookDeliveries.ts';
import * as webhooks from '../../../sql/webhooks.ts';
import { redeliverWebhookDelivery, registerWebhook, rotateWebhookSecret, updateWebhook, webhookNotFound } from '../../../usecases/admin/webhooks.ts';
import { reply } from '../../http/routes.ts';
import { listQuery, listResponse, paginate } from '../pagination.ts';
import { platformRoute } from '../route.ts';

const webhookSchema = z.object({
  id: z.string(),
  url: z.string(),
  event_types: z.array(z.string()).describe('Empty: every event type'),
  enabled: z.boolean(),
  description: z.string(),
  connector_id: z.string().nullable(),
  created_at: z.string(),
  disabled_reason: z.string().nullable().describe('Why the service disabled it (410 Gone, failing for days) or that a user did'),
});
const createdWebhookSchema = webhookSchema.extend({ signing_secret: z.string().describe('Shown only here and after rotation') });
const deliverySchema = z.object({
  id: z.string(),
  event_type: z.string(),
  status_code: z.number().int().nullable().describe('HTTP status of the last attempt; null before the first answer'),
  delivered_at: z.string().nullable().describe('Time of the last attempt'),
  duration_ms: z.number().int().nullable(),
  payload_preview: z.string().describe('The first 200 bytes of the body'),
  status: z.enum(['queued', 'running', 'succeeded', 'failed', 'cancelled']),
  attempts: z.number().int(),
  next_attempt_at: z.string().nullable().describe('When a queued delivery is tried next'),
  error: z.string().nullable(),
  event_id: z.string().describe('The body id and webhook-id header: stable across attempts'),
});

const toWebhook = (row: webhooks.WebhookRow) => ({
  id: row.id,
  url: row.url,
  event_types: row.event_types,
  enabled: row.enabled,
  description: row.description,
  connector_id: row.connector_id,
  created_at: row.created_at.toISOString(),
  disabled_reason: row.disabled_reason,
});

/** The first `bytes` bytes of a UTF-8 string, never cutting a character in two. */
export function previewBytes(text: string, bytes = 200): string {
  const buf = Buffer.from(text);
  if (buf.length <= bytes) return text;
  let end = bytes;
  while (end > 0 && (buf[end] & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString('utf8');
}

type DeliveryListRow = DeliveryRow & { event_created_at: Date; event_payload: Record<string, unknown> };
const toDelivery = (row: DeliveryListRow) => ({
  id: row.id,
  event_type: row.event_type,
  status_code: row.status_code,
  delivered_at: row.delivered_at?.toISOString() ?? null,
  duration_ms: row.duration_ms,
  payload_preview: previewBytes(deliveryBody({ ...row, event_created_at: row.event_created_at, event_payload: row.event_payload })),
  status: row.status,
  attempts: row.attempts,
  next_attempt_at: row.status === 'queued' ? row.next_attempt_at.toISOString() : null,
  error: row.last_error,
  event_id: row.event_id,
});

const eventTypesInput = z
  .array(z.enum(outboundEventTypes, { error: `is not an event type (one of ${outboundEventTypes.join(', ')})` }))
  .max(outboundEventTypes.length)
  .transform((types) => [...new Set(types)]);
const urlInput = z.string({ error: 'is required' }).trim().min(1, 'must not be empty').max(2048, 'must be at most 2048 characters');
const descriptionInput = z.string().max(500, 'must be at most 500 characters');

const idParams = z.object({ id: z.string() });

export const webhookRoutes = [
  platformRoute({
    method: 'post',
    path: '/v1/webhooks',
    operationId: 'createWebhook',
    summary: 'Register a webhook (the signing secret is returned once)',
    description:
      'Deliveries are POSTed with the body `{id, type, created_at, workspace_id, data}` and the headers `x-svc-signature` ' +
      '(hex HMAC-SHA256 of the body keyed with the secret), `webhook-id`, `webhook-timestamp`, `webhook-signature` (Standard Webhooks). ' +
      'Loopback, private and link-local targets are refused unless OUTBOUND_ALLOWLIST permits them.',
    tags: ['webhooks'],
    scope: 'webhooks:admin',
    body: z.object({
      url: urlInput,
      event_types: eventTypesInput.optional(),
      description: descriptionInput.optional(),
      connector_id: z.string().optional().describe("A connector of kind webhook: this webhook's secret verifies its inbound payloads"),
    }),
    responses: { 201: { description: 'Created', schema: createdWebhookSchema }, 409: { description: 'The connector already has a webhook (`conflict`)' } },
    handler: async ({ body, principal, app }) => {
      const { row, secret } = await registerWebhook(app, principal.workspaceId, {
        url: body.url,
        eventTypes: body.event_types ?? [],
        description: body.description ?? '',
        connectorId: body.connector_id ?? null,
      });
      return reply.created({ ...toWebhook(row), signing_secret: secret });
    },
  }),
  platformRoute({
    method: 'get',
    path: '/v1/webhooks',
    operationId: 'listWebhooks',
    summary: 'List webhooks',
    tags: ['webhooks'],
    scope: 'webhooks:read',
    query: listQuery({}, ['created_at'], '-created_at'),
    responses: { 200: { description: 'A page of webhooks (never their secrets)', schema: listResponse(webhookSchema) } },
    handler: async ({ query, principal, app }) =>
      reply.ok(
        await paginate(app.pool, webhooks.webhookList(principal.workspaceId), { query, cursorKey: app.secrets.cursorKey }, (row) =>
          toWebhook(row as webhooks.WebhookRow),
        ),
      ),
  }),
  platformRoute({
    method: 'get',
    path: '/v1/webhooks/{id}',
    operationId: 'getWebhook',
    summary: 'Get a webhook',
    tags: ['webhooks'],
    scope: 'webhooks:read',
    params: idParams,
    responses: { 200: { description: 'The webhook', schema: webhookSchema }, 404: { description: 'Not found' } },
    handler: async ({ params, principal, app }) => {
      const row = await webhooks.findWebhook(app.pool, principal.workspaceId, params.id);
      if (!row) throw webhookNotFound();
      return reply.ok(toWebhook(row));
    },
  }),
  platformRoute({
    method: 'patch',
    path: '/v1/webhooks/{id}',
    operationId: 'updateWebhook',
    summary: 'Change a webhook (enabling it again resumes its queued deliveries)',
    tags: ['webhooks'],
    scope: 'webhooks:admin',
    params: idParams,
    body: z.object({
      url: urlInput.optional(),
      event_types: eventTypesInput.optional(),
      enabled: z.boolean({ error: 'must be true or false' }).optional(),
      description: descriptionInput.optional(),
    }),
    responses: { 200: { description: 'The updated webhook', schema: webhookSchema }, 404: { description: 'Not found' } },
    handler: async ({ params, body, principal, app }) =>
      reply.ok(
        toWebhook(
          await updateWebhook(app, principal.workspaceId, params.id, {
            url: body.url,
            eventTypes: body.event_types,
            enabled: body.enabled,
            description: body.description,
          }),
        ),
      ),
  }),
  platformRoute({
    method: 'delete',
    path: '/v1/webhooks/{id}',
    operationId: 'deleteWebhook',
    summary: 'Delete a webhook and its delivery records',
    tags: ['webhooks'],
    scope: 'webhooks:admin',
    params: idParams,
    responses: { 204: { description: 'Deleted' }, 404: { description: 'Not found' } },
    handler: async ({ params, principal, app }) => {
      if (!(await webhooks.deleteWebhook(app.pool, principal.workspaceId, params.id))) throw webhookNotFound();
      return reply.noContent();
    },
  }),
  platformRoute({
    method: 'post',
    path: '/v1/webhooks/{id}/rotate',
    operationId: 'rotateWebhookSecret',
    summary: 'Rotate the signing secret (the old one stops working at once, outbound and inbound)',
    tags: ['webhooks'],
    scope: 'webhooks:admin',
    params: idParams,
    responses: {
      200: { description: 'The new secret', schema: z.object({ signing_secret: z.string(), rotated_at: z.string() }) },
      404: { description: 'Not found' },
    },
    handler: async ({ params, principal, app }) => {
      const { secret, rotatedAt } = await rotateWebhookSecret(app, principal.workspaceId, params.id);
      return reply.ok({ signing_secret: secret, rotated_at: rotatedAt.toISOString() });
    },
  }),
  platformRoute({
    method: 'get',
    readsFrom: 'replica',
    path: '/v1/webhooks/{id}/deliveries',
    operationId: 'listWebhookDeliveries',
    summary: "A webhook's delivery records, newest first",
    tags: ['webhooks'],
    scope: 'webhooks:read',
    params: idParams,
    query: listQuery({}, ['created_at'], '-created_at'),
    responses: { 200: { description: 'A page of delivery records', schema: listResponse(deliverySchema) }, 404: { description: 'Not found' } },
    handler: async ({ params, query, principal, app }) => {
      const webhook = await webhooks.findWebhook(app.pool, principal.workspaceId, params.id);
      if (!webhook) throw webhookNotFound();
      return reply.ok(
        await paginate(app.pool, deliveryList(webhook.id), { query, cursorKey: app.secrets.cursorKey }, (row) => toDelivery(row as DeliveryListRow)),
      );
    },
  }),
  platformRoute({
    method: 'post',
    path: '/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver',
    operationId: 'redeliverWebhookDelivery',
    summary: 'Send one delivery again now (same event id, a new attempt)',
    tags: ['webhooks'],
    scope: 'webhooks:admin',
    params: z.object({ id: z.string(), delivery_id: z.string() }),
    responses: {
      202: { description: 'Queued for an immediate attempt', schema: z.object({ id: z.string(), status: z.literal('queued') }) },
      404: { description: 'Not found' },
      409: { description: 'The delivery is being attempted right now, or the webhook is disabled (`conflict`)' },
    },
    handler: async ({ params, principal, app }) => {
      const row = await redeliverWebhookDelivery(app, principal.workspaceId, params.id, params.delivery_id);
      return reply.accepted({ id: row.id, status: 'queued' as const });
    },
  }),
];
