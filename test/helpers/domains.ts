/** Verified e-mail domains of a workspace, through the real POST /v1/domains and its DNS TXT check. */
import * as assert from 'uvu/assert';
import type { DnsServer } from './dns.ts';
import type { Client } from './http.ts';

/** Claims and verifies each domain for the workspace of `admin` (a client bound to a workspace:admin token). */
export async function verifyDomains(admin: Client, dns: DnsServer, domains: string[]): Promise<void> {
  for (const domain of domains) {
    const claim = await admin.post('/v1/domains', { domain });
    assert.is(claim.status, 201, `claiming ${domain}: ${claim.text}`);
    dns.txt.set(claim.body.txt_record.name, [claim.body.txt_record.value]);
    const verified = await admin.post(`/v1/domains/${claim.body.id}/verify`);
    assert.is(verified.status, 200, `verifying ${domain}: ${verified.text}`);
  }
}
