/**
 * The HTTP status of each error code (lib/errors.ts), one table for both surfaces. They differ in
 * one code only: a request that fails validation is 400 on /v1 and 422 on the product surface
 * (FastAPI's status, product-api.md); each surface shapes its own body (api/platform/errors.ts,
 * api/product/errors.ts).
 */
import type { ErrorCode } from '../../lib/errors.ts';

export const platformStatus: Record<ErrorCode, number> = {
  validation_error: 400,
  idempotency_key_required: 400,
  too_many_records: 400,
  bad_request: 400,
  unauthorized: 401,
  invalid_grant: 401,
  forbidden: 403,
  mfa_required: 403,
  sso_required: 403,
  not_found: 404,
  not_fitted: 404,
  conflict: 409,
  abstained: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  config_invalid: 422,
  report_facts_mismatch: 422,
  rate_limited: 429,
  service_unavailable: 503,
  internal_error: 500,
};

export const productStatus: Record<ErrorCode, number> = { ...platformStatus, validation_error: 422 };
