/**
 * A value /openapi.json cannot describe further (a config document, a task's result, provenance),
 * saying what it is: no schema in either description is an empty `{}` (test/api/http/openapiSchemas.test.ts).
 */
import { z } from 'zod';

export const jsonValue = (what: string) => z.unknown().describe(what);

/**
 * `schema` validates; /openapi.json shows `documented` (a batch's records are checked one by one so
 * that a bad record rejects only itself, but each is an ingest record).
 */
const documented = new WeakMap<z.ZodType, z.ZodType>();
export function documentAs<T extends z.ZodType>(schema: T, as: z.ZodType): T {
  documented.set(schema, as);
  return schema;
}
export const documentedAs = (schema: z.ZodType): z.ZodType | undefined => documented.get(schema);
