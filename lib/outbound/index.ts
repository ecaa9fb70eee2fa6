/**
 * Outbound HTTP for everything the service sends to addresses its users choose: webhook deliveries,
 * chat notifications, `http_pull` connectors.
 *
 * How to use it:
 * ```ts
 * import { outboundPolicyFromConfig, checkOutboundUrl, postSigned, postOutbound, retryDelayMs } from '../lib/outbound/index.ts';
 * const policy = outboundPolicyFromConfig(app.config);    // build once per process and reuse (it owns the keep-alive agents)
 * await checkOutboundUrl(policy, body.url);               // when a URL is stored: throws OutboundRefusedError(message) → 400
 * const result = await postSigned(policy, { url, body: JSON.stringify(payload), secret, messageId: delivery.id });
 * if (!result.ok) {                                      // never throws; every failure is a result
 *   if (result.refused) … permanent until the URL changes
 *   const wait = result.retryAfterMs ?? retryDelayMs(failedAttempts, scale); // null: give up
 * }
 * ```
 * `postOutbound(policy, {url, body, headers})` is the same POST without signature headers (chat
 * services that authenticate by URL). Both resolve the host and refuse loopback, private,
 * link-local and metadata addresses (unless OUTBOUND_ALLOWLIST or development allows them) at
 * connect time, follow no redirects, and time out (connect 5 s, whole response 10 s by default).
 */
import type { OutboundPolicy } from './addressPolicy.ts';
import { postOutbound, type OutboundRequest, type OutboundResult } from './post.ts';
import { signatureHeaders } from './signature.ts';

export { outboundPolicy, outboundPolicyFromConfig, refusalReason, parseAllowlist, type OutboundPolicy } from './addressPolicy.ts';
export { checkOutboundUrl, parseOutboundUrl, OutboundRefusedError } from './guard.ts';
export { postOutbound, parseRetryAfter, DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_RESPONSE_TIMEOUT_MS, type OutboundRequest, type OutboundResult } from './post.ts';
export { signatureHeaders, svcSignature, standardWebhooksKey, SECRET_PREFIX } from './signature.ts';
export { fetchJson, OutboundFetchError, JSON_FETCH_MAX_BYTES, type JsonFetch } from './fetchJson.ts';
export { retryDelayMs, RETRY_DELAYS_MS, MAX_ATTEMPTS } from './retrySchedule.ts';

export interface SignedRequest extends Omit<OutboundRequest, 'headers' | 'method' | 'body'> {
  body: string;
  /** The signing secret (`whsec_…`). */
  secret: string;
  /** Secrets being rotated out: each adds a signature to `webhook-signature`. */
  previousSecrets?: readonly string[];
  /** Stable across retries of one message: receivers drop duplicates by it (`webhook-id`). */
  messageId: string;
  /** Defaults to now; signed into `webhook-signature`. */
  timestamp?: Date;
  headers?: Record<string, string>;
}

/** POSTs a body with the four signature headers of CONTRACT.md. */
export function postSigned(policy: OutboundPolicy, request: SignedRequest): Promise<OutboundResult> {
  const { secret, previousSecrets, messageId, timestamp, headers, ...rest } = request;
  return postOutbound(policy, {
    ...rest,
    headers: { ...headers, ...signatureHeaders(secret, messageId, rest.body, timestamp ?? new Date(), previousSecrets) },
  });
}
