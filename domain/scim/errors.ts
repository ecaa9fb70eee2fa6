/** SCIM errors (RFC 7644 section 3.12): an HTTP status, an optional `scimType` and a detail. Sent by api/platform/scim/errors.ts. */
export type ScimType =
  | 'invalidFilter'
  | 'tooMany'
  | 'uniqueness'
  | 'mutability'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidValue'
  | 'invalidVers'
  | 'sensitive';

export class ScimError extends Error {
  override name = 'ScimError';
  constructor(
    readonly status: number,
    detail: string,
    readonly scimType?: ScimType,
  ) {
    super(detail);
  }
}

export const invalidValue = (detail: string) => new ScimError(400, detail, 'invalidValue');
export const scimNotFound = (what: string) => new ScimError(404, `${what} not found`);
