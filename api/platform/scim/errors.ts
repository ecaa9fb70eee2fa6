/** SCIM error responses (RFC 7644 section 3.12): `{schemas, status, scimType?, detail}` as application/scim+json. */
import type { Response } from 'express';
import type { ScimError } from '../../../domain/scim/errors.ts';

export const SCIM_CONTENT_TYPE = 'application/scim+json; charset=utf-8';
export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

export function sendScimError(res: Response, err: ScimError): void {
  const body: Record<string, unknown> = { schemas: [ERROR_SCHEMA], status: String(err.status), detail: err.message };
  if (err.scimType) body.scimType = err.scimType;
  res.status(err.status).setHeader('Content-Type', SCIM_CONTENT_TYPE);
  if (err.status === 401) res.setHeader('WWW-Authenticate', 'Bearer realm="scim"');
  res.send(JSON.stringify(body));
}
