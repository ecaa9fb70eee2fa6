/**
 * The sign-in decision of domain/signInPolicy.ts and the factor rules of domain/mfaFactors.ts as pure
 * functions: the SSO demand, what a second factor asks of a sign-in, the refresh-token lifetime.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { factorLocked, lockUntil, normalizeRecoveryCode, smsChallengeOpen, totpStepUsable } from '../../domain/mfaFactors.ts';
import { methodRefused, nextFactorStep, refreshRefusal, TOKEN_FAMILY_MAX_AGE_MS } from '../../domain/signInPolicy.ts';

const now = new Date('2026-03-01T12:00:00Z');
const later = (ms: number) => new Date(now.getTime() + ms);
const totp = (id: string, locked_until: Date | null = null) => ({ id, type: 'totp' as const, locked_until });
const sms = (id: string, locked_until: Date | null = null) => ({ id, type: 'sms' as const, locked_until });

test('a workspace that requires SSO refuses every other sign-in', () => {
  assert.is(methodRefused({ sso_required: true }, 'exchange')?.code, 'sso_required');
  assert.is(methodRefused({ sso_required: true }, 'sso'), null);
  assert.is(methodRefused({ sso_required: false }, 'exchange'), null);
});

test('no factor: the sign-in proceeds, code or not', () => {
  assert.equal(nextFactorStep([], false, now), { step: 'proceed' });
  assert.equal(nextFactorStep([], true, now), { step: 'proceed' });
});

test('a factor and no code: mfa_required naming every factor, SMS codes sent to the open SMS factors only', () => {
  const next = nextFactorStep([totp('t'), sms('s1'), sms('s2', later(60_000))], false, now);
  assert.is(next.step, 'challenge');
  if (next.step !== 'challenge') return;
  assert.equal(
    next.smsFactors.map((f) => f.id),
    ['s1'],
  );
  assert.is(next.error.code, 'mfa_required');
  assert.equal((next.error.details as { factors: unknown }).factors, [
    { id: 't', type: 'totp' },
    { id: 's1', type: 'sms' },
    { id: 's2', type: 'sms' },
  ]);
});

test('a code with every factor locked: 429 with Retry-After; otherwise the open factors are checked', () => {
  const locked = nextFactorStep([totp('t', later(90_500))], true, now);
  assert.is(locked.step, 'locked');
  if (locked.step === 'locked') {
    assert.is(locked.error.code, 'rate_limited');
    assert.equal(locked.error.headers, { 'Retry-After': '91' });
  }
  const check = nextFactorStep([totp('t', later(1000)), sms('s')], true, now);
  assert.equal(check, { step: 'check_code', open: [sms('s')] });
  // A lock that ended is no lock.
  assert.is(factorLocked({ locked_until: now }, now), null);
  assert.equal(lockUntil(now), later(15 * 60_000));
});

test('a TOTP step is used once; an SMS challenge lives until it expires; recovery codes ignore case, spaces and dashes', () => {
  assert.ok(totpStepUsable({ last_used_step: null }, 5));
  assert.ok(totpStepUsable({ last_used_step: '4' }, 5));
  assert.not.ok(totpStepUsable({ last_used_step: '5' }, 5));
  assert.ok(smsChallengeOpen({ challenge_hash: 'h', challenge_expires_at: later(1) }, now));
  assert.not.ok(smsChallengeOpen({ challenge_hash: 'h', challenge_expires_at: now }, now));
  assert.not.ok(smsChallengeOpen({ challenge_hash: null, challenge_expires_at: later(1) }, now));
  assert.is(normalizeRecoveryCode('abcde-fghij'), normalizeRecoveryCode(' ABCDE FGHIJ'));
});

test('a refresh token: reuse first, then its expiry, then the sign-in’s absolute lifetime', () => {
  const fresh = { expires_at: later(1000), rotated_at: null };
  assert.is(refreshRefusal(fresh, { created_at: now }, now), null);
  assert.is(refreshRefusal({ ...fresh, rotated_at: now }, { created_at: later(-TOKEN_FAMILY_MAX_AGE_MS) }, now), 'reused');
  assert.is(refreshRefusal({ expires_at: now, rotated_at: null }, { created_at: later(-TOKEN_FAMILY_MAX_AGE_MS) }, now), 'expired');
  assert.is(refreshRefusal(fresh, { created_at: later(-TOKEN_FAMILY_MAX_AGE_MS) }, now), 'absolute_lifetime');
  assert.is(refreshRefusal(fresh, { created_at: later(1 - TOKEN_FAMILY_MAX_AGE_MS) }, now), null);
});

test.run();
