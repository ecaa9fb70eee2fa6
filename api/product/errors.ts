/**
 * Product-surface errors: the body is `{detail: …}` only. Request validation failures are 422 with
 * `detail` an array of `{loc, msg, type, input}` (FastAPI's shape), `loc` starting with body, path
 * or query.
 */
import type { ErrorRequestHandler, Request, Response } from 'express';
import { z } from 'zod';
import { AppError } from '../../lib/errors.ts';
import type { Logger } from '../../lib/logger.ts';
import { productStatus } from '../http/errorStatus.ts';
import type { LocatedIssue } from '../http/routes.ts';

/** The body of an error with a plain-string detail, for route response declarations. */
export const detailSchema = z.object({ detail: z.string() });

export interface ValidationDetail {
  loc: Array<string | number>;
  msg: string;
  type: string;
  input: unknown;
}

/** pydantic's type and message for a value of the wrong JSON type, by zod's expected type. */
const PYDANTIC_TYPES: Record<string, { type: string; msg: string }> = {
  string: { type: 'string_type', msg: 'Input should be a valid string' },
  number: { type: 'float_type', msg: 'Input should be a valid number' },
  int: { type: 'int_type', msg: 'Input should be a valid integer' },
  boolean: { type: 'bool_type', msg: 'Input should be a valid boolean' },
  object: { type: 'model_attributes_type', msg: 'Input should be a valid dictionary or object to extract fields from' },
  record: { type: 'dict_type', msg: 'Input should be a valid dictionary' },
  array: { type: 'list_type', msg: 'Input should be a valid list' },
};

/** pydantic's spelling of a choice: `'a', 'b' or 'c'`. */
const alternatives = (items: string[]) => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`);

/** FastAPI/pydantic-style error type and message for a zod issue. */
function describe(issue: z.core.$ZodIssue, input: unknown): { type: string; msg: string } {
  switch (issue.code) {
    case 'invalid_type':
      if (input === undefined) return { type: 'missing', msg: 'Field required' };
      return PYDANTIC_TYPES[issue.expected] ?? { type: `${issue.expected}_type`, msg: `Input should be a valid ${issue.expected}` };
    case 'too_small':
      if (issue.origin === 'string') return { type: 'string_too_short', msg: `String should have at least ${issue.minimum} characters` };
      if (issue.origin === 'array') return { type: 'too_short', msg: `List should have at least ${issue.minimum} items` };
      return {
        type: issue.inclusive ? 'greater_than_equal' : 'greater_than',
        msg: `Input should be greater than${issue.inclusive ? ' or equal to' : ''} ${issue.minimum}`,
      };
    case 'too_big':
      if (issue.origin === 'string') return { type: 'string_too_long', msg: `String should have at most ${issue.maximum} characters` };
      if (issue.origin === 'array') return { type: 'too_long', msg: `List should have at most ${issue.maximum} items` };
      return {
        type: issue.inclusive ? 'less_than_equal' : 'less_than',
        msg: `Input should be less than${issue.inclusive ? ' or equal to' : ''} ${issue.maximum}`,
      };
    case 'invalid_value':
      return { type: 'enum', msg: `Input should be ${alternatives(issue.values.map((v) => `'${String(v)}'`))}` };
    case 'invalid_format':
      if (issue.format === 'regex') return { type: 'string_pattern_mismatch', msg: `String should match pattern '${issue.pattern ?? ''}'` };
      if (issue.format === 'uuid') return { type: 'uuid_parsing', msg: 'Input should be a valid UUID' };
      return { type: 'value_error', msg: `value is not a valid ${issue.format}` };
    case 'unrecognized_keys':
      return { type: 'extra_forbidden', msg: 'Extra inputs are not permitted' };
    default:
      return { type: 'value_error', msg: issue.message };
  }
}

/** One entry, its keys in the spec's order `{loc, msg, type, input}`. */
const item = (loc: ValidationDetail['loc'], { type, msg }: { type: string; msg: string }, input: unknown): ValidationDetail => ({
  loc,
  msg,
  type,
  input: input ?? null,
});

export function issuesToValidationDetail(issues: LocatedIssue[]): ValidationDetail[] {
  return issues.flatMap(({ location, issue, input }) => {
    const loc = [location, ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))];
    // One entry per unknown key, located at the key (as FastAPI reports `extra_forbidden`).
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => item([...loc, key], describe(issue, input), (input as Record<string, unknown> | undefined)?.[key]));
    }
    return [item(loc, describe(issue, input), input)];
  });
}

export function sendProductError(res: Response, status: number, detail: unknown, headers?: Record<string, string>): void {
  for (const [name, value] of Object.entries(headers ?? {})) res.setHeader(name, value);
  res.status(status).json({ detail });
}

export function productErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req: Request, res, _next) => {
    if (res.headersSent) {
      logger.error('error after response started', { err });
      res.destroy();
      return;
    }
    if (err instanceof AppError) return sendProductError(res, productStatus[err.code], err.details ?? err.message, err.headers);
    const type = (err as { type?: string }).type;
    if (type === 'entity.parse.failed') {
      return sendProductError(res, 422, [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid', input: {} }]);
    }
    if (type === 'entity.too.large') return sendProductError(res, 413, 'Request body is too large.');
    // A body declared in another charset (`charset=latin1`) or content encoding is not UTF-8 JSON.
    if (type === 'charset.unsupported' || type === 'encoding.unsupported') {
      return sendProductError(res, 422, [{ loc: ['body'], msg: 'JSON body must be UTF-8 encoded', type: 'json_invalid', input: {} }]);
    }
    // express could not percent-decode a path parameter (`/admin/tenants/%ZZ`): the path fails validation.
    if (err instanceof URIError && (err as { status?: number }).status === 400) {
      return sendProductError(res, 422, [{ loc: ['path'], msg: 'Invalid percent-encoding in the path', type: 'value_error', input: req.path }]);
    }
    logger.error('unhandled error', { err, method: req.method, path: req.path });
    sendProductError(res, 500, 'Internal Server Error');
  };
}
