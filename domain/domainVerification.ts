/** How a workspace proves it owns an e-mail domain: the DNS TXT record it publishes. Pure. */

/** The TXT record (name and value) that verifies `domain` for the claim holding `token`. */
export function verificationRecord(domain: string, token: string): { name: string; value: string } {
  return { name: `_svc-verification.${domain}`, value: `svc-verification=${token}` };
}
