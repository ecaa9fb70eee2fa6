/**
 * What every request handler and job receives: settings, the pool, the logger, the clock and the
 * process's signing keys (loaded by usecases/loadSecrets.ts). Built once per process (or per test app).
 */
import type { Config } from './config.ts';
import type { Pool } from './db.ts';
import type { Logger } from './logger.ts';
import type { ReadReplica } from './readReplica.ts';
import type { KeyRing } from './keyRing.ts';
import type { SecretBox } from './secretBox.ts';

/** The only source of "now" outside the database; tests inject a controllable one. */
export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };

export interface Secrets {
  /** HS256 key of access tokens: JWT_SECRET, or in development one generated and kept in the database. */
  jwtKey: Uint8Array;
  /** HMAC keys of pagination cursors: CURSOR_KEY, else generated and kept in the database (app_settings). */
  cursorKey: KeyRing;
  /** HMAC keys of export download URLs, a key of their own: EXPORT_URL_KEY, else generated and kept in the database. */
  exportUrlKey: KeyRing;
  /** Keys the members' chat signing secrets derive from: CHAT_SIGNING_KEY, else generated and kept in the database. */
  chatSigningKey: KeyRing;
  /** AES-256 key of webhook signing secrets at rest: WEBHOOK_SECRET_KEY, else derived from JWT_SECRET, else generated and kept in the database. */
  webhookKey: Buffer;
  /** AES-256-GCM key of secrets stored encrypted (lib/secretBox.ts). */
  encryptionKey: Buffer;
  /** Encrypts secrets that must be replayed: SECRETS_KEY, or in development one kept in the database. */
  secretBox: SecretBox;
  /** HMAC keys that bind CSRF tokens to the sessions they were issued with: CSRF_KEY, else generated and kept in the database. */
  csrfKey: KeyRing;
}

export interface AppContext {
  config: Config;
  pool: Pool;
  logger: Logger;
  clock: Clock;
  secrets: Secrets;
  /** DATABASE_REPLICA_URL: lag-tolerant /v1 reads may be served there (lib/readReplica.ts). */
  replica?: ReadReplica;
  /**
   * A URL that reaches Postgres itself, not a transaction-mode pooler (DATABASE_DIRECT_URL): for what
   * needs a session of its own (LISTEN, export children). Unset: the pool's own URL.
   */
  directDatabaseUrl?: string;
}
