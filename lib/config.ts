/**
 * Settings, parsed once from the environment at start-up (CONTRACT.md's table).
 * This is the only module that reads `process.env`; everything else receives a `Config`.
 */
import { z } from 'zod';
import { parseAllowlist } from './outbound/addressPolicy.ts';

// Digits only: an empty value (`PLATFORM_PORT=`) must not coerce to 0, a random port.
const port = z
  .string()
  .regex(/^\d{1,5}$/, 'must be a port number (0-65535)')
  .transform(Number)
  .pipe(z.number().int().max(65535, 'must be a port number (0-65535)'));
const optionalString = z.string().trim().min(1).optional();
const flag = z
  .string()
  .optional()
  .transform((v) => v !== undefined && v !== '' && !['0', 'false', 'no', 'off'].includes(v.toLowerCase()));

const hexSha256List = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.string().regex(/^[0-9a-f]{64}$/, 'must be comma-separated lowercase hex SHA-256 hashes')));

const postgresUrl = z
  .string()
  .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
  .optional();

const allowlistIsValid = (entries: string[]) => {
  try {
    parseAllowlist(entries);
    return true;
  } catch {
    return false;
  }
};

/** Comma-separated keys of at least 32 characters each (the first signs; the others are still accepted). */
const keyList = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? '')
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean),
  )
  .refine((keys) => keys.every((k) => k.length >= 32), 'every key must be at least 32 characters');

export const configSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
    DATABASE_URL: z.preprocess((v) => (v === '' ? undefined : v), postgresUrl),
    DATABASE_DIRECT_URL: z.preprocess((v) => (v === '' ? undefined : v), postgresUrl),
    DATABASE_REPLICA_URL: z.preprocess((v) => (v === '' ? undefined : v), postgresUrl),
    DATABASE_POOL_MODE: z.enum(['session', 'transaction']).default('session'),
    PLATFORM_PORT: port.default(8080),
    PRODUCT_PORT: port.default(8081),
    METRICS_PORT: port.default(9464),
    METRICS_HOST: z.string().min(1).default('127.0.0.1'),
    HOST: z.string().min(1).default('127.0.0.1'),
    AUTH_PROVIDER: z.enum(['none', 'oidc']).default('none'),
    OIDC_ISSUER: z.url().optional(),
    OIDC_AUDIENCE: optionalString,
    OIDC_JWKS_URL: z.url().optional(),
    JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    SVC_PROVISION_KEY_HASHES: hexSha256List,
    SMTP_URL: optionalString,
    MAIL_FROM: z.string().min(3).default('svc <no-reply@svc.local>'),
    /** Unset: the console, `http://127.0.0.1:<CONSOLE_PORT>` (resolved below, once CONSOLE_PORT is known). */
    APP_URL: z
      .url()
      .optional()
      .transform((u) => u?.replace(/\/+$/, '')),
    CONSOLE_PORT: port.default(8082),
    /** Unset: the local product surface, `http://127.0.0.1:<PRODUCT_PORT>`. */
    PRODUCT_URL: z
      .url()
      .optional()
      .transform((u) => u?.replace(/\/+$/, '')),
    CONSOLE_PROXY_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    CONSOLE_PROXY_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(120_000),
    RATE_LIMIT_STORE: z.enum(['memory', 'postgres']).default('memory'),
    TRUST_PROXY: flag,
    WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
    LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
    DATA_DIR: z.string().min(1).default('.data'),
    EXPORT_TTL_HOURS: z.coerce
      .number()
      .int()
      .min(1)
      .max(24 * 30)
      .default(24),
    WORKER_HEARTBEAT_INTERVAL_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
    WORKER_DEAD_AFTER_MS: z.coerce.number().int().min(500).max(600_000).default(40_000),
    SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(25_000),
    DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
    DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(86_400_000).default(120_000),
    DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: z.coerce.number().int().min(0).max(86_400_000).default(60_000),
    OUTBOUND_ALLOWLIST: z
      .string()
      .optional()
      .transform((v) =>
        (v ?? '')
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      )
      .refine(allowlistIsValid, 'must be comma-separated host names, IP addresses or CIDRs'),
    WEBHOOK_SECRET_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
    WEBHOOK_RETRY_SCALE: z.coerce.number().positive('must be a positive number').max(1, 'must be at most 1').default(1),
    REALTIME_PING_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
    REALTIME_MAX_BUFFERED_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
    SVC_ENCRYPTION_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
    PLATFORM_URL: z
      .url()
      .optional()
      .transform((u) => u?.replace(/\/+$/, '')),
    SMS_WEBHOOK_URL: z.url().optional(),
    SECRETS_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
    PASSWORD_SCRYPT_LOG_N: z.coerce.number().int().min(10).max(20).default(17),
    DNS_RESOLVER: optionalString,
    // Rotatable HMAC keys (issue 26): comma-separated, the first signs and every one verifies.
    CURSOR_KEY: keyList,
    CSRF_KEY: keyList,
    CHAT_SIGNING_KEY: keyList,
    EXPORT_URL_KEY: keyList,
  })
  .superRefine((c, issues) => {
    if (c.NODE_ENV === 'production') {
      if (c.AUTH_PROVIDER === 'none') {
        issues.addIssue({ code: 'custom', path: ['AUTH_PROVIDER'], message: 'must not be "none" when NODE_ENV=production' });
      }
      if (!c.JWT_SECRET) {
        issues.addIssue({ code: 'custom', path: ['JWT_SECRET'], message: 'is required when NODE_ENV=production' });
      }
      if (c.PASSWORD_SCRYPT_LOG_N < 17) {
        issues.addIssue({ code: 'custom', path: ['PASSWORD_SCRYPT_LOG_N'], message: 'must be at least 17 (OWASP) when NODE_ENV=production' });
      }
      if (!c.SECRETS_KEY) {
        issues.addIssue({ code: 'custom', path: ['SECRETS_KEY'], message: 'is required when NODE_ENV=production' });
      }
    }
    if (c.WORKER_DEAD_AFTER_MS < 2 * c.WORKER_HEARTBEAT_INTERVAL_MS) {
      issues.addIssue({ code: 'custom', path: ['WORKER_DEAD_AFTER_MS'], message: 'must be at least twice WORKER_HEARTBEAT_INTERVAL_MS' });
    }
    if (c.DATABASE_POOL_MODE === 'transaction' && !c.DATABASE_URL) {
      issues.addIssue({ code: 'custom', path: ['DATABASE_POOL_MODE'], message: 'transaction needs DATABASE_URL (the pooler) and DATABASE_DIRECT_URL' });
    }
    if (c.DATABASE_POOL_MODE === 'transaction' && !c.DATABASE_DIRECT_URL) {
      issues.addIssue({
        code: 'custom',
        path: ['DATABASE_DIRECT_URL'],
        message: 'is required when DATABASE_POOL_MODE=transaction (LISTEN, advisory locks and the job runner need a session)',
      });
    }
    if (c.AUTH_PROVIDER === 'oidc') {
      if (!c.OIDC_ISSUER) issues.addIssue({ code: 'custom', path: ['OIDC_ISSUER'], message: 'is required when AUTH_PROVIDER=oidc' });
      if (!c.OIDC_AUDIENCE) issues.addIssue({ code: 'custom', path: ['OIDC_AUDIENCE'], message: 'is required when AUTH_PROVIDER=oidc' });
    }
  })
  .transform((c) => ({
    ...c,
    APP_URL: c.APP_URL ?? `http://127.0.0.1:${c.CONSOLE_PORT}`,
    PRODUCT_URL: c.PRODUCT_URL ?? `http://127.0.0.1:${c.PRODUCT_PORT}`,
  }));

export type Config = z.output<typeof configSchema>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses settings from an environment record; throws a ConfigError naming each bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((i) => `  ${String(i.path[0] ?? 'environment')}: ${i.message}`);
  throw new ConfigError(`Invalid settings:\n${lines.join('\n')}`);
}
