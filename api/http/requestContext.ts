/**
 * Request id, client address and the log scope of every request. `X-Request-Id` is echoed when the
 * client sent a sane one (printable token, at most 128 characters) and generated otherwise; it is
 * the trace id of error bodies and log lines.
 */
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { isIP, type Socket } from 'node:net';
import type { Request, RequestHandler } from 'express';
import { clientAddress } from '../../lib/clientAddress.ts';
import { withTrace } from '../../lib/logger.ts';

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      traceId: string;
      clientIp: string;
      startedAt: bigint;
      /** Route template (`/v1/jobs/{id}`) once a declared route matched; used by metrics and logs. */
      routeTemplate?: string;
    }
  }
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * The console's proxy (console/server/proxy.ts) forwards the browser's address in `x-svc-client-ip`
 * with the shared `x-svc-console-secret`. Only when the secret matches (constant time) is the address
 * believed; from anyone else the header is ignored, so it cannot be forged to escape a rate limit.
 * A connection that has shown the secret once is remembered as the console's: its later requests are
 * checked against the value it already proved (no digest per request on the proxy's keep-alive
 * connections). A comparison there can only teach a connection what it has already sent.
 */
export function consoleClientIp(consoleSecret: string | undefined): (req: Request) => string | undefined {
  if (!consoleSecret) return () => undefined;
  const expected = digest(consoleSecret);
  // The secret each connection has shown and had verified (the console's keep-alive connections); a
  // WeakMap rather than a property on the socket, so that node's own code keeps seeing one socket shape.
  const verifiedSecrets = new WeakMap<Socket, string>();
  return (req) => {
    const secret = req.headers['x-svc-console-secret'];
    const ip = req.headers['x-svc-client-ip'];
    if (typeof secret !== 'string' || typeof ip !== 'string' || !isIP(ip)) return undefined;
    if (verifiedSecrets.get(req.socket) === secret) return ip;
    if (!timingSafeEqual(digest(secret), expected)) return undefined;
    verifiedSecrets.set(req.socket, secret);
    return ip;
  };
}

export function requestContext(trustProxy: boolean, consoleSecret?: string): RequestHandler {
  const fromConsole = consoleClientIp(consoleSecret);
  return (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    req.traceId = typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    req.clientIp = fromConsole(req) ?? clientAddress(req, trustProxy);
    req.startedAt = process.hrtime.bigint();
    res.setHeader('X-Request-Id', req.traceId);
    withTrace(req.traceId, next);
  };
}
