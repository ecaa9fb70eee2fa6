/**
 * Signatures of an outbound body (CONTRACT.md, platform-api.md Events rule 2):
 * - `x-svc-signature`: lowercase hex HMAC-SHA256 of the raw body, keyed with the secret string;
 * - Standard Webhooks: `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature`
 *   `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, keyed as that spec says: the base64
 *   decoding of the part after `whsec_` (so the `standardwebhooks` package verifies with the same secret).
 */
import { hmacSha256 } from '../crypto.ts';

export const SECRET_PREFIX = 'whsec_';

/** The Standard Webhooks key of a secret: base64 after `whsec_`; any other string is used as is. */
export function standardWebhooksKey(secret: string): Buffer {
  if (secret.startsWith(SECRET_PREFIX)) return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return Buffer.from(secret);
}

export const svcSignature = (secret: string, body: string | Buffer): string => hmacSha256(secret, body).toString('hex');

/** `previousSecrets`: during a key rotation, `webhook-signature` also carries a `v1,` signature under each (space-separated, as Standard Webhooks allows). */
export function signatureHeaders(
  secret: string,
  messageId: string,
  body: string,
  timestamp: Date,
  previousSecrets: readonly string[] = [],
): Record<string, string> {
  const seconds = Math.floor(timestamp.getTime() / 1000);
  const standard = (key: string) => `v1,${hmacSha256(standardWebhooksKey(key), `${messageId}.${seconds}.${body}`).toString('base64')}`;
  return {
    'x-svc-signature': svcSignature(secret, body),
    'webhook-id': messageId,
    'webhook-timestamp': String(seconds),
    'webhook-signature': [secret, ...previousSecrets].map(standard).join(' '),
  };
}
