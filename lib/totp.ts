/**
 * Time-based one-time passwords: HOTP (RFC 4226) over the time step T = floor(unix / 30) (RFC 6238),
 * HMAC-SHA-1, 6 digits by default. Base32 (RFC 4648, no padding) for the shared secret as
 * authenticator apps expect it in `otpauth://` URIs.
 */
import { createHmac } from 'node:crypto';

export const TOTP_STEP_SECONDS = 30;
export const TOTP_DIGITS = 6;
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function base32Encode(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

export function base32Decode(text: string): Buffer {
  const clean = text.toUpperCase().replace(/=+$/, '');
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of clean) {
    const index = BASE32.indexOf(char);
    if (index < 0) throw new Error('invalid base32');
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** RFC 4226 section 5.3: dynamic truncation of HMAC(secret, counter) to `digits` decimal digits. */
export function hotp(secret: Buffer, counter: number, digits = TOTP_DIGITS, algorithm: 'sha1' | 'sha256' | 'sha512' = 'sha1'): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac(algorithm, secret).update(message).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const binary = ((mac[offset] & 0x7f) << 24) | (mac[offset + 1] << 16) | (mac[offset + 2] << 8) | mac[offset + 3];
  return String(binary % 10 ** digits).padStart(digits, '0');
}

export const totpStep = (unixMs: number): number => Math.floor(unixMs / 1000 / TOTP_STEP_SECONDS);

export function totp(secret: Buffer, unixMs: number, digits = TOTP_DIGITS, algorithm: 'sha1' | 'sha256' | 'sha512' = 'sha1'): string {
  return hotp(secret, totpStep(unixMs), digits, algorithm);
}

/**
 * The step `code` belongs to within one step of drift either way of `unixMs`, or null. Every
 * candidate is computed (no early exit) so timing does not reveal which step matched.
 */
export function matchTotpStep(secret: Buffer, code: string, unixMs: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const now = totpStep(unixMs);
  let matched: number | null = null;
  for (const step of [now - 1, now, now + 1]) {
    if (hotp(secret, step) === code && matched === null) matched = step;
  }
  return matched;
}

export function otpauthUri(secret: Buffer, account: string, issuer: string): string {
  const label = encodeURIComponent(`${issuer}:${account}`);
  const params = new URLSearchParams({
    secret: base32Encode(secret),
    issuer,
    algorithm: 'SHA1',
    digits: String(TOTP_DIGITS),
    period: String(TOTP_STEP_SECONDS),
  });
  return `otpauth://totp/${label}?${params.toString()}`;
}
