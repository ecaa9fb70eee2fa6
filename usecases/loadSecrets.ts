/**
 * The process's keys at start-up: each from its setting, or derived from JWT_SECRET, or (in
 * development) generated once and kept in app_settings so that every process of one database agrees.
 */
import type { Config } from '../lib/config.ts';
import type { Secrets } from '../lib/context.ts';
import type { Pool } from '../lib/db.ts';
import { keyRing } from '../lib/keyRing.ts';
import { createSecretBox, deriveEncryptionKey, deriveKey, keyFromSetting } from '../lib/secretBox.ts';
import { ensureGeneratedSecret } from '../sql/appSettings.ts';

export async function loadSecrets(config: Config, pool: Pool): Promise<Secrets> {
  const jwt = config.JWT_SECRET ?? (await ensureGeneratedSecret(pool, 'jwt_secret'));
  const ring = async (configured: readonly string[], setting: string) => keyRing(configured.length ? configured : [await ensureGeneratedSecret(pool, setting)]);
  const webhookKey = config.WEBHOOK_SECRET_KEY
    ? keyFromSetting(config.WEBHOOK_SECRET_KEY)
    : config.JWT_SECRET
      ? deriveKey(config.JWT_SECRET, 'webhook-secrets')
      : keyFromSetting(await ensureGeneratedSecret(pool, 'webhook_secret_key'));
  const encryption = config.SVC_ENCRYPTION_KEY ?? config.JWT_SECRET ?? (await ensureGeneratedSecret(pool, 'encryption_key'));
  const secretsKey = config.SECRETS_KEY ?? (await ensureGeneratedSecret(pool, 'secrets_key'));
  return {
    jwtKey: new TextEncoder().encode(jwt),
    cursorKey: await ring(config.CURSOR_KEY, 'cursor_key'),
    exportUrlKey: await ring(config.EXPORT_URL_KEY, 'export_url_key'),
    chatSigningKey: await ring(config.CHAT_SIGNING_KEY, 'chat_signing_key'),
    webhookKey,
    encryptionKey: deriveEncryptionKey(encryption),
    secretBox: createSecretBox(secretsKey),
    csrfKey: await ring(config.CSRF_KEY, 'csrf_key'),
  };
}
