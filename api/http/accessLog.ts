/** One log line and one histogram observation per finished request. */
import type { RequestHandler } from 'express';
import type { Logger } from '../../lib/logger.ts';
import { withTrace } from '../../lib/logger.ts';
import { httpRequestDuration } from '../../lib/metrics.ts';

export function accessLog(surface: 'platform' | 'product', logger: Logger): RequestHandler {
  return (req, res, next) => {
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - req.startedAt) / 1e9;
      const route = req.routeTemplate ?? 'unmatched';
      httpRequestDuration.observe({ surface, method: req.method, route, status: String(res.statusCode) }, seconds);
      withTrace(req.traceId, () =>
        logger.info('request', {
          surface,
          method: req.method,
          path: req.path,
          route,
          status: res.statusCode,
          duration_ms: Math.round(seconds * 1e6) / 1e3,
          client_ip: req.clientIp,
        }),
      );
    });
    next();
  };
}
