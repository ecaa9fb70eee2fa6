/**
 * `POST /v1/webhooks/inbound/{connector_id}` (Authentication rule 10): public, authenticated by an
 * HMAC-SHA256 of the raw body bytes under the signing secret of the webhook tied to the connector,
 * in `x-svc-signature: <hex>` or `x-hub-signature-256: sha256=<hex>`. Verified before any parsing,
 * in constant time; it fails closed: no signature, a wrong one, an unknown connector or one without a
 * secret are all the same 401. A verified payload (one ingest record or `{records: [...]}`, default
 * source the connector's name) is ingested through the /v1/ingest path together with its inbound
 * delivery record and `connector.inbound.received`; `issue.ingested` follows from the ingest job. A
 * verified payload that is not valid is recorded as a failed inbound delivery and answered 400.
 *
 * Replay protection (issue 26): with the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature` = `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`) the id and timestamp
 * are signed and the timestamp must be within 5 minutes of now; a payload whose id (or, without the
 * headers, whose signed bytes) was accepted in the last 7 days is answered 202 `duplicate: true`
 * without being applied again.
 */
import { z } from 'zod';
import { constantTimeEqual, hmacSha256, sha256Hex } from '../../../lib/crypto.ts';
import { AppError } from '../../../lib/errors.ts';
import { standardWebhooksKey, svcSignature } from '../../../lib/outbound/index.ts';
import { openSecret } from '../../../lib/secretBox.ts';
import { findConnectorById, recordInboundDelivery, type ConnectorRow } from '../../../sql/connectors.ts';
import { recordOutboundEvent } from '../../../sql/outboundEvents.ts';
import { findWebhookOfConnector } from '../../../sql/webhooks.ts';
import { recentReceipt, recordReceipt } from '../../../sql/inboundReceipts.ts';
import type { AppContext } from '../../../lib/context.ts';
import { reply, type Request } from '../../http/routes.ts';
import { ingestRecords } from '../../../usecases/ingestRecords.ts';
import { MAX_BATCH, validateIngestRecord, type IssueInput, type RecordError } from '../../../domain/ingestRecord.ts';
import { platformRoute } from '../route.ts';
import { previewBytes } from './routes.ts';

const refused = () => new AppError('unauthorized', 'Missing or invalid webhook signature');
export const TIMESTAMP_TOLERANCE_MS = 5 * 60_000;
export const REPLAY_WINDOW_MS = 7 * 24 * 3600_000;

const header = (req: Request, name: string): string | null => {
  const value = req.headers[name];
  return typeof value === 'string' && value.trim() ? value.trim() : null;
};

/** The Standard Webhooks headers when any is present (then all three must be). */
function standardHeaders(req: Request): { id: string | null; timestamp: string | null; signatures: string[] } | null {
  const id = header(req, 'webhook-id');
  const timestamp = header(req, 'webhook-timestamp');
  const signature = header(req, 'webhook-signature');
  if (!id && !timestamp && !signature) return null;
  const signatures = (signature ?? '')
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .map((s) => s.slice(3));
  return { id, timestamp, signatures };
}

/** The hex signature the sender claims, from either header form; null when absent or malformed. */
function claimedSignature(req: Request): string | null {
  const svc = req.headers['x-svc-signature'];
  if (typeof svc === 'string' && svc.trim()) return svc.trim().toLowerCase();
  const hub = req.headers['x-hub-signature-256'];
  if (typeof hub === 'string') {
    const match = /^sha256=([0-9a-f]+)$/i.exec(hub.trim());
    if (match) return match[1].toLowerCase();
  }
  return null;
}

/**
 * The connector whose webhook's secret signed `raw`, and the key its replays are recognised by; or a
 * 401. Comparisons are constant-time; an unknown connector takes the time of a wrong signature.
 */
async function verifiedConnector(app: AppContext, connectorId: string, req: Request, raw: Buffer): Promise<{ connector: ConnectorRow; dedupKey: string }> {
  const webhook = await findWebhookOfConnector(app.pool, connectorId);
  const connector = webhook ? await findConnectorById(app.pool, connectorId) : null;
  const secret = webhook ? openSecret(app.secrets.webhookKey, webhook.secret_ciphertext) : 'no secret';
  const standard = standardHeaders(req);
  let matches: boolean;
  let dedupKey: string;
  if (standard) {
    // Present, the id and timestamp must be signed with the body, and the timestamp recent.
    const signed = hmacSha256(standardWebhooksKey(secret), Buffer.concat([Buffer.from(`${standard.id ?? ''}.${standard.timestamp ?? ''}.`), raw])).toString(
      'base64',
    );
    let anyMatch = false;
    for (const claimed of standard.signatures) anyMatch = constantTimeEqual(signed, claimed) || anyMatch;
    const seconds = /^\d{1,12}$/.test(standard.timestamp ?? '') ? Number(standard.timestamp) : Number.NaN;
    const recent = Math.abs(app.clock.now().getTime() - seconds * 1000) <= TIMESTAMP_TOLERANCE_MS;
    if (webhook && anyMatch && standard.id && !recent) {
      throw new AppError('unauthorized', 'The webhook-timestamp is more than 5 minutes away from now', {
        'webhook-timestamp': 'must be within 5 minutes of now',
      });
    }
    matches = anyMatch && !!standard.id && recent;
    dedupKey = `id:${standard.id}`;
  } else {
    const claimed = claimedSignature(req);
    matches = constantTimeEqual(svcSignature(secret, raw), claimed ?? '') && !!claimed;
    dedupKey = `sha256:${sha256Hex(raw)}`;
  }
  if (!webhook || !connector || connector.kind !== 'webhook' || !matches) throw refused();
  return { connector, dedupKey };
}

/** Thrown inside the ingest transaction when a concurrent delivery of the same payload committed first. */
class ConcurrentDuplicate extends Error {}

type Parsed =
  | { ok: true; inputs: IssueInput[]; rejected: Array<{ index: number; errors: RecordError[] }>; mode: 'event' | 'batch' }
  | { ok: false; details: Record<string, string> };

function parsePayload(connector: ConnectorRow, raw: Buffer): Parsed {
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return { ok: false, details: { body: 'is not valid JSON' } };
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return { ok: false, details: { body: 'must be an ingest record or {records: [...]}' } };
  const batch = (body as { records?: unknown }).records;
  if (batch === undefined) {
    const checked = validateIngestRecord(body, connector.name);
    if (!checked.ok) return { ok: false, details: Object.fromEntries(checked.errors.map((e) => [e.field === 'record' ? 'body' : e.field, e.message])) };
    return { ok: true, inputs: [checked.input], rejected: [], mode: 'event' };
  }
  if (!Array.isArray(batch) || !batch.length) return { ok: false, details: { records: 'must be a non-empty array of records' } };
  if (batch.length > MAX_BATCH) return { ok: false, details: { records: `must hold at most ${MAX_BATCH} records` } };
  const inputs: IssueInput[] = [];
  const rejected: Array<{ index: number; errors: RecordError[] }> = [];
  batch.forEach((record, index) => {
    const checked = validateIngestRecord(record, connector.name);
    if (checked.ok) inputs.push(checked.input);
    else rejected.push({ index, errors: checked.errors });
  });
  if (!inputs.length)
    return { ok: false, details: Object.fromEntries(rejected.flatMap((r) => r.errors.map((e) => [`records.${r.index}.${e.field}`, e.message]))) };
  return { ok: true, inputs, rejected, mode: 'batch' };
}

export const inboundWebhookRoutes = [
  platformRoute({
    method: 'post',
    path: '/v1/webhooks/inbound/{connector_id}',
    operationId: 'receiveInboundWebhook',
    summary: 'Receive a signed payload for a connector (no bearer; HMAC over the raw body)',
    description:
      'Standard Webhooks senders send `webhook-id`, `webhook-timestamp` (Unix seconds, within 5 minutes of now) and `webhook-signature: ' +
      'v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` (key: the base64 after `whsec_`). Otherwise: ' +
      '`x-svc-signature: <lowercase hex HMAC-SHA256 of the raw body>` or `x-hub-signature-256: sha256=<hex>`, keyed with the ' +
      'signing secret of the webhook registered with this connector_id. Body: one ingest record or `{records: [...]}` (source defaults ' +
      'to the connector name). 401 on a missing or wrong signature or a connector without a secret; 400 (recorded as a failed inbound ' +
      'delivery) when a signed payload is not valid. A payload whose `webhook-id` (or, without one, whose exact bytes) was accepted ' +
      'in the last 7 days answers 202 with `duplicate: true` and is not applied again.',
    tags: ['webhooks'],
    auth: 'public',
    rawBody: true,
    params: z.object({ connector_id: z.string() }),
    responses: {
      202: {
        description: 'Verified and ingested; or verified and already accepted in the last 7 days (`duplicate: true`, nothing applied)',
        schema: z.object({
          received: z.literal(true),
          duplicate: z.boolean().describe('True when this payload was already accepted in the last 7 days: nothing was applied again'),
          delivery_id: z.string(),
          connector_id: z.string(),
          accepted: z.number().int(),
          issue_ids: z.array(z.string()),
          rejected: z.array(z.object({ index: z.number().int(), errors: z.array(z.object({ field: z.string(), message: z.string() })) })),
        }),
      },
      401: { description: 'Missing or invalid signature, or no secret (`unauthorized`)' },
    },
    handler: async ({ params, req, app }) => {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const { connector, dedupKey } = await verifiedConnector(app, params.connector_id, req, raw);
      const now = app.clock.now();
      const since = new Date(now.getTime() - REPLAY_WINDOW_MS);
      const duplicate = (deliveryId: string) =>
        reply.accepted({
          received: true as const,
          duplicate: true,
          delivery_id: deliveryId,
          connector_id: connector.id,
          accepted: 0,
          issue_ids: [],
          rejected: [],
        });
      const seen = await recentReceipt(app.pool, connector.id, dedupKey, since);
      if (seen) return duplicate(seen.delivery_id);
      const preview = previewBytes(raw.toString('utf8'));
      const parsed = parsePayload(connector, raw);
      if (!parsed.ok) {
        const failed = await recordInboundDelivery(app.pool, {
          workspaceId: connector.workspace_id,
          connectorId: connector.id,
          status: 'failed',
          error: JSON.stringify(parsed.details),
          payloadPreview: preview,
          issueIds: [],
        });
        throw new AppError('validation_error', `The signed payload is not valid (inbound delivery ${failed.id}, recorded as failed)`, parsed.details);
      }
      let deliveryId = '';
      let ingested: Awaited<ReturnType<typeof ingestRecords>>;
      try {
        ingested = await ingestRecords(
          app,
          { workspaceId: connector.workspace_id, actor: { type: 'system', id: connector.id } },
          parsed.inputs,
          parsed.mode,
          parsed.rejected.length,
          async (client, result) => {
            const issueIds = result.results.map((r) => r.issue_id);
            deliveryId = (
              await recordInboundDelivery(client, {
                workspaceId: connector.workspace_id,
                connectorId: connector.id,
                status: 'succeeded',
                error: null,
                payloadPreview: preview,
                issueIds,
              })
            ).id;
            await recordOutboundEvent(client, connector.workspace_id, 'connector.inbound.received', {
              connector_id: connector.id,
              delivery_id: deliveryId,
              issue_ids: issueIds,
              rejected: parsed.rejected.length,
            });
            if (!(await recordReceipt(client, { connectorId: connector.id, dedupKey, deliveryId, at: now, since }))) throw new ConcurrentDuplicate();
          },
        );
      } catch (err) {
        if (!(err instanceof ConcurrentDuplicate)) throw err;
        const first = await recentReceipt(app.pool, connector.id, dedupKey, since);
        return duplicate(first?.delivery_id ?? '');
      }
      const { outcome } = ingested;
      return reply.accepted({
        received: true as const,
        duplicate: false,
        delivery_id: deliveryId,
        connector_id: connector.id,
        accepted: parsed.inputs.length,
        issue_ids: outcome.results.map((r) => r.issue_id),
        rejected: parsed.rejected,
      });
    },
  }),
];
