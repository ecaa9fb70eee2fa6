/**
 * Login rate limits (product-api.md): per client IP 20 attempts per 5 minutes and per account 5 per
 * 15 minutes, fixed windows kept in Postgres so every process shares them, checked together before
 * any password or user row is read. POST /admin/login, POST /login and POST /accept-invite call it;
 * password-reset requests have the same budgets under their own `reset:` keys, and reset confirms
 * the per-IP budget under `reset-confirm:`.
 */
import type { AppContext } from '../lib/context.ts';
import { AppError } from '../lib/errors.ts';
import { takeLoginAttempt, type Budget } from '../sql/loginAttempts.ts';

const IP_BUDGET = { limit: 20, windowMs: 5 * 60 * 1000 };
const ACCOUNT_BUDGET = { limit: 5, windowMs: 15 * 60 * 1000 };

export const staffAccountKey = (email: string) => `employee:${email.trim().toLowerCase()}`;
export const tenantAccountKey = (tenantId: string, email: string) => `tenant:${tenantId}:${email.trim().toLowerCase()}`;

/**
 * Takes one attempt from the caller's IP budget and, when given, the account's (both keys under
 * `prefix`); throws 429 `message` with Retry-After when either is spent.
 */
async function enforceBudgets(app: AppContext, clientIp: string, accountKey: string | null, prefix: string, message: string): Promise<void> {
  const budgets: Budget[] = [{ key: `${prefix}ip:${clientIp}`, ...IP_BUDGET }];
  if (accountKey) budgets.push({ key: `${prefix}${accountKey}`, ...ACCOUNT_BUDGET });
  const outcome = await takeLoginAttempt(app.pool, budgets, app.clock.now());
  if (!outcome.allowed) throw new AppError('rate_limited', message, undefined, { 'Retry-After': String(outcome.retryAfterSeconds) });
}

export const enforceLoginRateLimit = (app: AppContext, clientIp: string, accountKey: string | null) =>
  enforceBudgets(app, clientIp, accountKey, '', 'Too many login attempts. Try again later.');

/** Reset e-mails are budgeted like logins (own keys): no inbox can be flooded from one place. */
export const enforceResetRateLimit = (app: AppContext, clientIp: string, accountKey: string | null) =>
  enforceBudgets(app, clientIp, accountKey, 'reset:', 'Too many password reset requests. Try again later.');

/** Confirms guess tokens: one per-IP budget (an account is not known until the token is). */
export const enforceResetConfirmRateLimit = (app: AppContext, clientIp: string) =>
  enforceBudgets(app, clientIp, null, 'reset-confirm:', 'Too many password reset attempts. Try again later.');
