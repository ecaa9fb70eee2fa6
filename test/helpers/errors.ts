/** Assertions on the /v1 error envelope and small request helpers shared by the API tests. */
import { randomUUID } from 'node:crypto';
import * as assert from 'uvu/assert';
import type { HttpResponse } from './http.ts';

/**
 * The response is exactly `{error: {code, message, trace_id, details?}}` with this status and code,
 * trace_id equal to X-Request-Id, and (when given) exactly these details.
 */
export function assertError(res: HttpResponse, status: number, code: string, details?: Record<string, unknown>): void {
  assert.is(res.status, status, res.text);
  const error = res.body?.error;
  assert.ok(error, `no error envelope: ${res.text}`);
  assert.is(error.code, code, res.text);
  assert.type(error.message, 'string');
  assert.ok(error.message.length > 0);
  assert.is(error.trace_id, res.headers.get('x-request-id'));
  assert.equal(
    Object.keys(error)
      .filter((k) => k !== 'details')
      .sort(),
    ['code', 'message', 'trace_id'],
    res.text,
  );
  if (details !== undefined) assert.equal(error.details, details, res.text);
}

/** A 400 validation_error whose details are exactly these field messages. */
export const assertValidation = (res: HttpResponse, details: Record<string, unknown>) => assertError(res, 400, 'validation_error', details);

/** Options carrying a fresh Idempotency-Key. */
export const fresh = (headers: Record<string, string> = {}) => ({ headers: { 'idempotency-key': randomUUID(), ...headers } });
