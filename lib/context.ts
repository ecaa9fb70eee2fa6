/**
 * What every request handler and job receives: settings, the pool, the logger, the clock and the
 * process's signing keys. Built once per process (or per test app).
 */
import type { Config } from './config.ts';
import type { Pool } from './db.ts';
import type { Logger } from './logger.ts';
import { ensureGeneratedSecret } from '../sql/appSettings.ts';

/** The only source of "now" outside the database; tests inject a controllable one. */
export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };

export interface Secrets {
  /** HS256 key of access tokens: JWT_SECRET, or in development one generated and kept in the database. */
  jwtKey: Uint8Array;
  /** HMAC key that signs pagination cursors. */
  cursorKey: Buffer;
}

export interface AppContext {
  config: Config;
  pool: Pool;
  logger: Logger;
  clock: Clock;
  secrets: Secrets;
}

export async function loadSecrets(config: Config, pool: Pool): Promise<Secrets> {
  const jwt = config.JWT_SECRET ?? (await ensureGeneratedSecret(pool, 'jwt_secret'));
  const cursor = await ensureGeneratedSecret(pool, 'cursor_key');
  return { jwtKey: new TextEncoder().encode(jwt), cursorKey: Buffer.from(cursor) };
}
