/**
 * Password hashes: scrypt (memory-hard; N=2^14, r=8, p=1, 16-byte salt, 32-byte key), stored as
 * `scrypt$N$r$p$salt$hash` (base64url), verified in constant time. `verifyPassword` with a null hash
 * still runs one full scrypt against a dummy, so an unknown account costs the same time as a wrong
 * password.
 */
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** The shortest password accepted when one is set (reset, invitation, CLI); login accepts any. */
export const MIN_PASSWORD_LENGTH = 8;

const PARAMS = { N: 16_384, r: 8, p: 1 };
const KEY_LENGTH = 32;

function scrypt(password: string, salt: Buffer, options: ScryptOptions, keyLength: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCallback(password.normalize('NFC'), salt, keyLength, { ...options, maxmem: 64 * 1024 * 1024 }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, PARAMS, KEY_LENGTH);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

let dummyHash: Promise<string> | undefined;

/** True when `password` matches `stored`; a missing or malformed hash is false after the same work. */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const parsed = stored ? parse(stored) : null;
  if (!parsed) {
    await verifyPassword(password, await (dummyHash ??= hashPassword('not a password anyone uses')));
    return false;
  }
  const key = await scrypt(password, parsed.salt, { N: parsed.N, r: parsed.r, p: parsed.p }, parsed.key.length);
  return timingSafeEqual(key, parsed.key);
}

function parse(stored: string): { N: number; r: number; p: number; salt: Buffer; key: Buffer } | null {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return null;
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  if (!Object.values(params).every((v) => Number.isInteger(v) && v > 0)) return null;
  return { ...params, salt: Buffer.from(salt, 'base64url'), key: Buffer.from(key, 'base64url') };
}
