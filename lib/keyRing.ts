/**
 * Rotatable HMAC keys (issue 26): the first key signs, every key of the ring verifies. An operator
 * rotates a key without downtime by putting the new one first and keeping the old one after it for a
 * grace period (as long as what it signed may still come back: docs/configuration.md), then dropping it.
 */
import { constantTimeEqual } from './crypto.ts';

export interface KeyRing {
  /** Signs. */
  current: Buffer;
  /** Verify: the current key, then the previous ones. */
  all: readonly Buffer[];
}

/** A ring from a setting's comma-separated keys (first = current), or from one generated key. */
export function keyRing(keys: readonly string[]): KeyRing {
  if (!keys.length) throw new Error('a key ring needs at least one key');
  const all = keys.map((k) => Buffer.from(k));
  return { current: all[0], all };
}

/** True when `presented` equals `sign(key)` for a key of the ring; every key is tried (no early exit). */
export function ringVerifies(ring: KeyRing, presented: string, sign: (key: Buffer) => string): boolean {
  let match = false;
  for (const key of ring.all) match = constantTimeEqual(sign(key), presented) || match;
  return match;
}
