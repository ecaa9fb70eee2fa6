/**
 * Password hashes: scrypt (memory-hard; OWASP's N=2^17, r=8, p=1, 16-byte salt, 32-byte key), stored
 * as `scrypt$N$r$p$salt$hash` (base64url), verified in constant time. N comes from
 * PASSWORD_SCRYPT_LOG_N (17 by default and at least 17 in production; tests lower it); a hash made
 * with weaker parameters is replaced at the next successful login (`upgradedHash`). `verifyPassword` with a null hash
 * still runs one full scrypt against a dummy, so an unknown account costs the same time as a wrong
 * password.
 */
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** The shortest password accepted when one is set (reset, invitation, CLI); login accepts any. */
export const MIN_PASSWORD_LENGTH = 8;

export const DEFAULT_SCRYPT_LOG_N = 17;
let PARAMS = { N: 2 ** DEFAULT_SCRYPT_LOG_N, r: 8, p: 1 };
const KEY_LENGTH = 32;
/** The largest N a stored hash may ask for: a forged `scrypt$2^30$…` must not allocate gigabytes. */
const MAX_N = 2 ** 20;

/** Sets N = 2^logN for new hashes in this process (from PASSWORD_SCRYPT_LOG_N at start-up). */
export function setPasswordHashCost(logN: number): void {
  PARAMS = { ...PARAMS, N: 2 ** logN };
}

function scrypt(password: string, salt: Buffer, options: { N: number; r: number; p: number } & ScryptOptions, keyLength: number): Promise<Buffer> {
  // scrypt needs 128·N·r bytes for its table plus 128·r·p for the blocks; leave headroom.
  const maxmem = 128 * options.N * options.r + 128 * options.r * options.p + 16 * 1024 * 1024;
  return new Promise((resolve, reject) =>
    scryptCallback(password.normalize('NFC'), salt, keyLength, { ...options, maxmem }, (err, key) => (err ? reject(err) : resolve(key))),
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

/**
 * After a successful verification: a new hash of `password` when `stored` was made with weaker
 * parameters than this process uses, else null. Callers replace the stored hash only if it is
 * still `stored` (a concurrent password change wins).
 */
export async function upgradedHash(password: string, stored: string): Promise<string | null> {
  const parsed = parse(stored);
  if (parsed && parsed.N >= PARAMS.N && parsed.r >= PARAMS.r && parsed.p >= PARAMS.p) return null;
  return hashPassword(password);
}

function parse(stored: string): { N: number; r: number; p: number; salt: Buffer; key: Buffer } | null {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return null;
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  if (!Object.values(params).every((v) => Number.isInteger(v) && v > 0) || params.N > MAX_N || params.r > 32 || params.p > 16) return null;
  return { ...params, salt: Buffer.from(salt, 'base64url'), key: Buffer.from(key, 'base64url') };
}
