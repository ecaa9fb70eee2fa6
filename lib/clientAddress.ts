import type { IncomingMessage } from 'node:http';

/**
 * The browser's address as TRUST_PROXY defines it (docs/configuration.md): the first X-Forwarded-For
 * value when a trusted proxy sits in front of the console, else the socket peer. Without TRUST_PROXY a
 * client-sent X-Forwarded-For is ignored, so it cannot pick its own rate-limit key.
 */
export function clientAddress(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = req.headers['x-forwarded-for'];
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
    if (first) return first;
  }
  return req.socket.remoteAddress ?? 'unknown';
}
