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
  /** Response headers worth documenting (the handshake headers of a 101). */
  headers?: Record<string, HeaderSpec>;
}

/** A request or response header as /openapi.json documents it (JSON Schema of its value). */
export interface HeaderSpec {
  description: string;
  required?: boolean;
  schema: Record<string, unknown>;
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
  bodyContentType?: 'application/json' | 'multipart/form-data' | 'application/x-www-form-urlencoded';
  /** The handler gets the body's raw bytes (a Buffer, never parsed): inbound webhooks verify a signature over them. */
  rawBody?: boolean;
  /** Request headers the operation reads beyond the common ones (a WebSocket handshake's), for /openapi.json. */
  headers?: Record<string, HeaderSpec>;
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

/**
 * The one id rule of both surfaces, applied by the route plumbing to every path parameter of every
 * route before the route's own schema: 1-200 characters from the URL-unreserved set plus `:@+`. An
 * id that passes and names nothing is the route's 404; anything else (NUL and other control
 * characters, spaces, quotes, slashes, overlong values) never reaches a handler or the database.
 */
export const PATH_ID_PATTERN = /^[A-Za-z0-9._~:@+-]{1,200}$/;
const PATH_ID_MESSAGE = 'must be an id of 1-200 letters, digits or . _ ~ : @ + -';

function pathIdIssues(params: Record<string, unknown> | undefined): LocatedIssue[] {
  return Object.entries(params ?? {})
    .filter(([, value]) => typeof value !== 'string' || !PATH_ID_PATTERN.test(value))
    .map(([key, value]) => ({
      location: 'path' as const,
      input: value,
      issue: { code: 'custom' as const, path: [key], message: PATH_ID_MESSAGE, input: value },
    }));
}

/** How deep a JSON body or query may nest; deeper input is refused before any recursive code sees it. */
export const MAX_INPUT_DEPTH = 64;

/**
 * Why a parsed body or query is unfit for every handler, or null: a NUL character (PostgreSQL text
 * cannot hold one) or nesting deeper than MAX_INPUT_DEPTH. Iterative, so hostile depth cannot
 * overflow the stack here.
 */
export function unsafeInput(value: unknown): 'nul' | 'too_deep' | null {
  // Two parallel stacks rather than a [value, depth] pair and an Object.entries array per node: this
  // walks every value of every request body (a 500-record ingest batch has ~4,000).
  const items: unknown[] = [value];
  const depths: number[] = [0];
  while (items.length) {
    const item = items.pop();
    const depth = depths.pop()!;
    if (typeof item === 'string') {
      if (item.includes('\u0000')) return 'nul';
    } else if (item !== null && typeof item === 'object') {
      if (depth >= MAX_INPUT_DEPTH) return 'too_deep';
      const node = item as Record<string, unknown>;
      for (const key of Object.keys(node)) {
        if (key.includes('\u0000')) return 'nul';
        items.push(node[key]);
        depths.push(depth + 1);
      }
    }
  }
  return null;
}

/** The message for an `unsafeInput` finding, shared by both surfaces' error shapes. */
export const unsafeInputMessage = {
  nul: 'must not contain NUL (\\u0000) characters',
  too_deep: `must not nest deeper than ${MAX_INPUT_DEPTH} levels`,
} as const;

/** The media types a JSON body may be declared as. */
export const JSON_MEDIA_TYPES = ['application/json', 'application/*+json'];

/** The route reads a JSON body (not raw bytes, a form or multipart). */
export const takesJsonBody = (route: BaseRoute) =>
  Boolean(route.body) && !route.rawBody && (!route.bodyContentType || route.bodyContentType === 'application/json');

/**
 * Why a request's body cannot be read as the JSON its route expects, or null: it carries a body
 * (any length, or chunked) declared as something else, or not declared at all. Without this, the
 * JSON parser skips such a body and the client only learns that "body is required" (issue 28).
 * Both surfaces answer it with 415 Unsupported Media Type.
 */
export function jsonContentTypeProblem(route: BaseRoute, req: Request): string | null {
  if (!takesJsonBody(route)) return null;
  const length = req.headers['content-length'];
  const hasBody = req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
  if (!hasBody || req.is(JSON_MEDIA_TYPES)) return null;
  const declared = req.headers['content-type'];
  return declared
    ? `The request body must be JSON: send Content-Type: application/json (got '${declared.split(';')[0].trim()}')`
    : 'The request body must be JSON: send Content-Type: application/json (the request has no Content-Type)';
}

/**
 * Validates path ids (the shared rule above), refuses unsafe query and body input, then parses
 * params, query and body against the route's schemas; on failure every issue comes back with where it was found.
 */
export function parseRequest(route: BaseRoute, req: Request): { ok: true; value: ParsedRequest } | { ok: false; issues: LocatedIssue[] } {
  const badIds = pathIdIssues(req.params);
  if (badIds.length) return { ok: false, issues: badIds };
  // A raw body is bytes for the handler to verify, not a structure to walk.
  const unsafe = (route.rawBody ? (['query'] as const) : (['query', 'body'] as const)).flatMap((location) => {
    const finding = unsafeInput(location === 'query' ? req.query : req.body);
    return finding ? [{ location, input: null, issue: { code: 'custom' as const, path: [], message: unsafeInputMessage[finding], input: null } }] : [];
  });
  if (unsafe.length) return { ok: false, issues: unsafe };
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

/**
 * An integer query parameter: digits only (an empty `?n=` is an error, never 0), then checked by
 * `bounds` (e.g. `z.number().min(0)`).
 */
export const queryInteger = (message: string, bounds: z.ZodNumber = z.number()) =>
  z
    .string()
    .trim()
    .regex(/^[+-]?\d+$/, message)
    .transform(Number)
    .pipe(bounds);

/** A non-negative decimal query parameter (`0.5`, `2`), then checked by `bounds` (e.g. `z.number().max(1)`). */
export const queryDecimal = (bounds: z.ZodNumber) =>
  z
    .string()
    .trim()
    .regex(/^\d+(\.\d+)?$/, 'must be a decimal number')
    .transform(Number)
    .pipe(bounds);

/** A boolean query parameter: `true`/`false` (also `1`/`0`), anything else is a validation error. */
export const queryBoolean = z.enum(['true', 'false', '1', '0'], { error: 'must be true or false' }).transform((v) => v === 'true' || v === '1');

export type { Request, Response };
