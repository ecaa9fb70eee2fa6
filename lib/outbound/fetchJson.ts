/**
 * A JSON document fetched from a URL an admin supplied (an SSO connection's OIDC discovery, key set
 * and token endpoint), through the same guard as every outbound request: the address policy at
 * connect time, no redirects, the connect and response timeouts, and a size cap past which nothing
 * more is read. Failures throw OutboundFetchError whose message says what failed in our words; the
 * remote answer is never quoted back to the caller.
 */
import type { OutboundPolicy } from './addressPolicy.ts';
import { postOutbound } from './post.ts';

/** Discovery documents, key sets and token responses are a few KB; this leaves room and no more. */
export const JSON_FETCH_MAX_BYTES = 256 * 1024;

export class OutboundFetchError extends Error {
  override name = 'OutboundFetchError';
}

export interface JsonFetch {
  url: string;
  /** What is fetched, for the error message ("discovery document", "key set", "token endpoint"). */
  what: string;
  method?: 'GET' | 'POST';
  /** A form body (POST). */
  form?: URLSearchParams;
  maxBytes?: number;
}

export async function fetchJson(policy: OutboundPolicy, request: JsonFetch): Promise<{ status: number; body: unknown }> {
  const maxBytes = request.maxBytes ?? JSON_FETCH_MAX_BYTES;
  const result = await postOutbound(policy, {
    url: request.url,
    method: request.method ?? 'GET',
    body: request.form?.toString(),
    headers: { accept: 'application/json', ...(request.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
    maxResponseBytes: maxBytes,
  });
  if (result.refused) throw new OutboundFetchError(`the ${request.what} address is refused by the outbound policy`);
  if (result.statusCode === null) {
    const timeout = result.error?.startsWith('timeout');
    throw new OutboundFetchError(`the ${request.what} could not be reached${timeout ? ' in time' : ''}`);
  }
  if (result.truncated) throw new OutboundFetchError(`the ${request.what} answered more than ${Math.round(maxBytes / 1024)} KB`);
  if (result.statusCode >= 300 && result.statusCode < 400) throw new OutboundFetchError(`the ${request.what} answered a redirect, which is not followed`);
  let body: unknown;
  try {
    body = JSON.parse(result.responsePreview);
  } catch {
    body = undefined;
  }
  if (!result.ok && result.statusCode !== 400 && result.statusCode !== 401) {
    throw new OutboundFetchError(`the ${request.what} answered HTTP ${result.statusCode}`);
  }
  if (body === undefined || typeof body !== 'object' || body === null) throw new OutboundFetchError(`the ${request.what} did not answer a JSON object`);
  return { status: result.statusCode, body };
}
