/**
 * Which passwords this process runs scrypt on. The test app serves HTTP in the test's own process, so
 * wrapping node:crypto's `scrypt` (and re-syncing the ES-module bindings that lib/passwords.ts
 * imported) observes every hash and verification the server computes, without any timing.
 */
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';

export interface ScryptRecorder {
  /** The passwords scrypt ran on since `recordScryptCalls()`, in order (NFC, as lib/passwords.ts passes them). */
  readonly passwords: readonly string[];
  /** How many of the calls were on `password`. */
  callsOn(password: string): number;
  restore(): void;
}

export function recordScryptCalls(): ScryptRecorder {
  const original = crypto.scrypt;
  const passwords: string[] = [];
  const wrapped = (password: crypto.BinaryLike, ...rest: unknown[]) => {
    passwords.push(typeof password === 'string' ? password : Buffer.from(password as Uint8Array).toString('utf8'));
    return (original as (...args: unknown[]) => void)(password, ...rest);
  };
  crypto.scrypt = wrapped as typeof crypto.scrypt;
  syncBuiltinESMExports();
  return {
    passwords,
    callsOn: (password) => passwords.filter((p) => p === password.normalize('NFC')).length,
    restore() {
      crypto.scrypt = original;
      syncBuiltinESMExports();
    },
  };
}
