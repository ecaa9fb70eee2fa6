/** Other callers than the demo owner, made through the real endpoints. */
import { createHash, randomUUID } from 'node:crypto';
import type { Client } from './http.ts';

/** A service account with exactly `scopes` and a bearer token for it. */
export async function serviceAccountToken(owner: Client, scopes: string[]): Promise<string> {
  const account = await owner.post('/v1/service-accounts', { name: `sa-${randomUUID().slice(0, 8)}`, scopes });
  if (account.status !== 201) throw new Error(`service account: ${account.status} ${account.text}`);
  const token = await owner.post(`/v1/service-accounts/${account.body.id}/tokens`, {
    name: 'test',
    expires_at: new Date(Date.now() + 7 * 86_400_000).toISOString(),
  });
  if (token.status !== 201) throw new Error(`service-account token: ${token.status} ${token.text}`);
  return token.body.token as string;
}

/** A provisioning key and the SVC_PROVISION_KEY_HASHES value that accepts it. */
export function provisioningKey(): { key: string; env: { SVC_PROVISION_KEY_HASHES: string } } {
  const key = `prov-${randomUUID()}`;
  return { key, env: { SVC_PROVISION_KEY_HASHES: createHash('sha256').update(key).digest('hex') } };
}

/** Provisions another organization and workspace; returns its id and API key (member scopes). */
export async function provisionWorkspace(platform: Client, key: string, slug: string): Promise<{ workspaceId: string; apiKey: string }> {
  const res = await platform.post(
    '/v1/provisioning/clients',
    { organization: { name: `Org ${slug}`, slug }, owner: { email: `owner@${slug}.example` }, send_owner_invite: false },
    { headers: { authorization: `Bearer ${key}` } },
  );
  if (res.status !== 201) throw new Error(`provisioning: ${res.status} ${res.text}`);
  return { workspaceId: res.body.workspace.id, apiKey: res.body.api_key.secret };
}
