/**
 * Builds an OpenAPI 3.1 document from declared routes. Schemas come from the same zod objects the
 * handlers validate with (zod 4's native JSON Schema output, draft 2020-12, which OpenAPI 3.1 uses).
 */
import { z } from 'zod';
import { documentedAs } from './jsonValue.ts';
import type { BaseRoute } from './routes.ts';

type Json = Record<string, unknown>;

export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const out = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    // A schema documented as another (api/http/jsonValue.ts documentAs) shows that one.
    override: (ctx) => {
      const as = documentedAs(ctx.zodSchema as unknown as z.ZodType);
      if (as) Object.assign(ctx.jsonSchema, jsonSchema(as, io));
    },
  }) as Json;
  delete out.$schema;
  return out;
}

function parametersOf(route: BaseRoute): Json[] {
  const params: Json[] = [];
  const pathNames = [...route.path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]);
  const pathShape = route.params?.shape ?? {};
  for (const name of pathNames) {
    const schema = pathShape[name] ? jsonSchema(pathShape[name], 'input') : { type: 'string' };
    params.push({ name, in: 'path', required: true, schema });
  }
  for (const [name, header] of Object.entries(route.headers ?? {})) {
    params.push({ name, in: 'header', required: header.required ?? false, description: header.description, schema: header.schema });
  }
  if (route.query) {
    const schema = jsonSchema(route.query, 'input');
    const properties = (schema.properties ?? {}) as Record<string, Json>;
    const required = new Set((schema.required ?? []) as string[]);
    for (const [name, propertySchema] of Object.entries(properties)) {
      const { description, ...rest } = propertySchema;
      params.push({ name, in: 'query', required: required.has(name), schema: rest, ...(description ? { description } : {}) });
    }
  }
  return params;
}

export function operationFor(route: BaseRoute): Json {
  const operation: Json = {
    operationId: route.operationId,
    summary: route.summary,
    tags: route.tags,
  };
  if (route.description) operation.description = route.description;
  const parameters = parametersOf(route);
  if (parameters.length) operation.parameters = parameters;
  if (route.bodyContentType === 'multipart/form-data') {
    operation.requestBody = {
      required: true,
      content: {
        'multipart/form-data': {
          schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', contentMediaType: 'application/octet-stream' } } },
        },
      },
    };
  } else if (route.rawBody) {
    operation.requestBody = { required: true, content: { 'application/json': { schema: { description: 'Read as raw bytes; see the description' } } } };
  } else if (route.body) {
    operation.requestBody = {
      required: !route.body.safeParse(undefined).success,
      content: { [route.bodyContentType ?? 'application/json']: { schema: jsonSchema(route.body, 'input') } },
    };
  }
  const responses: Json = {};
  for (const [status, spec] of Object.entries(route.responses)) {
    const response: Json = spec.schema
      ? { description: spec.description, content: { [spec.contentType ?? 'application/json']: { schema: jsonSchema(spec.schema, 'output') } } }
      : spec.contentType
        ? { description: spec.description, content: { [spec.contentType]: {} } }
        : { description: spec.description };
    if (spec.headers) {
      response.headers = Object.fromEntries(
        Object.entries(spec.headers).map(([name, h]) => [name, { description: h.description, schema: h.schema, ...(h.required ? { required: true } : {}) }]),
      );
    }
    responses[status] = response;
  }
  operation.responses = responses;
  return operation;
}

export interface OpenApiInput<R extends BaseRoute> {
  title: string;
  description: string;
  routes: R[];
  /** Surface-specific additions to each operation: security, standard error responses. */
  decorate?: (route: R, operation: Json) => void;
  components?: Json;
  extensions?: Json;
}

export function buildOpenApi<R extends BaseRoute>(input: OpenApiInput<R>): Json {
  const paths: Record<string, Json> = {};
  for (const route of input.routes) {
    const operation = operationFor(route);
    input.decorate?.(route, operation);
    (paths[route.path] ??= {})[route.method] = operation;
  }
  return {
    openapi: '3.1.0',
    info: { title: input.title, version: '1.0.0', description: input.description },
    paths,
    components: input.components ?? {},
    ...input.extensions,
  };
}
