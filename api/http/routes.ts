/**
 * What both surfaces share about a declared route: its method and OpenAPI-style path, the zod
 * schemas of params, query and body (the single source of validation, types and /openapi.json),
 * its documented responses, and request parsing against those schemas. Each surface adds its own
 * authentication fields and error mapping (api/platform/route.ts, api/product/route.ts).
 */
import type { Request, Response } from 'express';
import { z } from 'zod';

// One message for every missing field, on both surfaces ("is required" rather than zod's
// "expected string, received undefined").
z.config({ customError: (issue) => (issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : undefined) });

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  /** Defaults to application/json. */
  contentType?: string;
}

/** What a handler answers; `undefined` means it wrote the response itself (a stream, a file). */
export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export const reply = {
  ok: (body: unknown, headers?: Record<string, string>): Reply => ({ status: 200, body, headers }),
  created: (body: unknown, headers?: Record<string, string>): Reply => ({ status: 201, body, headers }),
  accepted: (body: unknown, headers?: Record<string, string>): Reply => ({ status: 202, body, headers }),
  noContent: (): Reply => ({ status: 204 }),
};

// Loosely typed on purpose: the surface-specific `define…Route` helpers keep handler inputs typed.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyZodObject = z.ZodObject<any>;

export interface BaseRoute {
  method: HttpMethod;
  /** OpenAPI template, e.g. `/v1/jobs/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  params?: AnyZodObject;
  query?: AnyZodObject;
  body?: z.ZodType;
  /** Request media type when not JSON (multipart uploads parse their own body). */
  bodyContentType?: 'application/json' | 'multipart/form-data';
  responses: Record<number, ResponseSpec>;
}

export interface ParsedRequest {
  params: unknown;
  query: unknown;
  body: unknown;
}

export type RequestLocation = 'path' | 'query' | 'body';
export interface LocatedIssue {
  location: RequestLocation;
  issue: z.core.$ZodIssue;
  input: unknown;
}

/** `/v1/jobs/{id}` -> `/v1/jobs/:id` (express 5 / path-to-regexp 8 syntax). */
export function expressPath(path: string): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}

/** The value at `path` inside `root`, for error reports that echo the offending input. */
function valueAt(root: unknown, path: PropertyKey[]): unknown {
  let value: unknown = root;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** Validates params, query and body; on failure every issue comes back with where it was found. */
export function parseRequest(route: BaseRoute, req: Request): { ok: true; value: ParsedRequest } | { ok: false; issues: LocatedIssue[] } {
  const issues: LocatedIssue[] = [];
  const parsePart = (location: RequestLocation, schema: z.ZodType | undefined, input: unknown) => {
    if (!schema) return undefined;
    const result = schema.safeParse(input);
    if (result.success) return result.data;
    for (const issue of result.error.issues) issues.push({ location, issue, input: valueAt(input, issue.path) });
    return undefined;
  };
  const params = parsePart('path', route.params, req.params);
  const query = parsePart('query', route.query, req.query);
  const body = route.bodyContentType === 'multipart/form-data' ? undefined : parsePart('body', route.body, req.body);
  return issues.length ? { ok: false, issues } : { ok: true, value: { params, query, body } };
}

/** PostgreSQL text cannot hold NUL characters: bodies carrying one are refused before any handler. */
export function containsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (Array.isArray(value)) return value.some(containsNul);
  if (value && typeof value === 'object') return Object.entries(value).some(([k, v]) => k.includes('\u0000') || containsNul(v));
  return false;
}

/**
 * An integer query parameter: digits only (an empty `?n=` is an error, never 0), then checked by
 * `bounds` (e.g. `z.number().min(0)`).
 */
export const queryInteger = (message: string, bounds: z.ZodNumber = z.number()) =>
  z.string().trim().regex(/^[+-]?\d+$/, message).transform(Number).pipe(bounds);

/** A non-negative decimal query parameter (`0.5`, `2`), then checked by `bounds` (e.g. `z.number().max(1)`). */
export const queryDecimal = (bounds: z.ZodNumber) => z.string().trim().regex(/^\d+(\.\d+)?$/, 'must be a decimal number').transform(Number).pipe(bounds);

/** A boolean query parameter: `true`/`false` (also `1`/`0`), anything else is a validation error. */
export const queryBoolean = z
  .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1');

export type { Request, Response };
