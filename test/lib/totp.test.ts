import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { base32Decode, base32Encode, hotp, matchTotpStep, otpauthUri, totp } from '../../lib/totp.ts';
import { deriveEncryptionKey, openSecret, sealSecret } from '../../lib/secretBox.ts';

// RFC 6238 appendix B: the SHA-1 seed is the ASCII string "12345678901234567890", 8 digits.
const SEED = Buffer.from('12345678901234567890', 'ascii');
const RFC6238_SHA1: Array<[number, string]> = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
];

test('TOTP matches the RFC 6238 SHA-1 test vectors', () => {
  for (const [seconds, expected] of RFC6238_SHA1) assert.is(totp(SEED, seconds * 1000, 8), expected, `T=${seconds}`);
});

test('HOTP matches the RFC 4226 appendix D values', () => {
  const expected = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
  expected.forEach((code, counter) => assert.is(hotp(SEED, counter), code));
});

test('six-digit codes are accepted one step either way and no further', () => {
  const at = 1111111111_000;
  for (const offset of [-30_000, 0, 30_000]) assert.ok(matchTotpStep(SEED, totp(SEED, at + offset), at) !== null, `offset ${offset}`);
  for (const offset of [-60_000, 60_000]) assert.is(matchTotpStep(SEED, totp(SEED, at + offset), at), null, `offset ${offset}`);
  assert.is(matchTotpStep(SEED, totp(SEED, at), at), Math.floor(at / 30_000));
  assert.is(matchTotpStep(SEED, 'abcdef', at), null);
  assert.is(matchTotpStep(SEED, '1234567', at), null);
});

test('base32 round-trips (RFC 4648 vectors) and the otpauth URI names the secret', () => {
  assert.is(base32Encode(Buffer.from('foobar')), 'MZXW6YTBOI');
  assert.is(base32Decode('MZXW6YTBOI').toString(), 'foobar');
  assert.is(base32Decode('mzxw6ytboi======').toString(), 'foobar');
  const uri = new URL(otpauthUri(SEED, 'a@example.com', 'svc'));
  assert.is(uri.protocol, 'otpauth:');
  assert.is(base32Decode(uri.searchParams.get('secret')!).toString(), '12345678901234567890');
  assert.is(uri.searchParams.get('digits'), '6');
  assert.is(uri.searchParams.get('period'), '30');
});

test('sealed secrets open with the same key only, and tampering is detected', () => {
  const key = deriveEncryptionKey('k'.repeat(40));
  const sealed = sealSecret(key, 'JBSWY3DPEHPK3PXP');
  assert.not.ok(sealed.includes('JBSWY3DPEHPK3PXP'));
  assert.is(openSecret(key, sealed), 'JBSWY3DPEHPK3PXP');
  assert.throws(() => openSecret(deriveEncryptionKey('other'.repeat(10)), sealed));
  const parts = sealed.split('.');
  parts[3] = Buffer.from('XXXXXXXXXXXXXXXX').toString('base64url');
  assert.throws(() => openSecret(key, parts.join('.')));
});

test.run();
