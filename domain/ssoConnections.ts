/** Rules of a workspace's SSO connections. Pure. */
import { AppError } from '../lib/errors.ts';

const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, '');

/**
 * A SAML connection may not name the platform's own identity provider (OIDC_ISSUER) as its IdP: the
 * identity links are namespaced anyway; this is a clear error. Null when the entity id is allowed.
 */
export function platformIssuerRefusal(entityId: string | null, platformIssuer: string | undefined): AppError | null {
  if (!entityId || !platformIssuer || withoutTrailingSlash(entityId) !== withoutTrailingSlash(platformIssuer)) return null;
  return new AppError('validation_error', 'Request validation failed', { 'saml.idp_entity_id': "must not be the platform's identity provider (OIDC_ISSUER)" });
}

/** An OIDC issuer as stored: without a trailing slash. */
export const oidcIssuer = withoutTrailingSlash;
