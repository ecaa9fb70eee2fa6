/**
 * SAML 2.0 sign-in through a workspace's connection, with `@node-saml/node-saml`: the SP-initiated
 * AuthnRequest (HTTP-Redirect binding, RelayState = our state), and at the assertion consumer
 * service a response whose assertion must be signed by the connection's IdP certificate, issued by
 * its entity id, addressed to our SP entity id (audience) and to our ACS URL (Recipient, and
 * Destination when present), inside its time window (NotBefore / NotOnOrAfter, 60 s of skew), and
 * not seen before (its ID is recorded until it expires).
 */
import { randomUUID } from 'node:crypto';
import { SAML, ValidateInResponseTo, type Profile } from '@node-saml/node-saml';
import { normalizeCertificate } from '../../../lib/certificates.ts';
import { AppError } from '../../../lib/errors.ts';
import type { SsoConnectionRow } from '../../../sql/sso.ts';

export const SAML_CLOCK_SKEW_MS = 60_000;

export interface SamlEndpoints {
  /** Our SP entity id for this connection (its metadata URL). */
  spEntityId: string;
  acsUrl: string;
}

export const samlEndpoints = (base: string, connectionId: string): SamlEndpoints => ({
  spEntityId: `${base}/v1/sso/connections/${connectionId}/metadata`,
  acsUrl: `${base}/v1/auth/sso/saml/acs`,
});

function samlFor(connection: SsoConnectionRow, endpoints: SamlEndpoints, requestId?: string): SAML {
  return new SAML({
    callbackUrl: endpoints.acsUrl,
    entryPoint: connection.saml_idp_sso_url!,
    issuer: endpoints.spEntityId,
    audience: endpoints.spEntityId,
    idpCert: connection.saml_idp_certificate!,
    idpIssuer: connection.saml_idp_entity_id!,
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    acceptedClockSkewMs: SAML_CLOCK_SKEW_MS,
    // InResponseTo is checked against the request id stored with our state, not node-saml's cache.
    validateInResponseTo: ValidateInResponseTo.never,
    identifierFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
    disableRequestedAuthnContext: true,
    generateUniqueId: () => requestId ?? `_${randomUUID()}`,
  });
}

export function spMetadataXml(connection: SsoConnectionRow, endpoints: SamlEndpoints): string {
  return samlFor(connection, endpoints).generateServiceProviderMetadata(null, null);
}

export async function samlAuthorizeUrl(connection: SsoConnectionRow, endpoints: SamlEndpoints, state: string, requestId: string): Promise<string> {
  return samlFor(connection, endpoints, requestId).getAuthorizeUrlAsync(state, undefined, {});
}

/** POST /v1/sso/connections/{id}/test for SAML: the certificate parses and is current, our metadata builds. */
export function testSamlConnection(connection: SsoConnectionRow, endpoints: SamlEndpoints, now: Date): { ok: boolean; detail: string } {
  try {
    const { certificate } = normalizeCertificate(connection.saml_idp_certificate!);
    if (new Date(certificate.validTo) <= now) return { ok: false, detail: `the IdP certificate expired on ${certificate.validTo}` };
    if (new Date(certificate.validFrom) > now) return { ok: false, detail: `the IdP certificate is not valid before ${certificate.validFrom}` };
    const metadata = spMetadataXml(connection, endpoints);
    if (!metadata.includes('AssertionConsumerService')) return { ok: false, detail: 'SP metadata could not be built' };
    return { ok: true, detail: `certificate ${certificate.subject.replace(/\n/g, ', ')} valid until ${certificate.validTo}; SP metadata ready` };
  } catch (err) {
    return { ok: false, detail: `the IdP certificate does not parse: ${(err as Error).message}` };
  }
}

const invalidAssertion = (reason: string) => new AppError('invalid_grant', 'The SAML response could not be verified', { reason });

type XmlNode = { $?: Record<string, string>; _?: string } & Record<string, unknown>;
const first = (node: unknown, key: string): XmlNode | undefined => ((node as Record<string, XmlNode[] | undefined>)?.[key] ?? [])[0];

export interface VerifiedAssertion {
  assertionId: string;
  inResponseTo: string | null;
  expiresAt: Date;
  profile: Profile;
}

export async function verifySamlResponse(connection: SsoConnectionRow, endpoints: SamlEndpoints, samlResponse: string): Promise<VerifiedAssertion> {
  let profile: Profile | null;
  try {
    ({ profile } = await samlFor(connection, endpoints).validatePostResponseAsync({ SAMLResponse: samlResponse }));
  } catch (err) {
    throw invalidAssertion((err as Error).message);
  }
  if (!profile) throw invalidAssertion('the response carries no assertion');
  const assertion = (profile.getAssertion?.() as { Assertion?: XmlNode } | undefined)?.Assertion;
  const assertionId = assertion?.$?.ID;
  if (!assertion || !assertionId) throw invalidAssertion('the assertion has no ID');
  if (profile.issuer !== connection.saml_idp_entity_id)
    throw invalidAssertion(`the assertion was issued by ${profile.issuer}, not ${connection.saml_idp_entity_id}`);
  // Recipient: the bearer confirmation must name our ACS URL (node-saml does not check it).
  const confirmations = ((first(assertion, 'Subject')?.SubjectConfirmation ?? []) as XmlNode[]).map(
    (c) => (first(c, 'SubjectConfirmationData')?.$ ?? {}) as Record<string, string | undefined>,
  );
  if (!confirmations.length || !confirmations.every((data) => data.Recipient === endpoints.acsUrl)) {
    throw invalidAssertion(`the assertion is not addressed to ${endpoints.acsUrl}`);
  }
  const destination = /<(?:\w+:)?Response\b[^>]*\sDestination="([^"]*)"/.exec(Buffer.from(samlResponse, 'base64').toString('utf8'))?.[1];
  if (destination !== undefined && destination !== endpoints.acsUrl) throw invalidAssertion(`the response is addressed to ${destination}`);
  const notOnOrAfter = first(assertion, 'Conditions')?.$?.NotOnOrAfter ?? confirmations[0].NotOnOrAfter;
  const expiresAt = new Date(new Date(notOnOrAfter ?? Date.now() + 3600_000).getTime() + SAML_CLOCK_SKEW_MS);
  const inResponseTo = typeof profile.inResponseTo === 'string' ? profile.inResponseTo : (confirmations[0].InResponseTo ?? null);
  return { assertionId, inResponseTo, expiresAt, profile };
}
