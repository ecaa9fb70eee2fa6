/** X.509 certificates as identity providers hand them over (PEM, or bare base64). */
import { X509Certificate } from 'node:crypto';

/** A PEM certificate from PEM or bare base64 input; throws when it does not parse as X.509. */
export function normalizeCertificate(input: string): { pem: string; certificate: X509Certificate } {
  const body = input.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
  const pem = `-----BEGIN CERTIFICATE-----\n${body.match(/.{1,64}/g)?.join('\n') ?? ''}\n-----END CERTIFICATE-----\n`;
  return { pem, certificate: new X509Certificate(pem) };
}
