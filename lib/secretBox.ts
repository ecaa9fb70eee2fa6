/**
 * Secrets the service must use again, encrypted at rest with AES-256-GCM: webhook signing secrets
 * (Secrets.webhookKey), TOTP seeds and OIDC client secrets (Secrets.encryptionKey) as
 * `v1.<iv>.<tag>.<ciphertext>` (base64url) through sealSecret/openSecret; cached idempotent
 * responses and other one-time secrets through a SecretBox (Secrets.secretBox, SECRETS_KEY), whose
 * boxes are bound to their use by additional authenticated data.
 * A wrong key or a modified value fails to decrypt instead of yielding garbage.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

export function sealSecret(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
}

export function openSecret(key: Buffer, sealed: string): string {
  const [version, iv, tag, ciphertext] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || ciphertext === undefined) throw new Error('not a sealed secret');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}

/** A 256-bit key from a setting of any length (WEBHOOK_SECRET_KEY). */
export const keyFromSetting = (value: string): Buffer => createHash('sha256').update(value).digest();

/** A 256-bit key derived from another secret for one purpose (HKDF-SHA256), so the two never coincide. */
export const deriveKey = (secret: string, purpose: string): Buffer => Buffer.from(hkdfSync('sha256', secret, 'svc', purpose, 32));

/** The key of Secrets.encryptionKey from SVC_ENCRYPTION_KEY, JWT_SECRET or the generated development secret. */
export const deriveEncryptionKey = (material: string): Buffer => deriveKey(material, 'svc secret box v1');

export interface SecretBox {
  encrypt(plaintext: string, context?: string): string;
  /** Throws when the box was not sealed by this key for this context, or was altered. */
  decrypt(box: string, context?: string): string;
}

const BOX_VERSION = 'v1';

export function createSecretBox(secret: string): SecretBox {
  const key = Buffer.from(hkdfSync('sha256', secret, 'svc', 'svc secret box v1', 32));
  return {
    encrypt(plaintext, context = '') {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(context));
      const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [BOX_VERSION, iv.toString('base64url'), data.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
    },
    decrypt(box, context = '') {
      const [version, iv, data, tag] = box.split('.');
      if (version !== BOX_VERSION || iv === undefined || data === undefined || tag === undefined) throw new Error('not a secret box');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
