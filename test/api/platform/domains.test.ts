/**
 * Verified e-mail domains for just-in-time sign-up (issue 18), against a local DNS server: a claim
 * answers the TXT record to publish; verification looks it up through DNS_RESOLVER; JIT admits a
 * domain only once verified; one workspace per verified domain.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sha256Hex } from '../../../lib/crypto.ts';
import { jitWorkspacesForDomain } from '../../../sql/workspaces.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { startDnsServer, type DnsServer } from '../../helpers/dns.ts';
import { assertError } from '../../helpers/errors.ts';
import { provisionWorkspace } from '../../helpers/isolation.ts';
import type { Client } from '../../helpers/http.ts';

const KEY = 'prov-domains-test-key';
let dns: DnsServer;
let t: TestApp;
let a: Client;
let b: Client;
test.before(async () => {
  dns = await startDnsServer();
  t = await startTestApp({ env: { DNS_RESOLVER: dns.address, SVC_PROVISION_KEY_HASHES: sha256Hex(KEY) } });
  a = (await provisionWorkspace(t.platform, KEY, { slug: 'dom-a', ownerEmail: 'owner@dom-a.example.com' })).owner.api;
  b = (await provisionWorkspace(t.platform, KEY, { slug: 'dom-b', ownerEmail: 'owner@dom-b.example.com' })).owner.api;
});
test.after(async () => {
  await t.close();
  await dns.close();
});

test('a claim is verified only with the TXT record; then it belongs to that workspace alone', async () => {
  const claim = await a.post('/v1/domains', { domain: 'Acme.Example' });
  assert.is(claim.status, 201, claim.text);
  assert.equal([claim.body.domain, claim.body.status], ['acme.example', 'pending']);
  assert.is(claim.body.txt_record.name, '_svc-verification.acme.example');
  assert.match(claim.body.txt_record.value, /^svc-verification=/);

  const missing = await a.post(`/v1/domains/${claim.body.id}/verify`);
  assertError(missing, 422, 'unprocessable');
  dns.txt.set('_svc-verification.acme.example', ['v=spf1 -all', 'svc-verification=wrong']);
  assertError(await a.post(`/v1/domains/${claim.body.id}/verify`), 422, 'unprocessable');

  // B claims the same domain while it is pending: allowed, but only one can verify it.
  const rival = await b.post('/v1/domains', { domain: 'acme.example' });
  assert.is(rival.status, 201);
  dns.txt.set('_svc-verification.acme.example', [claim.body.txt_record.value, rival.body.txt_record.value]);
  const verified = await a.post(`/v1/domains/${claim.body.id}/verify`);
  assert.is(verified.status, 200, verified.text);
  assert.is(verified.body.status, 'verified');
  assertError(await b.post(`/v1/domains/${rival.body.id}/verify`), 409, 'conflict');
  assertError(await b.post('/v1/domains', { domain: 'acme.example' }), 409, 'conflict');
  assert.is((await a.get('/v1/domains')).body.data[0].status, 'verified');
  assertError(await b.post(`/v1/domains/${claim.body.id}/verify`), 404, 'not_found');

  // Released by A, the domain can be verified by B.
  assert.is((await a.delete(`/v1/domains/${claim.body.id}`)).status, 204);
  assert.is((await b.post(`/v1/domains/${rival.body.id}/verify`)).body.status, 'verified');
});

test('just-in-time sign-up admits only a domain the workspace has verified', async () => {
  await t.app.pool.query(`update workspaces set jit_enabled = true, jit_domains = '{unverified.example}' where id = $1`, [t.demo.workspaceId]);
  assert.equal(await jitWorkspacesForDomain(t.app.pool, 'unverified.example'), [], 'a listed but unverified domain admits nobody');
  await t.app.pool.query(
    `insert into workspace_domains (workspace_id, domain, verification_token, verified_at) values ($1, 'unverified.example', 't', now())`,
    [t.demo.workspaceId],
  );
  assert.equal(
    (await jitWorkspacesForDomain(t.app.pool, 'unverified.example')).map((w) => w.id),
    [t.demo.workspaceId],
  );
});

test.run();
