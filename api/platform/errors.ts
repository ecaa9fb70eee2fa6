/**
 * The /v1 error envelope: `{error: {code, message, trace_id, details?}}` with trace_id equal to the
 * X-Request-Id header, except 429 which carries no trace_id. Statuses: api/http/errorStatus.ts.
 */
import type { ErrorRequestHandler, Request, Response } from 'express';
import { AppError } from '../../lib/errors.ts';
import type { Logger } from '../../lib/logger.ts';
import { platformStatus } from '../http/errorStatus.ts';
import type { LocatedIssue } from '../http/routes.ts';

export function sendPlatformError(req: Request, res: Response, err: AppError, status = platformStatus[err.code]): void {
  const body: Record<string, unknown> = { code: err.code, message: err.message };
  if (err.code !== 'rate_limited') body.trace_id = req.traceId;
  if (err.details !== undefined) body.details = err.details;
  for (const [name, value] of Object.entries(err.headers ?? {})) res.setHeader(name, value);
  res.status(status).json({ error: body });
}

/** `records.3.title` style keys; a problem with the whole body or query is keyed `body` / `query`. */
export function issuesToDetails(issues: LocatedIssue[]): Record<string, string> {
  const details: Record<string, string> = {};
  for (const { location, issue } of issues) {
    const key = issue.path.length ? issue.path.map(String).join('.') : location === 'path' ? 'path' : location;
    details[key] ??= issue.message;
  }
  return details;
}

export const validationError = (issues: LocatedIssue[], message = 'Request validation failed') =>
  new AppError('validation_error', message, issuesToDetails(issues));

/** Final error handler: AppErrors keep their code; body-parser failures are 400/413; the rest is 500. */
export function platformErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (res.headersSent) {
      logger.error('error after response started', { err });
      res.destroy();
      return;
    }
    if (err instanceof AppError) return sendPlatformError(req, res, err);
    const type = (err as { type?: string }).type;
    if (type === 'entity.parse.failed') {
      return sendPlatformError(req, res, new AppError('validation_error', 'Malformed JSON body', { body: 'is not valid JSON' }));
    }
    if (type === 'entity.too.large') return sendPlatformError(req, res, new AppError('payload_too_large', 'Request body is too large'));
    if (type === 'charset.unsupported' || type === 'encoding.unsupported') {
      return sendPlatformError(req, res, new AppError('unsupported_media_type', 'Unsupported request body encoding'));
    }
    // express could not percent-decode a path parameter (`/v1/jobs/%ZZ`): the path fails validation.
    if (err instanceof URIError && (err as { status?: number }).status === 400) {
      return sendPlatformError(req, res, new AppError('validation_error', 'Request validation failed', { path: 'is not valid percent-encoding' }));
    }
    logger.error('unhandled error', { err, method: req.method, path: req.path });
    sendPlatformError(req, res, new AppError('internal_error', 'Internal server error'));
  };
}
