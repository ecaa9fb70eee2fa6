/**
 * SAML responses as an identity provider would POST them, with the assertion signed (xml-crypto,
 * RSA-SHA256, exclusive C14N) by a test key pair kept in test/fixtures/saml (`idp`, or `other` for
 * an untrusted signer). Every field the service checks can be set, to test refusal.
 */
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import { SignedXml } from 'xml-crypto';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/saml/${name}`, import.meta.url), 'utf8');
export const idpCertificate = fixture('idp.crt');
export const otherCertificate = fixture('other.crt');

export interface AssertionOptions {
  issuer: string;
  audience: string;
  recipient: string;
  destination?: string;
  nameId: string;
  email?: string;
  inResponseTo?: string;
  notBefore?: Date;
  notOnOrAfter?: Date;
  assertionId?: string;
  key?: 'idp' | 'other';
  /** Applied to the signed XML (to tamper with it after signing). */
  afterSigning?: (xml: string) => string;
}

const escapeXml = (value: string) => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

/** A base64 SAMLResponse. */
export function samlResponse(o: AssertionOptions): string {
  const now = new Date();
  const notBefore = (o.notBefore ?? new Date(now.getTime() - 60_000)).toISOString();
  const notOnOrAfter = (o.notOnOrAfter ?? new Date(now.getTime() + 5 * 60_000)).toISOString();
  const inResponseTo = o.inResponseTo ? ` InResponseTo="${escapeXml(o.inResponseTo)}"` : '';
  const xml =
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_${randomUUID()}" Version="2.0" IssueInstant="${now.toISOString()}"` +
    `${o.destination ? ` Destination="${escapeXml(o.destination)}"` : ''}${inResponseTo}>` +
    `<saml:Issuer>${escapeXml(o.issuer)}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
    `<saml:Assertion ID="${escapeXml(o.assertionId ?? `_${randomUUID()}`)}" Version="2.0" IssueInstant="${now.toISOString()}">` +
    `<saml:Issuer>${escapeXml(o.issuer)}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${escapeXml(o.nameId)}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">` +
    `<saml:SubjectConfirmationData NotOnOrAfter="${notOnOrAfter}" Recipient="${escapeXml(o.recipient)}"${inResponseTo}/>` +
    `</saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${notBefore}" NotOnOrAfter="${notOnOrAfter}"><saml:AudienceRestriction><saml:Audience>${escapeXml(o.audience)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${now.toISOString()}" SessionIndex="_${randomUUID()}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    (o.email
      ? `<saml:AttributeStatement><saml:Attribute Name="email"><saml:AttributeValue>${escapeXml(o.email)}</saml:AttributeValue></saml:Attribute></saml:AttributeStatement>`
      : '') +
    `</saml:Assertion></samlp:Response>`;
  const key = o.key ?? 'idp';
  const signer = new SignedXml({
    privateKey: fixture(`${key}.key`),
    publicCert: fixture(`${key}.crt`),
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  signer.addReference({
    xpath: "//*[local-name(.)='Assertion']",
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
  });
  signer.computeSignature(xml, { location: { reference: "//*[local-name(.)='Assertion']/*[local-name(.)='Issuer']", action: 'after' } });
  const signed = o.afterSigning ? o.afterSigning(signer.getSignedXml()) : signer.getSignedXml();
  return Buffer.from(signed).toString('base64');
}

/** The ID of the AuthnRequest in an HTTP-Redirect binding URL. */
export function authnRequestId(redirectUrl: string): string {
  const request = new URL(redirectUrl).searchParams.get('SAMLRequest')!;
  const xml = inflateRawSync(Buffer.from(request, 'base64')).toString('utf8');
  return /\sID="([^"]+)"/.exec(xml)![1];
}
