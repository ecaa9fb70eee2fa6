/**
 * Idempotency-Key on /v1 (cross-cutting rules 3-5): mandatory on POST below /v1/ingest/ and
 * /v1/configs/ and on POST /v1/engine/runs (400 before any handler); on POST, PUT and PATCH with an
 * Authorization header the first 2xx response is cached and replayed with `Idempotency-Replayed:
 * true`. The same key with another body, or while the first request is still running, is 409.
 */
import type { RequestHandler, Request } from 'express';
import { canonicalJson, sha256Hex } from '../../lib/crypto.ts';
import { AppError } from '../../lib/errors.ts';
import type { IdempotencyId } from '../../sql/idempotency.ts';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** How long an in-flight claim blocks duplicates before it is presumed abandoned by a crash. */
export const IDEMPOTENCY_LOCK_MS = 5 * 60 * 1000;
const MAX_KEY_LENGTH = 255;

export function idempotencyKeyRequired(method: string, path: string): boolean {
  if (method !== 'POST') return false;
  return path.startsWith('/v1/ingest/') || path.startsWith('/v1/configs/') || path === '/v1/engine/runs' || path === '/v1/engine/runs/';
}

/** Rejects mandatory-key requests without one, before routing, authentication or the handler. */
export function requireIdempotencyKey(): RequestHandler {
  return (req, _res, next) => {
    if (idempotencyKeyRequired(req.method, req.path) && !req.get('idempotency-key')) {
      throw new AppError('idempotency_key_required', 'Idempotency-Key header is required for this request');
    }
    next();
  };
}

/** The cache identity of a request, or null when the cache does not apply to it. */
export function idempotencyIdentity(req: Request): { id: IdempotencyId; requestHash: string } | null {
  if (!['POST', 'PUT', 'PATCH'].includes(req.method)) return null;
  const key = req.get('idempotency-key');
  const authorization = req.get('authorization');
  if (!key || !authorization) return null;
  if (key.length > MAX_KEY_LENGTH) {
    throw new AppError('validation_error', 'Request validation failed', { 'Idempotency-Key': `must be at most ${MAX_KEY_LENGTH} characters` });
  }
  return {
    id: { authHash: sha256Hex(authorization), key, path: req.path },
    // The query string is part of the request: the same key with another query is another request.
    requestHash: sha256Hex(canonicalJson({ query: req.url.includes('?') ? req.url.slice(req.url.indexOf('?')) : '', body: req.body ?? null })),
  };
}
