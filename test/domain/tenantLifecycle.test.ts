/** The tenant lifecycle gates of domain/tenantLifecycle.ts and the go-live prerequisites of domain/goLive.ts. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GO_LIVE_FROM, missingPrerequisites } from '../../domain/goLive.ts';
import { isLive, isProvisioned, lifecycleStates, mayProvision, onboardingDataRefusal, TENANT_SLUG_RULE } from '../../domain/tenantLifecycle.ts';

const which = (gate: (s: (typeof lifecycleStates)[number]) => boolean) => lifecycleStates.filter(gate);

test('provisioning runs from draft, provisioning and onboarding; data goes into onboarding and live tenants; only live ones sign in', () => {
  assert.equal(which(mayProvision), ['draft', 'provisioning', 'onboarding']);
  assert.equal(which(isProvisioned), ['onboarding', 'live']);
  assert.equal(which(isLive), ['live']);
});

test('onboarding data to a tenant not provisioned: 409, in the route’s words before provisioning', () => {
  assert.is(onboardingDataRefusal('onboarding'), null);
  assert.is(onboardingDataRefusal('draft', 'No dataset.')?.message, 'No dataset.');
  assert.is(onboardingDataRefusal('draft')?.message, "Tenant is 'draft'; onboarding data needs a provisioned tenant -- provision it first.");
  const offboarded = onboardingDataRefusal('offboarded', 'No dataset.');
  assert.is(offboarded?.code, 'conflict');
  assert.is(offboarded?.message, "Tenant is 'offboarded'; onboarding data needs a provisioned tenant -- provision it first.");
});

test('go-live names exactly the missing prerequisites, in the order of the onboarding steps', () => {
  assert.equal(missingPrerequisites({ dataset: true, checkpoint: true, invitation: true }), []);
  assert.equal(missingPrerequisites({ dataset: false, checkpoint: true, invitation: false }), ['historical data ingested', 'at least one user invited']);
  assert.equal(missingPrerequisites({ dataset: false, checkpoint: false, invitation: false }), [
    'historical data ingested',
    'a model checkpoint activated',
    'at least one user invited',
  ]);
  assert.not.ok(GO_LIVE_FROM.includes('live'));
  assert.is(GO_LIVE_FROM.length, lifecycleStates.length - 1);
});

test('a tenant slug: lowercase letters, digits and hyphens, no hyphen at either end', () => {
  for (const ok of ['acme', 'a1', 'acme-corp', '7x']) assert.ok(TENANT_SLUG_RULE.test(ok), ok);
  for (const bad of ['-acme', 'acme-', 'Acme', 'ac_me', 'ac me', '']) assert.not.ok(TENANT_SLUG_RULE.test(bad), bad);
});

test.run();
