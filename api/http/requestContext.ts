/**
 * Request id, client address and the log scope of every request. `X-Request-Id` is echoed when the
 * client sent a sane one (printable token, at most 128 characters) and generated otherwise; it is
 * the trace id of error bodies and log lines.
 */
import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
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

/** The client address: the first X-Forwarded-For value when the proxy is trusted, else the socket peer. */
export function clientIp(req: Request, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = req.headers['x-forwarded-for'];
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
    if (first) return first;
  }
  return req.socket.remoteAddress ?? 'unknown';
}

export function requestContext(trustProxy: boolean): RequestHandler {
  return (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    req.traceId = typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    req.clientIp = clientIp(req, trustProxy);
    req.startedAt = process.hrtime.bigint();
    res.setHeader('X-Request-Id', req.traceId);
    withTrace(req.traceId, next);
  };
}
