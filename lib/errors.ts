/**
 * The one application error. Its `code` is drawn from a closed set; each surface maps codes to
 * HTTP statuses (one table: api/http/errorStatus.ts) and its own body shape (api/platform/errors.ts, api/product/errors.ts).
 */
export const errorCodes = [
  'validation_error',
  'idempotency_key_required',
  'too_many_records',
  'bad_request',
  'unauthorized',
  'invalid_grant',
  'forbidden',
  'mfa_required',
  'sso_required',
  'not_found',
  'not_fitted',
  'conflict',
  'abstained',
  'payload_too_large',
  'unsupported_media_type',
  'unprocessable',
  'config_invalid',
  'report_facts_mismatch',
  'rate_limited',
  'service_unavailable',
  'internal_error',
] as const;
export type ErrorCode = (typeof errorCodes)[number];

export class AppError extends Error {
  override name = 'AppError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export const notFound = (message = 'Resource not found') => new AppError('not_found', message);
export const conflict = (message: string, details?: unknown) => new AppError('conflict', message, details);
